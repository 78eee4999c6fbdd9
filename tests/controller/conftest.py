"""Fixtures shared by the controller tests: the plan of the small example fabric, and
the P4Info of the NIC program."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.device.pipelines import build_bm
from controller.plan import FabricPlan, make_plan
from controller.topology import load_topology
from p4rt_client import P4InfoHelper

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"


@pytest.fixture(scope="module")
def small() -> FabricPlan:
    return make_plan(load_topology(SMALL))


@pytest.fixture(scope="module")
def nic_helper() -> P4InfoHelper:
    return P4InfoHelper(build_bm(str(ROOT / "p4src" / "mrc_nic.p4")).p4info)
