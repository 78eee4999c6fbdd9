"""A fabric of processes on loopback, without root: one bm switch process per device of
a topology file (``launcher``), a patch panel that carries frames between their nn
sockets along the topology's links and offers host sockets on the NICs' host ports
(``panel``, with failure injection per link in ``links``), and the command line
``python -m fabric.procs up|down|status|link`` (``cli``) that runs them
(``process_fabric``) and keeps their state in a file (``state``).

With root the devices can be wired by veth pairs instead (``veth_plan``,
``veth_wiring``, ``netns``), and run on BMv2 (``targets``, ``bmv2``);
``python -m fabric.procs run SCENARIO`` (``run_cmd``, ``scenario_run``) runs a
scenario of ``fabric/scenarios`` on such a fabric, programmed by the controller."""

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
from .veth_plan import VethPlan, veth_layout
from .veth_wiring import VethWiring

__all__ = [
    "CableSpec", "DeviceFailure", "DeviceProcesses", "DeviceSpec", "Endpoint",
    "FabricLayout", "HostSocketSpec", "LayoutError", "LinkState", "PatchPanel",
    "ProcessFabric", "VethPlan", "VethWiring", "layout_from_topology", "veth_layout",
]
