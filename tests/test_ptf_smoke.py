"""The PTF smoke suite (ptf_tests/smoke/) through ``scripts/run_ptf.sh --target bm``:
our switch process, P4Runtime, the nn platform, no root. Also the script's --help and
BMv2 'skipped' path, and the switch benchmark's --quick smoke run. Test outcomes are
read from the run's results file (``--results-dir``), not from PTF's console output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from no_toolchain import env_without_toolchain
from ptf_suites import read_outcomes, run_all

ROOT = Path(__file__).resolve().parent.parent
# A guard against hangs only: a loaded machine makes these runs many times slower.
HANG_TIMEOUT = 600
RUN_PTF = ROOT / "scripts" / "run_ptf.sh"
BENCH = ROOT / "scripts" / "bench_switch.py"
SMOKE_TESTS = {"L2ForwardTest", "L3RouteTest", "PacketOutTest", "PacketInTest",
               "DigestTest", "CounterTest", "MulticastTest", "CloneTest",
               "DefaultActionTest", "TableReadTest", "WriteErrorsTest", "RegisterReadTest"}

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with the venv's tools first."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["P4TOOLS"] = "none"  # PATH alone: the stand-ins, or no BMv2 at all
    return env


def test_run_ptf_smoke_suite_on_bm() -> None:
    # The suite runs in the session's shared `run_ptf.sh --all` (tests/ptf_suites.py).
    run = run_all("bm")
    output = run.section("smoke")
    assert run.verdict("smoke") == "passed", run.output[-3000:]
    results = {name.removeprefix("smoke."): verdict
               for name, verdict in run.results("smoke").items()}
    assert set(results) == SMOKE_TESTS, output
    assert set(results.values()) == {"ok"}, output  # none skipped, none failed
    assert "all tests passed on bm" in output


def test_run_ptf_fails_when_a_test_fails(tmp_path: Path) -> None:
    """A program whose forwarding action does not forward: the suite must fail, and the
    script must say so with a non-zero status (and still stop the switch)."""
    broken = tmp_path / "broken.p4"
    source = (ROOT / "tests" / "p4" / "ptf_smoke.p4").read_text()
    broken.write_text(source.replace("std.egress_spec = port;\n    }\n    action set_mcast",
                                     "std.egress_spec = port + 1;\n    }\n    action set_mcast"))
    assert broken.read_text() != source
    proc = subprocess.run(["bash", str(RUN_PTF), "--target", "bm", "--p4", str(broken),
                           "--results-dir", str(tmp_path / "results"),
                           "smoke.L2ForwardTest", "smoke.PacketOutTest"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True,
                          timeout=HANG_TIMEOUT)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    results = read_outcomes(tmp_path / "results" / "results.jsonl")
    assert results == {"smoke.L2ForwardTest": "FAIL", "smoke.PacketOutTest": "ok"}, output
    assert "FAILED on bm" in output


def test_run_ptf_help_and_usage_errors() -> None:
    proc = subprocess.run(["bash", str(RUN_PTF), "--help"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0
    for word in ("--target bm", "--target bmv2", "--platform nn", "--platform eth",
                 "--p4", "--test-dir", "skipped: BMv2 not installed"):
        assert word in proc.stdout
    bad = subprocess.run(["bash", str(RUN_PTF), "--target", "tofino"], capture_output=True,
                         text=True, timeout=30)
    assert bad.returncode == 2 and "bm or bmv2" in bad.stderr


def test_run_ptf_bmv2_without_bmv2_is_skipped() -> None:
    # Checked on every machine: the toolchain, if installed, is hidden from this run.
    env = _env(env_without_toolchain())
    proc = subprocess.run(["bash", str(RUN_PTF), "--target", "bmv2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "skipped: BMv2 not installed" in proc.stdout


P4C_STAND_IN = """#!{python}
# Stands in for p4c-bm2-ss: P4Info from bm, and the P4 source bundle where p4c would
# write its JSON (so that our switch, standing in for simple_switch_grpc, accepts it).
import subprocess, sys
from pathlib import Path
args = sys.argv[1:]
includes = [args[i + 1] for i, a in enumerate(args) if a == "-I"]
p4info = args[args.index("--p4runtime-files") + 1]
out = args[args.index("-o") + 1]
prog = args[-1]
assert args[:2] == ["--p4v", "16"], args
inc = [x for d in includes for x in ("-I", d)]
subprocess.run([sys.executable, "-m", "behavioral_model", "p4info", prog, *inc, "-o",
                p4info], check=True)
from behavioral_model.p4runtime.device_config import make_bundle
Path(out).write_bytes(make_bundle(prog, includes))
"""

SWITCH_STAND_IN = """#!{python}
# Stands in for simple_switch_grpc: our switch takes BMv2's command line as it is.
import os, sys
os.execv(sys.executable, [sys.executable, "-m", "behavioral_model", "switch",
                          *sys.argv[1:]])
"""


def test_run_ptf_bmv2_command_lines_with_stand_ins(tmp_path: Path) -> None:
    """The --target bmv2 path, with stand-ins for p4c-bm2-ss and simple_switch_grpc
    that check p4c's options and hand BMv2's exact command line to our switch (a
    drop-in must accept it). Model-only checks are skipped there."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("p4c-bm2-ss", P4C_STAND_IN), ("simple_switch_grpc", SWITCH_STAND_IN)):
        path = bin_dir / name
        path.write_text(text.format(python=sys.executable))
        path.chmod(0o755)
    env = _env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", str(RUN_PTF), "--target", "bmv2",
                           "--results-dir", str(tmp_path / "results"), "smoke.PacketInTest",
                           "smoke.RegisterReadTest"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=HANG_TIMEOUT)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    results = read_outcomes(tmp_path / "results" / "results.jsonl")
    assert set(results) == {"smoke.PacketInTest", "smoke.RegisterReadTest"}, output
    assert results["smoke.PacketInTest"] == "ok", output
    assert results["smoke.RegisterReadTest"].startswith("skipped 'model-only"), output


@pytest.mark.parametrize("client", ["sp", "pynng"])
def test_bench_switch_quick(client: str) -> None:
    """The benchmark runs with either traffic generator and prints its figures; every
    frame comes back, as the router should make it (the script checks each one)."""
    args = ["--quick"] if client == "sp" else ["--quick", "--only", "packets"]
    proc = subprocess.run([sys.executable, str(BENCH), *args, "--client", client],
                          cwd=ROOT, env=_env(), capture_output=True, text=True,
                          timeout=HANG_TIMEOUT)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    number = r"[0-9][0-9,]*(?:\.[0-9]+)?"
    if client == "sp":
        assert re.search(rf"INSERT, requests serialized beforehand .* = {number} entries/s",
                         output), output
    assert re.search(rf"client .*: sent 3,000, received 3,000, lost 0 in {number} s = "
                     rf"{number} pps", output), output
    assert "WRONG" not in output and "FAILED" not in output, output
