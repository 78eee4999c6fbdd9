"""The feature x architecture table of docs/architectures.md says what the programs do:
every P4 name it quotes in a column is in that column's sources, and what it says TNA
lacks is not in the TNA switch's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
P4SRC = REPO / "p4src"
P4INCLUDE = REPO / "behavioral_model" / "frontend" / "p4include"

# The sources of each column: the top levels, the shared controls they include and,
# for TNA, our tna.p4/tofino.p4 (RegisterAction is declared there).
SOURCES = {
    "v1model": [P4SRC / "srv6_switch.p4", P4SRC / "mrc_nic.p4", *P4SRC.glob("include/**/*.p4")],
    "PNA": [P4SRC / "pna" / "mrc_nic.p4", *P4SRC.glob("include/**/*.p4")],
    "TNA": [P4SRC / "tna" / "srv6_switch.p4", *P4SRC.glob("include/switch/*.p4"),
            P4INCLUDE / "tna.p4", P4INCLUDE / "tofino.p4"],
}
P4_NAME = re.compile(r"^[A-Za-z_][\w.]*(\(\))?$")


def _table() -> tuple[list[str], list[list[str]]]:
    text = (REPO / "docs" / "architectures.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| feature |")
            or (line.startswith("| ") and not line.startswith("| ---"))]
    start = next(i for i, r in enumerate(rows) if r.startswith("| feature |"))
    cells = [[c.strip() for c in r.strip("|").split(" | ")] for r in rows[start:]]
    header, body = cells[0], cells[1:]
    body = body[:next((i for i, r in enumerate(body) if len(r) != len(header)), len(body))]
    return header, body


def _code(path: Path) -> str:
    """The P4 text without comments."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


@pytest.mark.parametrize("arch", sorted(SOURCES))
def test_names_in_the_table_are_in_the_programs(arch: str) -> None:
    header, body = _table()
    column = next(i for i, h in enumerate(header) if h.startswith(arch))
    code = "\n".join(_code(p) for p in SOURCES[arch])
    checked = 0
    for row in body:
        for token in re.findall(r"`([^`]+)`", row[column]):
            if P4_NAME.match(token):
                checked += 1
                assert token.removesuffix("()") in code, f"{row[0]}: {arch}: {token}"
    assert checked >= 5


def test_what_tna_lacks_is_not_in_the_tna_switch() -> None:
    code = _code(P4SRC / "tna" / "srv6_switch.p4")
    for absent in ("truncate(", "data_queue_depth", "random(", "mark_to_drop",
                   "standard_metadata"):
        assert absent not in code, absent
    for present in ("drop_ctl = 1", "Mirror(", ".qid =", "switch_bridged_t",
                    "RECIRC", "Random<bit<19>>", "enq_qdepth"):
        assert present in code, present


def test_every_row_covers_every_architecture() -> None:
    header, body = _table()
    assert header[:1] == ["feature"] and [h.split()[0] for h in header[1:]] == \
        ["v1model", "PNA", "TNA"]
    assert len(body) >= 10
    for row in body:
        assert all(cell for cell in row), row
