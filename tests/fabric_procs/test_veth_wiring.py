"""The veth wiring: names (no root needed), and with root a fabric's namespace and veths
created and removed with nothing left behind: by ``down``, after a supervisor that was
killed, and when a device fails while the fabric starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.topology import load_topology
from fabric.procs import layout_from_topology
from fabric.procs.netns import interface_exists, missing_tools, namespace_exists
from fabric.procs.state import process_alive, read_state
from fabric.procs.veth_plan import IFNAMSIZ, fabric_id, veth_layout
from fabric.procs.veth_wiring import VethWiring
from tests.fabric_procs.helpers import ROOT, fabric_cli, tiny
from tests.loopback import wait_until
from tests.no_toolchain import env_without_toolchain

SMALL = ROOT / "controller" / "examples" / "small.yaml"


def needs_veth() -> None:
    if os.geteuid() != 0:
        pytest.skip("the veth wiring needs root (network namespaces and veths)")
    missing = missing_tools()
    if missing:
        pytest.skip(f"the veth wiring needs iproute2: {' and '.join(missing)} not found")


def nothing_left(workdir: Path) -> None:
    prefix = f"mf{fabric_id(workdir)}"
    assert not namespace_exists(f"mrcfab-{fabric_id(workdir)}")
    assert [n for n in os.listdir("/sys/class/net") if n.startswith(prefix)] == []


def test_names_fit_and_are_the_same_every_time(workdir: Path) -> None:
    layout = layout_from_topology(load_topology(SMALL), workdir)
    wired, plan = veth_layout(layout, workdir)
    again = veth_layout(layout, workdir)[1]
    assert plan == again
    names = [name for link in plan.links for name in link.interfaces]
    assert len(names) == len(set(names)) == 2 * (len(layout.cables) + 4)
    assert all(len(name) <= IFNAMSIZ for name in names)
    assert plan.namespace == f"mrcfab-{fabric_id(workdir)}"
    nic0 = wired.device("nic0")
    assert nic0 is not None and nic0.packet_in == "" and wired.host_sockets == ()
    assert [port for port, _ in nic0.interfaces] == [0, 1, 2]
    assert plan.host_interface("nic0") not in plan.root_interfaces()


def test_veths_created_controlled_and_removed(workdir: Path) -> None:
    needs_veth()
    layout = layout_from_topology(load_topology(tiny(workdir)), workdir)
    _, plan = veth_layout(layout, workdir)
    wiring = VethWiring(plan)
    try:
        wiring.start()
        assert namespace_exists(plan.namespace)
        assert all(interface_exists(name) for name in plan.root_interfaces())
        assert wiring.link("t0:2") is wiring.link("t1:1")
        down = wiring.set_link("t0:2", up=False)
        assert not down.up
        assert "DOWN" in subprocess.run(["ip", "-br", "link", "show", down.link.interfaces[1]],
                                        capture_output=True, text=True).stdout
        wiring.set_link("t1:1", up=True)
        assert [link["up"] for link in wiring.snapshot()["links"]] == [True, True, True]
        with pytest.raises(KeyError):
            wiring.set_link("t0:9", up=False)
    finally:
        wiring.close()
    nothing_left(workdir)


def test_up_and_down_with_veths(workdir: Path) -> None:
    needs_veth()
    up = fabric_cli("up", tiny(workdir), "--wiring", "veth", "--workdir", workdir)
    assert up.returncode == 0, up.stderr
    state = read_state(workdir)
    assert state is not None and state.wiring == "veth" and state.status == "up"
    assert all(interface_exists(name) for name in state.interfaces)
    link = fabric_cli("link", "nic0:1", "down", "--workdir", workdir)
    assert link.returncode == 0 and "DOWN" in link.stdout, link.stderr
    loss = fabric_cli("link", "nic0:1", "loss", "0.1", "--workdir", workdir)
    if loss.returncode == 0:
        assert "0.1" in loss.stdout
    else:  # a kernel without netem: said in one line
        assert loss.returncode == 2 and "no netem qdisc" in loss.stderr, loss.stderr
    status = fabric_cli("status", "--workdir", workdir)
    assert status.returncode == 0, status.stdout + status.stderr
    down = fabric_cli("down", "--workdir", workdir)
    assert down.returncode == 0, down.stderr
    assert not [d.pid for d in state.devices if process_alive(d.pid, d.grpc_address)]
    nothing_left(workdir)


def test_down_after_a_killed_supervisor_removes_the_veths(workdir: Path) -> None:
    needs_veth()
    up = fabric_cli("up", tiny(workdir), "--wiring", "veth", "--workdir", workdir)
    assert up.returncode == 0, up.stderr
    state = read_state(workdir)
    assert state is not None
    os.kill(state.supervisor_pid, signal.SIGKILL)
    wait_until(lambda: not process_alive(state.supervisor_pid, "fabric.procs"),
               "the supervisor to die")
    assert namespace_exists(state.namespace)
    down = fabric_cli("down", "--workdir", workdir)
    assert down.returncode == 0, down.stderr
    assert not [d.pid for d in state.devices if process_alive(d.pid, d.grpc_address)]
    nothing_left(workdir)


def test_a_device_failing_at_start_leaves_nothing(workdir: Path) -> None:
    needs_veth()
    with socket.socket() as taken:  # the NIC's gRPC port is in use
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        nic_address = f"127.0.0.1:{taken.getsockname()[1]}"
        up = fabric_cli("up", tiny(workdir, nic_address), "--wiring", "veth",
                        "--workdir", workdir)
    assert up.returncode == 1
    assert "nic0" in up.stderr and "Traceback" not in up.stderr
    nothing_left(workdir)


def test_bad_wiring_input_is_one_line(workdir: Path) -> None:
    cli = fabric_cli("up", tiny(workdir), "--wiring", "ether", "--workdir", workdir)
    assert cli.returncode == 2 and "invalid choice" in cli.stderr
    # Checked on every machine: the toolchain, if installed, is hidden from this run.
    bmv2 = fabric_cli("up", tiny(workdir), "--target", "bmv2", "--workdir", workdir,
                      env=env_without_toolchain(keep=()))
    assert bmv2.returncode == 2, bmv2.stderr
    assert "simple_switch_grpc is not installed" in bmv2.stderr
    assert "Traceback" not in bmv2.stderr and len(bmv2.stderr.strip().splitlines()) == 1


def test_ctrl_c_in_the_foreground_removes_the_veths(workdir: Path) -> None:
    needs_veth()
    proc = subprocess.Popen([sys.executable, "-m", "fabric.procs", "up", str(tiny(workdir)),
                             "--wiring", "veth", "--foreground", "--workdir", str(workdir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "is up" in line:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    nothing_left(workdir)
