"""The parts of procs mode that need no process: scenario times scaled to the wall
clock, the hosts' pacing, --target over the topology's targets, BMv2's command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabric.procs import wiring
from fabric.procs.bmv2 import BMV2_SWITCH
from fabric.procs.host_ports import PacedPort
from fabric.procs.launcher import switch_command
from fabric.procs.layout import DeviceSpec
from fabric.procs.scenario_run import host_frames_per_s, scaled_for_procs
from fabric.procs.targets import TargetError, check_target, load_fabric
from fabric.scenario import Check, load_scenario

ROOT = Path(__file__).resolve().parents[2]


class Wire:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.sent.append(frame)


def test_scenario_times_scale_to_the_wall_clock() -> None:
    scenario = load_scenario(ROOT / "fabric" / "scenarios" / "link-failure.yaml")
    scaled = scaled_for_procs(scenario, 1000, allowance_s=0.0)
    assert [f.at_us for f in scaled.failures] == [300_000, 3_000_000]
    assert scaled.transport.rto_us == scenario.transport.rto_us * 1000
    assert scaled.transport.reorder_allowance_us == \
        scenario.transport.reorder_allowance_us * 1000
    assert [c.bound for c in scaled.checks] == [c.bound * 1000 for c in scenario.checks]
    assert scaled.workloads == scenario.workloads
    # 10 Gb/s slowed down 1000 times, in frames of 1024 bytes and their headers
    assert 1000 < host_frames_per_s(scenario, 1000) < 1250


def test_scheduling_allowance_delays_loss_detection_and_its_bounds() -> None:
    """A process fabric waits for a device the OS has not run yet before it takes a
    packet for lost (scenario_run.DEFAULT_SCHEDULING_ALLOWANCE_S): the host's jitter
    allowance is at least that, and an upper bound on a time (how soon an EV is
    retired) twice that later (the window and the round trip of the packet that shows
    the loss); a lower bound on a time and other metrics stay."""
    scenario = load_scenario(ROOT / "fabric" / "scenarios" / "link-failure.yaml")
    assert scenario.checks[0].metric == "ev_retired_after_us"
    assert scenario.checks[0].compare == "<="
    extra = [Check(metric="longest_stall_us", compare=">=", bound=10),
             Check(metric="retransmits", compare="<=", bound=5)]
    scenario = scenario.model_copy(update={"checks": scenario.checks + extra})
    scaled = scaled_for_procs(scenario, 1000, allowance_s=0.25)
    assert scaled.transport.reorder_allowance_us == 250_000
    assert [c.bound for c in scaled.checks] == [
        scenario.checks[0].bound * 1000 + 500_000, 10_000, 5]
    # a scaled allowance above the floor is kept
    slow = scaled_for_procs(scenario, 1e6, allowance_s=0.25)
    assert slow.transport.reorder_allowance_us == scenario.transport.reorder_allowance_us * 1e6


def test_paced_port_sends_one_frame_per_gap() -> None:
    wire = Wire()
    port = PacedPort(wire, frames_per_s=10)  # type: ignore[arg-type]
    for i in range(3):
        port.send(bytes([i]))
    assert port.release(100.0) == pytest.approx(100.1) and wire.sent == [b"\x00"]
    assert port.release(100.05) == pytest.approx(100.1) and len(wire.sent) == 1
    assert port.release(100.1) == pytest.approx(100.2) and len(wire.sent) == 2
    assert port.release(150.0) is None and len(wire.sent) == 3
    port.send(b"x")  # after a pause, no burst is owed: the next frame waits its gap
    assert port.release(150.01) == pytest.approx(150.1) and len(wire.sent) == 3


def test_target_overrides_the_topology() -> None:
    small = ROOT / "controller" / "examples" / "small.yaml"
    fabric = load_fabric(small, "bmv2")
    assert {s.access.target for s in fabric.switches()} == {"bmv2"}
    assert {n.access.target for n in fabric.nics()} == {"bmv2"}
    assert {s.access.target for s in load_fabric(small).switches()} == {"bm"}
    if shutil.which(BMV2_SWITCH) is None:
        with pytest.raises(TargetError, match="simple_switch_grpc is not installed"):
            check_target(fabric)


def test_bmv2_command_line() -> None:
    device = DeviceSpec("s", "t1", 3, "127.0.0.1:9", "", "/tmp/s.log",
                        interfaces=((1, "a"), (2, "b")), target="bmv2")
    command = switch_command(device)
    assert command[:8] == [BMV2_SWITCH, "--no-p4", "--device-id", "3", "-i", "1@a", "-i",
                           "2@b"]
    target_options = command[command.index("--") + 1:]
    assert target_options[:4] == ["--grpc-server-addr", "127.0.0.1:9", "--cpu-port", "255"]


def test_veth_without_root_or_iproute2_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    small = ROOT / "controller" / "examples" / "small.yaml"
    monkeypatch.setattr(wiring.os, "geteuid", lambda: 1000)
    with pytest.raises(wiring.WiringError, match="needs root"):
        wiring.fabric_setup(small, tmp_path, "veth")
    assert wiring.fabric_setup(small, tmp_path, "nn").veth is None
    monkeypatch.setattr(wiring.os, "geteuid", lambda: 0)
    monkeypatch.setattr(wiring, "missing_tools", lambda: ["tc"])
    with pytest.raises(wiring.WiringError, match="tc not found"):
        wiring.fabric_setup(small, tmp_path, "veth")


# Stands in for simple_switch_grpc's --help as BMv2 prints it: the generic options,
# then the target's (bm_sim/options_parse.cpp prints those only for the generic
# --help; with "-- --help" it takes --help for the JSON file and fails).
BMV2_HELP_STAND_IN = """#!/bin/sh
if [ "$1" = "--help" ]; then
    echo "Usage: SWITCH_NAME [options] <path to JSON config file>"
    echo "  --thrift-port arg      TCP port on which to run the Thrift runtime server"
    echo "  --notifications-addr arg  nanomsg address for notifications"
    echo "Target specific options:"
    echo "  --grpc-server-addr arg"
    echo "  --priority-queues arg  Number of priority queues (default is 1)"
    exit 0
fi
echo "Error: please specify an input JSON configuration file"
exit 1
"""


def test_bmv2_options_come_from_its_help(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    from fabric.procs import bmv2

    stand_in = tmp_path / BMV2_SWITCH
    stand_in.write_text(BMV2_HELP_STAND_IN)
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    bmv2.bmv2_help.cache_clear()
    try:
        commands = [switch_command(DeviceSpec(
            f"s{i}", "t1", i, f"127.0.0.1:{9 + i}", "", str(tmp_path / f"s{i}.log"),
            interfaces=((1, "a"),), target="bmv2")) for i in range(2)]
    finally:
        bmv2.bmv2_help.cache_clear()
    thrift_ports = set()
    for i, command in enumerate(commands):
        generic, target = command[:command.index("--")], command[command.index("--") + 1:]
        assert target[-2:] == ["--priority-queues", "8"]
        # every device its own Thrift port (BMv2 exits when 9090 is taken) and
        # notifications socket, both generic options (before "--")
        thrift_ports.add(generic[generic.index("--thrift-port") + 1])
        assert generic[generic.index("--notifications-addr") + 1] == \
            f"ipc://{tmp_path.resolve()}/s{i}.bmv2-notify.ipc"
    assert len(thrift_ports) == 2
