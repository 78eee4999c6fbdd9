"""``--wiring nn|veth`` and ``--target bm|bmv2``, shared by ``up`` and ``run``: from a
topology file to the fabric to plan, the layout to launch and, for veths, their plan;
every problem with the input or the machine is a ``WiringError`` saying what to do."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from controller.topology import Fabric, TopologyError

from .layout import FabricLayout, LayoutError, layout_from_topology
from .netns import missing_tools
from .targets import TargetError, check_target, load_fabric
from .veth_plan import VethPlan, veth_layout

__all__ = ["WIRINGS", "FabricSetup", "WiringError", "check_veth_possible", "fabric_setup"]

WIRINGS = ("nn", "veth")


class WiringError(Exception):
    """Bad input, or a wiring or target this machine cannot run; one line."""


@dataclass(frozen=True)
class FabricSetup:
    fabric: Fabric
    layout: FabricLayout
    veth: VethPlan | None


def check_veth_possible() -> None:
    """WiringError unless veths can be made here: root, and iproute2's ip and tc."""
    if os.geteuid() != 0:
        raise WiringError("--wiring veth needs root (it creates a network namespace and "
                          "veth pairs); the nn wiring (the default) does not")
    missing = missing_tools()
    if missing:
        raise WiringError(f"--wiring veth needs iproute2: {' and '.join(missing)} not found")


def fabric_setup(topology: str | Path, workdir: Path, wiring: str = "nn",
                 target: str | None = None) -> FabricSetup:
    try:
        fabric = load_fabric(topology, target)
        check_target(fabric)
        layout = layout_from_topology(fabric, workdir)
    except (TopologyError, LayoutError, TargetError) as error:
        raise WiringError(str(error)) from None
    if wiring == "nn":
        return FabricSetup(fabric, layout, None)
    check_veth_possible()
    layout, veth = veth_layout(layout, workdir)
    return FabricSetup(fabric, layout, veth)
