"""``python -m fabric.procs``: the small example fabric (12 processes) up and down with
nothing left behind, status and link commands, a failing device, Ctrl-C in the
foreground, and bad input (exit 2, never a traceback)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabric.procs.free_ports import move_to_free_ports
from fabric.procs.state import process_alive, read_state
from host import NanomsgPort
from p4rt_client import P4RuntimeSession
from tests.fabric_procs.helpers import ROOT, fabric_cli, tiny
from tests.loopback import wait_until

SMALL = ROOT / "controller" / "examples" / "small.yaml"


def nothing_left(workdir: Path, pids: list[int]) -> None:
    """No process of the fabric runs and no socket is left in ``workdir``."""
    assert not [pid for pid in pids if process_alive(pid)]
    sockets = [p.name for p in workdir.iterdir() if p.is_socket()]
    assert sockets == []


def small_on_free_ports(workdir: Path) -> Path:
    """small.yaml as it is, but for its fixed gRPC ports (other tests may use them)."""
    text = move_to_free_ports(SMALL.read_text())
    path = workdir / "small.yaml"
    path.write_text(text)
    return path


def test_small_fabric_up_status_link_down(workdir: Path) -> None:
    small = small_on_free_ports(workdir)
    up = fabric_cli("up", small, "--workdir", workdir)
    assert up.returncode == 0, up.stderr
    state = read_state(workdir)
    assert state is not None and state.status == "up"
    pids = [state.supervisor_pid] + [d.pid for d in state.devices if d.pid]
    try:
        assert len(state.devices) == 12 and len(pids) == 13
        for device in state.devices:
            assert device.name in up.stdout and device.grpc_address in up.stdout
            assert process_alive(device.pid, device.packet_in)
        # every device answers P4Runtime, without a pipeline yet (--no-p4)
        for device in state.devices:
            with P4RuntimeSession(device.grpc_address, device.device_id) as session:
                session.connect()
                assert session.get_pipeline_cookie() is None
        nics = [d for d in state.devices if d.role == "nic"]
        assert [d.host_socket for d in nics] == [
            f"ipc://{workdir}/nic{n}-host.ipc" for n in range(4)]
        host = NanomsgPort(nics[0].host_socket or "")  # host software can dial it
        host.close()

        status = fabric_cli("status", "--workdir", workdir)
        assert status.returncode == 0, status.stderr
        assert "p0-t0-0:1-nic0:1" in status.stdout and "nic3:0-host" in status.stdout

        link = fabric_cli("link", "nic0:1", "down", "--workdir", workdir)
        assert link.returncode == 0, link.stderr
        assert "DOWN" in link.stdout
        lossy = fabric_cli("link", "p1-t1-1:2", "loss", "0.25", "--workdir", workdir)
        assert lossy.returncode == 0 and "0.25" in lossy.stdout
        status = fabric_cli("status", "--workdir", workdir)
        row = next(line for line in status.stdout.splitlines() if "nic0:1" in line)
        assert "DOWN" in row
        for bad in (["nic0:7", "down"], ["nic9:1", "up"], ["nic0", "up"],
                    ["nic0:1", "loss", "2"], ["nic0:1", "down", "0.5"]):
            refused = fabric_cli("link", *bad, "--workdir", workdir)
            assert refused.returncode == 2, (bad, refused.stdout, refused.stderr)
            assert "Traceback" not in refused.stderr
        again = fabric_cli("up", small, "--workdir", workdir)
        assert again.returncode == 2 and "already runs" in again.stderr
    finally:
        down = fabric_cli("down", "--workdir", workdir)
    assert down.returncode == 0, down.stderr
    nothing_left(workdir, pids)
    assert json.loads((workdir / "fabric.json").read_text())["status"] == "stopped"
    assert fabric_cli("status", "--workdir", workdir).returncode == 1


def test_a_device_that_dies_stops_the_fabric(workdir: Path) -> None:
    topology = tiny(workdir)
    up = fabric_cli("up", topology, "--workdir", workdir)
    assert up.returncode == 0, up.stderr
    state = read_state(workdir)
    assert state is not None
    pids = [state.supervisor_pid] + [d.pid for d in state.devices if d.pid]
    try:
        nic = next(d for d in state.devices if d.name == "nic0")
        os.kill(nic.pid or 0, signal.SIGKILL)
        # generous: on a busy machine the supervisor notices within its 1 s wake-up,
        # but stopping the panel and the devices may take a while
        wait_until(lambda: not process_alive(state.supervisor_pid, "fabric.procs"),
                   "the supervisor to stop the fabric", 300)
    finally:
        fabric_cli("down", "--workdir", workdir)
    nothing_left(workdir, pids)
    after = read_state(workdir)
    assert after is not None and after.status == "failed" and "nic0" in after.message
    status = fabric_cli("status", "--workdir", workdir)
    assert status.returncode == 1 and "failed" in status.stdout


def test_down_cleans_up_after_a_killed_supervisor(workdir: Path) -> None:
    up = fabric_cli("up", tiny(workdir), "--workdir", workdir)
    assert up.returncode == 0, up.stderr
    state = read_state(workdir)
    assert state is not None
    devices = [d.pid for d in state.devices if d.pid]
    try:
        os.kill(state.supervisor_pid, signal.SIGKILL)
        wait_until(lambda: not process_alive(state.supervisor_pid, "fabric.procs"),
                   "the supervisor to die")
        status = fabric_cli("status", "--workdir", workdir)
        assert status.returncode == 1 and "supervisor died" in status.stdout
        assert all(process_alive(pid) for pid in devices)  # orphans, until down
    finally:
        down = fabric_cli("down", "--workdir", workdir)
    assert down.returncode == 0, down.stderr
    nothing_left(workdir, devices)
    after = read_state(workdir)
    assert after is not None and after.status == "stopped"


def test_a_device_that_cannot_start_fails_the_up(workdir: Path) -> None:
    with socket.socket() as taken:  # something else listens on the NIC's address
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        try:
            up = fabric_cli("up", tiny(workdir, address), "--workdir", workdir)
        finally:
            fabric_cli("down", "--workdir", workdir)  # had it come up after all
    assert up.returncode == 1
    assert "nic0 exited" in up.stderr and "Address already in use" in up.stderr
    assert "Traceback" not in up.stderr
    state = read_state(workdir)
    assert state is not None and state.status == "failed"
    nothing_left(workdir, [state.supervisor_pid] + [d.pid for d in state.devices if d.pid])


def test_devices_sharing_an_address_are_bad_input(workdir: Path) -> None:
    topology = tiny(workdir)
    text = topology.read_text()
    t0_address = text.split('name: t0, address: "')[1].split('"')[0]
    nic_address = text.split('name: nic0, address: "')[1].split('"')[0]
    topology.write_text(text.replace(
        f'address: "{nic_address}"', f'address: "{t0_address}", device_id: 2'))
    up = fabric_cli("up", topology, "--workdir", workdir / "run")
    if up.returncode == 0:
        fabric_cli("down", "--workdir", workdir / "run")
    assert up.returncode == 2
    assert f"nic0 and t0 both have the address {t0_address}" in up.stderr


@pytest.mark.parametrize("storm_s", [0.0, 2.0], ids=["ctrl-c", "after-a-storm-of-sigchld"])
def test_foreground_fabric_stops_on_ctrl_c(workdir: Path, storm_s: float) -> None:
    """Ctrl-C stops the fabric, also after a storm of SIGCHLDs (devices exiting). A
    signal handler runs in the supervisor's main thread between two of its bytecodes:
    one that set an event the main thread may be holding the lock of (inside its
    wait) failed under such a storm with a RecursionError, and could hang a Ctrl-C."""
    topology = tiny(workdir)
    proc = subprocess.Popen([sys.executable, "-m", "fabric.procs", "up", str(topology),
                             "--workdir", str(workdir), "--foreground"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # the table, then one line once it is up
            lines.append(line)
            if "is up" in line:
                break
        assert any("nic0-host.ipc" in line for line in lines), lines
        state = read_state(workdir)
        assert state is not None and state.status == "up"
        storm_ends = time.monotonic() + storm_s
        while time.monotonic() < storm_ends and proc.poll() is None:
            os.kill(proc.pid, signal.SIGCHLD)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            fabric_cli("down", "--workdir", workdir)  # its devices
    nothing_left(workdir, [d.pid for d in state.devices if d.pid])


@pytest.mark.parametrize("content, message", [
    ("name: [\n", "not valid YAML"),
    ("name: x\nplanes: []\nnics: []\nlinks: []\n", "planes"),
    (None, "cannot read the file"),
])
def test_bad_topology_is_exit_2_with_the_loaders_message(
        workdir: Path, content: str | None, message: str) -> None:
    topology = workdir / "topo.yaml"
    if content is not None:
        topology.write_text(content)
    up = fabric_cli("up", topology, "--workdir", workdir / "run")
    assert up.returncode == 2
    assert message in up.stderr and str(topology) in up.stderr
    assert "Traceback" not in up.stderr
    assert not (workdir / "run").exists()


def test_help_and_commands_without_a_fabric(workdir: Path) -> None:
    for command in ([], ["up"], ["down"], ["status"], ["link"]):
        shown = fabric_cli(*command, "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout
    assert fabric_cli("status", "--workdir", workdir).returncode == 1
    assert fabric_cli("down", "--workdir", workdir).returncode == 0
    assert fabric_cli("link", "nic0:1", "down", "--workdir", workdir).returncode == 1
    assert fabric_cli("frobnicate").returncode == 2
