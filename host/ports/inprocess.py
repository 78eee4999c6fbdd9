"""Ports joined by an in-process link: what one end sends waits in the other end's
inbox until that end is polled. Tests put a fake NIC on the far end; a simulator can
move frames itself (``take_sent`` / ``deliver``) and add delays, loss or reordering."""

from __future__ import annotations

from collections import deque

from . import Receiver

__all__ = ["InProcessPort", "in_process_link"]


class InProcessPort:
    """One end of a link; ``peer`` is the other end (None: sent frames are kept in
    ``outbox`` for whoever drives this port)."""

    def __init__(self) -> None:
        self.peer: InProcessPort | None = None
        self.outbox: deque[bytes] = deque()
        self._inbox: deque[bytes] = deque()
        self._receiver: Receiver | None = None
        self.sent = 0
        self.received = 0

    def send(self, frame: bytes) -> None:
        self.sent += 1
        if self.peer is None:
            self.outbox.append(frame)
        else:
            self.peer._inbox.append(frame)

    def set_receiver(self, receiver: Receiver | None) -> None:
        self._receiver = receiver

    def deliver(self, frame: bytes) -> None:
        """Queue ``frame`` as if it had arrived from the wire."""
        self._inbox.append(frame)

    def take_sent(self) -> list[bytes]:
        """The frames sent since the last call (a port without a peer)."""
        frames = list(self.outbox)
        self.outbox.clear()
        return frames

    @property
    def pending(self) -> int:
        """Frames waiting in the inbox."""
        return len(self._inbox)

    def poll(self, timeout_s: float = 0.0) -> int:
        """Deliver the inbox, including frames the receiver's replies bring in
        meanwhile; never waits (``timeout_s`` is for the PacketPort protocol)."""
        count = 0
        inbox = self._inbox
        while inbox:
            frame = inbox.popleft()
            count += 1
            if self._receiver is not None:
                self._receiver(frame)
        self.received += count
        return count

    def close(self) -> None:
        self._inbox.clear()
        self.outbox.clear()


def in_process_link() -> tuple[InProcessPort, InProcessPort]:
    """Two ports, each sending into the other's inbox."""
    a, b = InProcessPort(), InProcessPort()
    a.peer, b.peer = b, a
    return a, b
