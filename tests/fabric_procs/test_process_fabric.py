"""ProcessFabric, the in-process API: a three-device topology up and down, the panel's
controls as plain calls, and a device that dies reported as the fabric's failure."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from controller.topology import load_topology
from fabric.procs import ProcessFabric, layout_from_topology
from fabric.procs.state import read_state
from tests.fabric_procs.helpers import tiny
from tests.loopback import wait_until


def test_up_controls_and_down(workdir: Path) -> None:
    layout = layout_from_topology(load_topology(tiny(workdir)), workdir)
    with ProcessFabric(layout, workdir, seed=5) as fabric:
        state = read_state(workdir)
        assert state is not None and state.status == "up"
        assert {d.name for d in state.devices} == {"t1", "t0", "nic0"}
        assert fabric.panel.link("nic0:0").ends == ("nic0:0", "host")
        assert fabric.panel.link("t1:1") is fabric.panel.link("t0:2")
        fabric.panel.set_link("t0:1", up=False)
        fabric.panel.set_link("nic0:1", loss=0.5)
        link = fabric.panel.link("nic0:1")
        assert not link.up and link.loss == 0.5
        assert fabric.failure is None
    after = read_state(workdir)
    assert after is not None and after.status == "stopped"
    assert [p for p in workdir.iterdir() if p.is_socket()] == []


def test_a_dead_device_is_the_fabrics_failure(workdir: Path) -> None:
    layout = layout_from_topology(load_topology(tiny(workdir)), workdir)
    with ProcessFabric(layout, workdir) as fabric:
        os.kill(fabric.devices.pids["t1"], signal.SIGKILL)
        wait_until(lambda: fabric.panel.snapshot()["devices_lost"] == ["t1"],
                   "the panel to see t1's socket close")
        assert fabric.changed.is_set()
        wait_until(lambda: fabric.devices.exited() == "t1", "t1 to be reaped")
        assert (fabric.failure or "").startswith("t1 exited with code -9")
    assert [p for p in workdir.iterdir() if p.is_socket()] == []
