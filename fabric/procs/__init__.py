"""A fabric of processes on loopback, without root: one bm switch process per device of
a topology file (``launcher``), a patch panel that carries frames between their nn
sockets along the topology's links and offers host sockets on the NICs' host ports
(``panel``, with failure injection per link in ``links``), and the command line
``python -m fabric.procs up|down|status|link`` (``cli``) that runs them
(``process_fabric``) and keeps their state in a file (``state``)."""

from .launcher import DeviceFailure, DeviceProcesses
from .layout import (
    CableSpec,
    DeviceSpec,
    Endpoint,
    FabricLayout,
    HostSocketSpec,
    LayoutError,
    layout_from_topology,
)
from .links import LinkState
from .panel import PatchPanel
from .process_fabric import ProcessFabric

__all__ = [
    "CableSpec", "DeviceFailure", "DeviceProcesses", "DeviceSpec", "Endpoint",
    "FabricLayout", "HostSocketSpec", "LayoutError", "LinkState", "PatchPanel",
    "ProcessFabric", "layout_from_topology",
]
