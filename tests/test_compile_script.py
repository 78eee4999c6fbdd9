"""scripts/compile.sh: every top level checked by our front end; each real compiler
run where it is on PATH, reported as skipped where it is not, and a failing one makes
the script fail. Compilers are faked (small shell scripts on a private PATH), so the
tests do not depend on what this machine has installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "compile.sh"
COMPILERS = ("p4c-bm2-ss", "p4c-bm2-pna", "p4c-dpdk", "bf-p4c", "p4test")


def _top_levels() -> list[str]:
    return sorted(str(p.relative_to(REPO)) for pattern in
                  ("p4src/*.p4", "p4src/pna/*.p4", "p4src/tna/*.p4")
                  for p in REPO.glob(pattern))


def _bin_dir(tmp_path: Path, fakes: dict[str, str]) -> Path:
    """A PATH with what the script needs from outside bash, and the fake compilers."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("cat", "dirname", "mkdir", "sed"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    for name, body in fakes.items():
        fake = bin_dir / name
        fake.write_text(f"#!/bin/sh\n{body}\n")
        fake.chmod(0o755)
    return bin_dir


def _run(tmp_path: Path, fakes: dict[str, str], *args: str,
         extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TNA_P4INCLUDE", "SDE_INSTALL")}
    env.update(extra_env or {})
    env["PATH"] = str(_bin_dir(tmp_path, fakes))
    env["P4TOOLS"] = "none"  # only the fakes, not a toolchain installed on this machine
    env["PYTHON"] = sys.executable
    return subprocess.run(["/bin/bash", str(SCRIPT), "--out", str(tmp_path / "build"), *args],
                          env=env, capture_output=True, text=True, check=False)


def test_without_compilers_everything_is_checked_and_every_compiler_skipped(
        tmp_path: Path) -> None:
    out = _run(tmp_path, {})
    assert out.returncode == 0, out.stdout + out.stderr
    tops = _top_levels()
    assert {"p4src/srv6_switch.p4", "p4src/tna/srv6_switch.p4"} <= set(tops)
    for top in tops:
        assert f"ok: bm front end {top}\n" in out.stdout
    for tool in COMPILERS:
        assert f"skipped: {tool} not installed\n" in out.stdout
    assert out.stdout.endswith(f"compile.sh: {len(tops)} top levels checked\n")


def test_present_compilers_run_and_a_failing_one_fails_the_script(tmp_path: Path) -> None:
    # p4c-bm2-ss writes its outputs; bf-p4c fails with a message; p4test is not reached
    # (bf-p4c is preferred for TNA); the PNA compilers stay missing.
    fakes = {
        "p4c-bm2-ss": 'for a; do case "$prev" in -o|--p4runtime-files) : > "$a";; esac; '
                      'prev="$a"; done',
        "bf-p4c": 'echo "error: not enough stages" >&2; exit 1',
        "p4test": "exit 1",
    }
    out = _run(tmp_path, fakes)
    assert out.returncode == 1, out.stdout
    assert "ok: p4c-bm2-ss p4src/srv6_switch.p4\n" in out.stdout
    assert (tmp_path / "build" / "v1model" / "srv6_switch.json").exists()
    assert (tmp_path / "build" / "v1model" / "srv6_switch.p4info.txt").exists()
    assert "FAILED: bf-p4c p4src/tna/srv6_switch.p4\n    error: not enough stages\n" \
        in out.stdout
    assert "p4test" not in out.stdout
    assert "skipped: p4c-dpdk not installed" in out.stdout
    assert "compile.sh: 1 of the steps above failed" in out.stdout


def test_p4test_checks_tna_with_intels_tna_p4(tmp_path: Path) -> None:
    # Without bf-p4c, p4c's front end checks the TNA program against Intel's tna.p4.
    fakes = {"p4test": 'echo "$@" >> "$P4TEST_ARGS"'}
    args_file = tmp_path / "p4test.args"
    out = _run(tmp_path, fakes, extra_env={"P4TEST_ARGS": str(args_file)})
    assert "skipped: p4test without Intel's tna.p4 (set TNA_P4INCLUDE" in out.stdout
    assert not args_file.exists()
    inc = tmp_path / "intel"
    inc.mkdir()
    (inc / "tna.p4").write_text("// stands in for Intel's file\n")
    (tmp_path / "again").mkdir()
    out = _run(tmp_path / "again", fakes,
               extra_env={"P4TEST_ARGS": str(args_file), "TNA_P4INCLUDE": str(inc)})
    assert out.returncode == 0, out.stdout
    assert "skipped: bf-p4c not installed" in out.stdout
    assert f"ok: p4test (tna.p4 from {inc}) p4src/tna/srv6_switch.p4" in out.stdout
    assert args_file.read_text().split() == ["-D__TARGET_TOFINO__=1", "-I", str(inc),
                                             "p4src/tna/srv6_switch.p4"]


@pytest.mark.parametrize("args", [["--help"], ["-h"]])
def test_help(args: list[str], tmp_path: Path) -> None:
    out = _run(tmp_path, {}, *args)
    assert out.returncode == 0
    assert out.stdout.startswith("usage: scripts/compile.sh")
    assert "skipped: TOOL not installed" in out.stdout


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    out = _run(tmp_path, {}, "--frobnicate")
    assert out.returncode == 2
    assert "unknown argument '--frobnicate'" in out.stderr
