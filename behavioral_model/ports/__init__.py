"""Packet I/O of the switch: where frames come from and where they go.

A port backend owns some ports. It delivers received frames to the switch with
``deliver(port, data)`` and sends frames with ``transmit(port, data)``. A backend may
also offer ``start_batched(deliver_batch)`` (the switch then gets each wake-up's frames
as one list and runs them in the backend's thread) and ``transmit_batch(frames)``
(several frames, objects with ``port`` and ``data``, in one write), and set
``owns_all = True`` when it carries every port (the switch then skips ``owns``):

* :mod:`.nn` — BMv2's nanomsg PAIR "packet-in" socket (``--packet-in``), the transport
  of PTF's ``nn`` platform; no root needed; one socket carries every port.
* :mod:`.veth` — raw ``AF_PACKET`` sockets on network interfaces (``-i PORT@IFACE``);
  needs CAP_NET_RAW.
* :mod:`.pcap` — not a backend: records every port's traffic to pcap files
  (``--pcap DIR``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Deliver", "DeliverBatch", "Frame", "PortBackend", "PortInfo"]

Deliver = Callable[[int, bytes], object]
"""Callback a backend calls for each received frame: ``deliver(port, data)``."""

DeliverBatch = Callable[[list[tuple[int, bytes]]], object]
"""Callback for several received frames at once: ``deliver_batch([(port, data), ...])``."""


class Frame(Protocol):
    """A frame to send (e.g. the pipeline's ``OutputPacket``)."""

    port: int
    data: bytes


@dataclass
class PortInfo:
    """A port a backend knows: its number, interface/socket name and whether it is up."""

    port: int
    name: str
    up: bool = True


class PortBackend(Protocol):
    """What the switch needs from a source/sink of packets."""

    def start(self, deliver: Deliver) -> None:
        """Begin receiving; ``deliver`` is called from the backend's own thread(s)."""

    def transmit(self, port: int, data: bytes) -> None:
        """Send ``data`` out of ``port``; must not block for long."""

    def port_info(self) -> dict[int, PortInfo]:
        """The ports this backend currently has."""

    def owns(self, port: int) -> bool:
        """True if frames for ``port`` go through this backend."""

    def close(self) -> None:
        """Stop receiving, join threads, close sockets; idempotent."""
