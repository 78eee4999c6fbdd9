"""Warnings of the front end: what p4c accepts with a warning, bm accepts with the same
warning, as ``file:line:col: warning: message`` in ``CheckedProgram.warnings`` and on
stderr (the ``check`` command prints them before its verdict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from behavioral_model.program import load_program

STF_DIR = Path(__file__).parent / "stf"
TRUNCATION = STF_DIR / "a_expr_literal_truncation.p4"


def test_constants_that_do_not_fit_are_warned_about_once_each() -> None:
    warnings = load_program(TRUNCATION).checked.warnings
    got = [(w.location.line, w.location.col, w.message) for w in warnings
           if w.location is not None]
    assert got == [
        (34, 13, "427: value does not fit in 8 bits"),           # select label 0x1AB
        (53, 13, "511: value does not fit in 8 bits"),           # entry key 0x1FF
        (53, 25, "494: value does not fit in 8 bits"),           # action data 0x1EE
        (58, 31, "300: value does not fit in 8 bits"),           # a + 300
        (60, 23, "300: value does not fit in 8 bits"),           # 8w300
        (61, 31, "4660: value does not fit in 8 bits"),          # (bit<8>) 0x1234
        (62, 21, "-1: negative value with unsigned type"),       # bit<8> = -1
        (63, 20, "200: signed value does not fit in 8 bits"),    # int<8> = 200
    ]
    assert all(str(w).startswith(f"{TRUNCATION}:") for w in warnings)
    assert str(warnings[0]) == f"{TRUNCATION}:34:13: warning: 427: value does not fit in 8 bits"


def test_a_program_whose_constants_fit_has_no_warnings() -> None:
    assert load_program(STF_DIR / "a_expr_wrap.p4").checked.warnings == []


def test_check_prints_the_warnings_on_stderr_and_succeeds() -> None:
    done = subprocess.run([sys.executable, "-m", "behavioral_model", "check", str(TRUNCATION)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{TRUNCATION}:58:31: warning: 300: value does not fit in 8 bits" in \
        done.stderr.splitlines()
    assert done.stdout.startswith(f"{TRUNCATION}: ok")
