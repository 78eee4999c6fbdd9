"""Runs beyond the default scenarios: determinism, failure injection (a drop rate on a
cable, a switch reboot the controller programs again), and the command line's
handling of bad input (exit 2, one clear line each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SCENARIOS, quick

from fabric.cli import main
from fabric.experiment import run_experiment
from fabric.runner import run_scenario
from fabric.scenario import Failure

TOPOLOGY = SCENARIOS.parent / "topologies" / "small.yaml"


def comparable(report: dict) -> dict:
    """A report without what depends on the wall clock."""
    return json.loads(json.dumps(report))


def test_same_seed_same_report() -> None:
    scenario = quick("spray").scaled(0.25)
    first = run_experiment(scenario).report
    again = run_experiment(scenario).report
    assert comparable(first) == comparable(again)


def test_loss_on_a_cable_and_a_switch_reboot_leave_the_transfer_intact() -> None:
    scenario = quick("spray").model_copy(update={"failures": [
        Failure(at_us=50, action="loss", link="p1-t0-0:3", rate=0.2),
        Failure(at_us=150, action="reboot", device="p0-t1-0", down_us=60)]})
    run = run_scenario(scenario, "mrc")
    assert run.finished and run.intact
    actions = [(f["action"], f["target"]) for f in run.failures]
    assert ("reprogrammed", "p0-t1-0") in actions
    lost = sum(link["dropped"] for link in run.network.values())
    assert lost > 0


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_unknown_scenario_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(capsys, "run", "no-such-scenario")
    assert code == 2
    assert "no scenario 'no-such-scenario'" in err and "spray" in err


def test_bad_scenario_file_exits_2_naming_file_and_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"name: x\ntopology: {TOPOLOGY}\n"
                   "workloads: [{qp: qp-a, bytes: lots}]\ncolour: red\n")
    code, err = run_cli(capsys, "run", str(bad), "--out", str(tmp_path / "out"))
    assert code == 2
    lines = err.strip().splitlines()
    assert any(f"{bad}: workloads.0.bytes:" in line and "not a size" in line
               for line in lines)
    assert any(f"{bad}: colour: unknown key" in line for line in lines)
    assert "Traceback" not in err


def test_names_missing_from_the_topology_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "names.yaml"
    bad.write_text(f"name: x\ntopology: {TOPOLOGY}\n"
                   "workloads: [{qp: qp-z, bytes: 4KiB}]\n"
                   "failures: [{at_us: 1, action: down, link: 'p9-t0-0:3'}]\n")
    code, err = run_cli(capsys, "run", str(bad), "--out", str(tmp_path / "out"))
    assert code == 2
    assert "no QP named 'qp-z'" in err and "'p9-t0-0:3' is not DEVICE:PORT" in err


def test_bad_topology_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = tmp_path / "topo.yaml"
    topology.write_text("name: t\nclos: {planes: 2}\nwat: 1\n")
    code, err = run_cli(capsys, "run", "spray", "--topology", str(topology),
                        "--out", str(tmp_path / "out"))
    assert code == 2
    assert str(topology) in err and "Traceback" not in err
    code, err = run_cli(capsys, "run", "spray", "--topology", str(tmp_path / "none.yaml"))
    assert code == 2 and "no such topology file" in err


def test_bad_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--seed", "many"])
    assert exit_info.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_list_names_every_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("spray", "link-failure", "ecn-steer", "incast"):
        assert name in out


def test_run_writes_report_and_plots(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "spray", "--quick", "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] and report["scenarios"][0]["scenario"] == "spray"
    for name in ("per_path_load.png", "latency_cdf.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "MRC vs baseline" in capsys.readouterr().out


def test_a_controller_packet_out_enters_the_cpu_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """Packet-outs come over P4Runtime on a gRPC thread; the simulator feeds them to
    the device's CPU port at its next tick."""
    import time

    import fabric.runner as runner
    from protocol import constants as c

    arrived: list[int] = []
    run = runner._run

    def with_packet_out(scenario, mode, only, network, controller, metrics, progress,
                        driver):
        switch = network.devices["p0-t1-0"]
        receive = switch.receive

        def spy(port: int, frame: bytes) -> None:
            arrived.append(port)
            receive(port, frame)

        switch.receive = spy  # type: ignore[method-assign]
        controller.reactor.links["p0-t1-0"].packet_out(bytes(64), 1)
        deadline = time.monotonic() + 10
        while not switch.target.packet_outs_pending and time.monotonic() < deadline:
            time.sleep(0.01)  # the stream delivers it on a gRPC thread
        return run(scenario, mode, only, network, controller, metrics, progress, driver)

    monkeypatch.setattr(runner, "_run", with_packet_out)
    result = runner.run_scenario(quick("spray").scaled(0.1), "mrc")
    assert result.intact
    assert c.CPU_PORT in arrived


def test_probes_in_virtual_time_keep_a_run_deterministic() -> None:
    # Probes leave the controller as packet-outs on gRPC threads; the simulator waits
    # for them, so they enter the NICs at the same virtual time in every run.
    scenario = quick("link-failure")
    first, again = (run_scenario(scenario, "mrc") for _ in range(2))
    assert first.controller_events["restored"] > 0
    assert first.metrics.ev_events == again.metrics.ev_events
    assert first.controller_events == again.controller_events
