"""scripts/compare_p4test.py on a tiny corpus the tests write: which programs are
compared, the agreement figure, the disagreements in both directions, the cache of
p4test's verdicts and the one-line usage errors. A stand-in p4test (a shell script)
makes the disagreements certain; the real p4test, where installed, must agree with bm
on the same corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "compare_p4test.py"

GOOD = """#include <core.p4>
control C(inout bit<8> x);
package P(C c);
control Ctl(inout bit<8> x) { apply { x = x + 1; } }
P(Ctl()) main;
"""
# A type error both front ends report: a bool assigned to bit<8>.
BAD = GOOD.replace("x = x + 1;", "x = true;")
# Only core.p4: p4test checks a program without main (and warns); so does bm.
NO_MAIN = "#include <core.p4>\ncontrol Ctl(inout bit<8> x) { apply { } }\n"
# An architecture bm does not have: left out of the comparison.
PSA = "#include <core.p4>\n#include <psa.p4>\n"


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in (("good", GOOD), ("bad", BAD), ("no_main", NO_MAIN), ("psa", PSA)):
        (folder / f"{name}.p4").write_text(text)
    return folder


def stand_in(tmp_path: Path, verdict: int) -> Path:
    """A p4test that gives every program exit status ``verdict`` and logs each run."""
    script = tmp_path / f"p4test_{verdict}"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "stand-in p4test"; exit 0; fi\n'
        f'echo "$@" >> {tmp_path}/runs.log\n'
        f'[ {verdict} = 0 ] || echo "prog.p4(1): [--Werror=type-error] error: no" >&2\n'
        f"exit {verdict}\n")
    script.chmod(0o755)
    return script


def compare(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--jobs", "1", *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_disagreements_are_listed_with_the_first_error(tmp_path: Path) -> None:
    folder = corpus(tmp_path)
    accepts_all = compare(folder, "--p4test", stand_in(tmp_path, 0), "--no-cache")
    assert accepts_all.returncode == 1, accepts_all.stderr
    out = accepts_all.stdout
    assert "bm rejects, p4test accepts (1):" in out
    assert "corpus/bad.p4: bm: " in out and "type mismatch" in out
    assert "agreement: 2/3 programs (66.7 %)" in out  # psa.p4 is not compared
    rejects_all = compare(folder, "--p4test", stand_in(tmp_path, 1), "--no-cache")
    assert rejects_all.returncode == 1
    assert "bm accepts, p4test rejects (2):" in rejects_all.stdout
    assert "corpus/good.p4: p4test: prog.p4(1): [--Werror=type-error] error: no" in \
        rejects_all.stdout
    assert "agreement: 1/3 programs (33.3 %)" in rejects_all.stdout


def test_p4test_verdicts_are_cached(tmp_path: Path) -> None:
    folder, cache = corpus(tmp_path), tmp_path / "cache.json"
    p4test = stand_in(tmp_path, 0)
    for _ in range(2):
        assert compare(folder, "--p4test", p4test, "--cache", cache).returncode == 1
    assert len((tmp_path / "runs.log").read_text().splitlines()) == 3  # the first run only


@pytest.mark.parametrize("args, message", [
    (["--p4test", "/nonexistent/p4test"], "--p4test /nonexistent/p4test: no such file"),
    (["--jobs", "0"], "--jobs must be at least 1"),
])
def test_bad_options_give_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = compare(corpus(tmp_path), *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    done = compare(tmp_path / "nowhere", "--p4test", stand_in(tmp_path, 0))
    assert done.returncode == 2
    assert done.stderr.strip() == f"compare_p4test: {tmp_path / 'nowhere'}: no such directory"


def test_help_says_what_to_run() -> None:
    done = compare("--help")
    assert done.returncode == 0 and "testdata/p4_16_samples" in done.stdout


def real_p4test() -> Path:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from compare_p4test import UsageError, find_p4test
    finally:
        sys.path.pop(0)
    try:
        return find_p4test(None)
    except UsageError:
        pytest.skip("p4test (p4c) is not installed: not on PATH, $P4TOOLS or /opt/p4tools/bin")


def test_real_p4test_agrees_with_bm_on_the_corpus(tmp_path: Path) -> None:
    p4test = real_p4test()
    done = compare(corpus(tmp_path), "--p4test", p4test, "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agreement: 3/3 programs (100.0 %)" in done.stdout
