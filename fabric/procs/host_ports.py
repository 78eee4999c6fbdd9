"""The host software's way onto a NIC's host port in a fabric of processes: the host
end of its veth, opened inside the fabric's namespace (``host.RawSocketPort``), or the
patch panel's host socket (``host.NanomsgPort``); paced to a small rate."""

from __future__ import annotations

from collections import deque

from host import NanomsgPort, RawSocketPort
from host.ports import PacketPort, Receiver

from .layout import FabricLayout
from .netns import in_namespace
from .veth_plan import VethPlan

__all__ = ["PacedPort", "open_host_port"]


def open_host_port(nic: str, layout: FabricLayout, veth: VethPlan | None) -> PacketPort:
    """The host port of ``nic``; KeyError if it has none, OSError if it cannot be
    opened."""
    if veth is not None:
        interface = veth.host_interface(nic)
        return in_namespace(veth.namespace, lambda: RawSocketPort(interface))
    address = next(h.address for h in layout.host_sockets if h.port.device == nic)
    return NanomsgPort(address)


class PacedPort:
    """A host port that sends at most ``frames_per_s`` frames a second, as the host's
    link would at the scenario's rate: an endpoint alone puts its whole window on the
    wire at once, and a burst sprayed over processes that the OS schedules in turns
    arrives far out of order, which the host would take for losses. ``send`` queues;
    ``release`` (called by the driving loop) sends what is due."""

    def __init__(self, port: PacketPort, frames_per_s: float) -> None:
        self.port = port
        self.gap_s = 1.0 / frames_per_s
        self._queue: deque[bytes] = deque()
        self._next_s = 0.0

    def send(self, frame: bytes) -> None:
        self._queue.append(frame)

    def release(self, now_s: float) -> float | None:
        """Send the frames due by ``now_s``; when the next one is due (None: none)."""
        while self._queue and self._next_s <= now_s:
            self.port.send(self._queue.popleft())
            # a gap after the later of when it was due and when it went: never a burst
            self._next_s = max(self._next_s, now_s) + self.gap_s
        return self._next_s if self._queue else None

    def set_receiver(self, receiver: Receiver | None) -> None:
        self.port.set_receiver(receiver)

    def poll(self, timeout_s: float = 0.0) -> int:
        return self.port.poll(timeout_s)

    def close(self) -> None:
        self.port.close()
