"""The PTF smoke suite (ptf_tests/smoke/) through ``scripts/run_ptf.sh --target bm``:
our switch process, P4Runtime, the nn platform, no root. Also the script's --help and
BMv2 'skipped' path, and the switch benchmark's --quick smoke run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_PTF = ROOT / "scripts" / "run_ptf.sh"
BENCH = ROOT / "scripts" / "bench_switch.py"
SMOKE_TESTS = {"L2ForwardTest", "L3RouteTest", "PacketOutTest", "PacketInTest",
               "DigestTest", "CounterTest", "MulticastTest", "CloneTest",
               "DefaultActionTest", "TableReadTest", "WriteErrorsTest", "RegisterReadTest"}

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_run_ptf_smoke_suite_on_bm() -> None:
    proc = subprocess.run(["bash", str(RUN_PTF), "--target", "bm"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    results = dict(re.findall(r"^smoke\.(\w+) \.\.\. (\w+)", output, re.MULTILINE))
    assert set(results) == SMOKE_TESTS, output
    assert set(results.values()) == {"ok"}, output  # none skipped, none failed
    assert re.search(rf"^Ran {len(SMOKE_TESTS)} tests? in ", output, re.MULTILINE), output
    assert "skipped" not in output.lower(), output
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
                           "smoke.L2ForwardTest", "smoke.PacketOutTest"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert re.search(r"^smoke\.L2ForwardTest \.\.\. FAIL", output, re.MULTILINE), output
    assert re.search(r"^smoke\.PacketOutTest \.\.\. ok", output, re.MULTILINE), output
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


@pytest.mark.skipif(shutil.which("simple_switch_grpc") is not None
                    and shutil.which("p4c-bm2-ss") is not None,
                    reason="BMv2 is installed: the skip path cannot be checked")
def test_run_ptf_bmv2_without_bmv2_is_skipped() -> None:
    env = _env()
    proc = subprocess.run(["bash", str(RUN_PTF), "--target", "bmv2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "skipped: BMv2 not installed" in proc.stdout


def test_bench_switch_quick() -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--quick"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
