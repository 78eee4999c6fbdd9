"""Host software behind the MRC NIC's host port (docs/mrc-nic.md section 7).

    from host import Endpoint, MemoryRegion, in_process_link

    port, nic_side = in_process_link()
    ep = Endpoint(port, "2001:db8::1")
    ep.open_qp(5, peer="2001:db8::2")
    handle = ep.write(5, b"hello", remote_addr=0x1000, rkey=7)

The endpoint is sans-IO: see ``host.endpoint``; ``host.driver.run_until`` drives it
over a real port (``NanomsgPort``, ``RawSocketPort``).
"""

from __future__ import annotations

from .clock import Clock, ManualClock, MonotonicClock
from .completions import Completion, WriteError, WriteHandle
from .config import TransportConfig
from .driver import run_until
from .endpoint import Endpoint
from .memory import MemoryRegion
from .ports import PacketPort
from .ports.inprocess import InProcessPort, in_process_link
from .ports.nanomsg import NanomsgPort
from .ports.raw import RawSocketPort
from .stats import EndpointStats, QpStats

__all__ = [
    "Clock",
    "Completion",
    "Endpoint",
    "EndpointStats",
    "InProcessPort",
    "ManualClock",
    "MemoryRegion",
    "MonotonicClock",
    "NanomsgPort",
    "PacketPort",
    "QpStats",
    "RawSocketPort",
    "TransportConfig",
    "WriteError",
    "WriteHandle",
    "in_process_link",
    "run_until",
]
