"""Scenarios on a fabric of processes (procs mode) on our target: spray and link-failure
on the veth wiring (root), spray on the nn wiring through the command line. Small
transfers of the small fabric's shape (12 processes), on free ports. What is checked is
what the scenario's outcome says (the simulator's checks), never how long it took."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fabric.procs.netns import missing_tools
from fabric.procs.run_cmd import procs_outcome
from fabric.procs.scenario_run import run_procs_scenario
from fabric.procs.veth_plan import fabric_id
from fabric.procs.wiring import fabric_setup
from fabric.scenario import load_scenario
from tests.loopback import free_port_base

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "fabric" / "topologies" / "small.yaml"
DEVICES = 12


# What each kind of test scenario checks (the simulator's scenario files' checks).
CHECKS = {"spray": '[{metric: path_share_deviation, qp: qp-a, compare: "<=", bound: 0.1}]',
          "link-failure": '[{metric: ev_retired_after_us, compare: "<=", bound: 100}]'}


def scenario_file(folder: Path, kind: str, body: str) -> Path:
    """A scenario in the simulator's format on the small fabric, on free ports."""
    topology = folder / "small.yaml"
    topology.write_text(SMALL.read_text().replace(
        "port_base: 50000", f"port_base: {free_port_base(DEVICES)}"))
    path = folder / f"{kind}.yaml"
    path.write_text(f"name: {kind}-test\ntopology: {topology}\nchecks: {CHECKS[kind]}\n{body}")
    return path


def needs_veth() -> None:
    if os.geteuid() != 0:
        pytest.skip("procs mode on veths needs root (network namespaces and veths)")
    missing = missing_tools()
    if missing:
        pytest.skip(f"procs mode on veths needs iproute2: {' and '.join(missing)} not found")


def checks(report: dict) -> dict[str, bool]:
    return {c["check"]: c["ok"] for c in report["checks"]}


def nothing_left(workdir: Path) -> None:
    assert [n for n in os.listdir("/sys/class/net")
            if n.startswith(f"mf{fabric_id(workdir)}")] == []


def test_spray_on_veths(workdir: Path) -> None:
    needs_veth()
    path = scenario_file(workdir, "spray",
                         "workloads:\n  - {qp: qp-a, bytes: 256KiB, messages: 2}\n")
    scenario = load_scenario(path)
    setup = fabric_setup(scenario.topology_path(), workdir, "veth")
    report = procs_outcome(run_procs_scenario(scenario, setup, workdir), "veth", "bm")
    assert checks(report) == {"transfer intact": True, "qp-a: equal per-path shares": True}
    assert len(report["ev_packets"]["qp-a"]) == 4
    nothing_left(workdir)


def test_link_failure_on_veths(workdir: Path) -> None:
    needs_veth()
    # the cable between p0-t0-0 and p0-t1-1 fails 0.1 s into the transfer (x1000)
    path = scenario_file(workdir, "link-failure", """workloads:
  - {qp: qp-a, bytes: 384KiB, messages: 2}
failures:
  - {at_us: 100, link: "p0-t0-0:4", action: down}
""")
    scenario = load_scenario(path)
    setup = fabric_setup(scenario.topology_path(), workdir, "veth")
    report = procs_outcome(run_procs_scenario(scenario, setup, workdir), "veth", "bm")
    assert checks(report)["transfer intact"], report
    figures = report["figures"]
    assert figures["failed_link"] == "p0-t0-0:4"
    assert figures["failed_path_retired_after_us"] is not None  # an EV through it retired
    assert figures["packets_lost"] > 0
    nothing_left(workdir)


def test_spray_on_nn_from_the_command_line(workdir: Path) -> None:
    path = scenario_file(workdir, "spray", "workloads:\n  - {qp: qp-a, bytes: 32KiB}\n")
    run = subprocess.run([sys.executable, "-m", "fabric.procs", "run", str(path), "--json",
                          "--workdir", str(workdir / "run")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert "Traceback" not in run.stderr
    report = json.loads(run.stdout)
    assert report["wiring"] == "nn" and report["target"] == "bm"
    assert checks(report)["transfer intact"], report
    assert sum(report["ev_packets"]["qp-a"].values()) >= 32


def test_bad_scenario_is_one_line(workdir: Path) -> None:
    path = workdir / "bad.yaml"
    path.write_text("name: x\ntopology: nowhere.yaml\nworkloads: []\n")
    run = subprocess.run([sys.executable, "-m", "fabric.procs", "run", str(path)],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2
    assert "workloads" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("option", [["--scheduling-allowance", "-1"],
                                    ["--scheduling-allowance", "400"],
                                    ["--time-scale", "0"]])
def test_bad_run_option_is_one_line(option: list[str]) -> None:
    run = subprocess.run([sys.executable, "-m", "fabric.procs", "run", "spray", *option],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2, run.stderr
    assert option[0] in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_ctrl_c_during_a_run_removes_the_fabric(workdir: Path) -> None:
    needs_veth()
    path = scenario_file(workdir, "spray", "workloads:\n  - {qp: qp-a, bytes: 16MiB}\n")
    run_dir = workdir / "run"
    proc = subprocess.Popen([sys.executable, "-m", "fabric.procs", "run", str(path),
                             "--wiring", "veth", "--workdir", str(run_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    assert proc.stderr is not None
    said = []
    for line in proc.stderr:
        said.append(line)
        if "running the workloads" in line:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, "".join(said) + err
    assert "interrupted; the fabric is down" in err and "Traceback" not in err
    nothing_left(run_dir)
