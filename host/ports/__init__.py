"""Packet ports: where the endpoint's frames go and where received frames come from.

Every port has ``send(frame)`` and ``set_receiver(callback)``; ``poll(timeout_s)``
hands frames that arrived to the receiver (waiting up to ``timeout_s`` for the first
on real sockets) and returns how many. A port must not call the receiver from inside
``send``: the endpoint is not re-entrant, so frames are delivered from ``poll`` only.

* :mod:`.inprocess` — a link between two ports in one process (tests, simulators).
* :mod:`.nanomsg` — the NIC's host port on a bm/BMv2 ``--packet-in`` socket.
* :mod:`.raw` — a Linux interface (e.g. a veth) through AF_PACKET; needs root.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["PacketPort", "Receiver"]

Receiver = Callable[[bytes], object]
"""Called with each received frame."""


class PacketPort(Protocol):
    """What an endpoint needs from the wire."""

    def send(self, frame: bytes) -> None:
        """Send one Ethernet frame; must not block for long or call the receiver."""

    def set_receiver(self, receiver: Receiver | None) -> None:
        """Where ``poll`` delivers received frames (None: they are dropped)."""

    def poll(self, timeout_s: float = 0.0) -> int:
        """Deliver the frames that arrived, waiting up to ``timeout_s`` for one;
        returns how many were delivered."""

    def close(self) -> None:
        """Release the port's sockets; idempotent."""
