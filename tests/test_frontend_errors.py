"""Bad P4 programs are rejected with a P4Error that points where p4c points.

Every file in ``tests/p4/bad/`` is a complete v1model program that is wrong in exactly
one way, and its first line says what `load_program` must report:

    // expect: 25:18: fragment   the error's line and column, and a piece of its message
    // expect: 26: fragment      line only: for declarations (p4c's caret is on the name,
                                 ours on the first token), whole statements and directives
    // expect: -: fragment       no location (a program-wide error such as a missing main)

The second line says in words what is wrong. Lines and columns are those p4c reports
(its caret for type errors, the offending token for syntax errors, the directive for
preprocessor errors); where our front end disagrees the case is marked xfail below with
what p4c says, so the list doubles as the front end's bug list.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.program import load_program

BAD_DIR = Path(__file__).parent / "p4" / "bad"
BAD_PROGRAMS = sorted(BAD_DIR.glob("*.p4"))

EXPECT = re.compile(r"// expect: (?:(?P<line>\d+)(?::(?P<col>\d+))?|-): (?P<fragment>\S.*)")

# The front end accepts these programs, rejects them only in the pipeline compiler, or
# reports them on the wrong line. Both tests below are expected to fail for them.
WRONG: dict[str, str] = {
    "error_duplicate_member":
        "reported at the 'error' keyword (line 13); p4c: 'Timeout: Duplicates declaration "
        "Timeout' at the second Timeout (16:5)",
}

# Right line, wrong column: only the column test is expected to fail.
WRONG_COLUMN: dict[str, str] = {
    "parser_redefines_accept":
        "reported at the 'state' keyword; p4c points at the state's name (19:11)",
    "parser_duplicate_state":
        "reported at the 'state' keyword; p4c points at the second state's name (19:11)",
    "unknown_field":
        "MemberExpr.loc is the start of the base ('hdr'); p4c points at the member name: "
        "'Field c is not a member of header h_t'",
    "unknown_method":
        "MemberExpr.loc is the start of the base ('hdr'); p4c points at the member name: "
        "'Field frobnicate is not a member of header h_t'",
    "isvalid_on_struct":
        "MemberExpr.loc is the start of the base ('meta'); p4c points at the member name: "
        "'Field isValid is not a member of structure struct meta_t'",
    "transition_unknown_state":
        "points at 'transition'; p4c points at the state name: 'nowhere: declaration not "
        "found'",
    "unknown_match_kind":
        "points at the key expression; p4c points at the match kind: 'fuzzy: declaration "
        "not found'",
}


@dataclass(frozen=True)
class Expectation:
    line: int | None
    col: int | None
    fragment: str


def expectation(path: Path) -> Expectation:
    first = path.read_text().splitlines()[0]
    m = EXPECT.fullmatch(first)
    assert m, f"{path.name}: first line must be '// expect: LINE[:COL]: fragment', got {first!r}"
    line, col = m.group("line"), m.group("col")
    return Expectation(int(line) if line else None, int(col) if col else None,
                       m.group("fragment"))


@functools.cache
def outcome(path: Path) -> BaseException | None:
    """What load_program does with `path`: the exception it raised, or None."""
    try:
        load_program(path)
    except Exception as err:  # noqa: BLE001 — any other exception is the bug we look for
        return err
    return None


def rejection(path: Path) -> P4Error:
    err = outcome(path)
    if err is None:
        pytest.fail(f"{path.name}: the program was accepted")
    assert isinstance(err, P4Error), (
        f"{path.name}: {type(err).__name__} escaped instead of a P4Error: {err}")
    return err


def params(known: dict[str, str], with_column_only: bool = False) -> list:
    out = []
    for path in BAD_PROGRAMS:
        if with_column_only and expectation(path).col is None:
            continue
        reason = known.get(path.stem) or WRONG.get(path.stem)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", params({}))
def test_rejected_on_the_right_line(path: Path) -> None:
    want = expectation(path)
    err = rejection(path)
    assert want.fragment in err.message, str(err)
    if want.line is None:
        assert err.location is None, str(err)
        assert str(err) == err.message
        return
    loc = err.location
    assert loc is not None, f"{path.name}: no location: {err}"
    assert Path(loc.file).resolve() == path.resolve(), str(err)
    assert loc.line == want.line, f"{path.name}: want line {want.line}, got {err}"
    assert str(err).startswith(f"{loc.file}:{loc.line}:{loc.col}: "), str(err)


@pytest.mark.parametrize("path", params(WRONG_COLUMN, with_column_only=True))
def test_rejected_at_the_right_column(path: Path) -> None:
    want = expectation(path)
    err = rejection(path)
    assert err.location is not None, str(err)
    assert (err.location.line, err.location.col) == (want.line, want.col), (
        f"{path.name}: want {want.line}:{want.col}, got {err}")


def test_the_suite_is_complete_and_consistent() -> None:
    assert len(BAD_PROGRAMS) >= 40
    names = {p.stem for p in BAD_PROGRAMS}
    assert set(WRONG) <= names and set(WRONG_COLUMN) <= names
    assert not set(WRONG) & set(WRONG_COLUMN)
    for name in WRONG_COLUMN:
        assert expectation(BAD_DIR / f"{name}.p4").col is not None, name
    for path in BAD_PROGRAMS:
        want = expectation(path)
        lines = path.read_text().splitlines()
        assert lines[1].startswith("// ") and len(lines[1]) > 10, f"{path.name}: say why"
        if want.line is not None:
            target = lines[want.line - 1]
            assert target.strip() and not target.lstrip().startswith("//"), (
                f"{path.name}: line {want.line} is blank or a comment")
            if want.col is not None:
                assert want.col <= len(target) and not target[want.col - 1].isspace(), (
                    f"{path.name}: column {want.col} is not on a token")
