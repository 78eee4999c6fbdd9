"""The per-packet fast paths of issue 17: generated code indexes register and counter
cells and calls a table's bound lookup directly, so those objects must only ever change
in place; register cells are typed arrays; parsers with a header stack loop are
straight-line code."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.program import load_program
from behavioral_model.runtime.externs import CounterArray, CounterKind, RegisterArray
from behavioral_model.runtime.matches import Exact, KeyField, Lpm, MatchKind
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("width", "typecode"), [(1, "B"), (8, "B"), (9, "H"), (19, "I"),
                                                  (48, "Q"), (64, "Q")])
def test_register_cells_are_the_narrowest_typed_array(width: int, typecode: str) -> None:
    reg = RegisterArray("r", 4, width)
    assert reg.values.typecode == typecode  # type: ignore[union-attr]
    reg.write(1, (1 << (width + 3)) - 1)  # wider than the register: truncated
    assert reg.read(1) == (1 << width) - 1
    assert reg.read(4) == 0 and reg.read(-1) == 0  # out of range reads 0


def test_wide_registers_keep_python_ints() -> None:
    reg = RegisterArray("r", 2, 128)
    reg.write(0, 1 << 127)
    assert isinstance(reg.values, list) and reg.read(0) == 1 << 127


def test_reset_changes_cells_in_place() -> None:
    reg = RegisterArray("r", 3, 16)
    cells = reg.values
    reg.write(2, 7)
    reg.reset()
    assert reg.values is cells and list(cells) == [0, 0, 0]
    ctr = CounterArray("c", 2, CounterKind.PACKETS)
    packets, nbytes = ctr.packet_counts, ctr.byte_counts
    ctr.count(1, 100)
    ctr.reset()
    assert ctr.packet_counts is packets and ctr.byte_counts is nbytes
    assert ctr.read(1) == (0, 0)


def test_lookup_fn_follows_the_entries_of_exact_and_lpm_tables() -> None:
    exact = Table("t", [KeyField("k", MatchKind.EXACT, 16)], ["fwd"], ActionCall("fwd", (0,)))
    fn = exact.lookup_fn
    assert fn((5,)) is None
    entry = exact.insert(TableEntry((Exact(5),), ActionCall("fwd", (1,))))
    assert exact.lookup_fn is fn and fn((5,)) is entry
    lpm = Table("l", [KeyField("a", MatchKind.LPM, 32)], ["fwd"], ActionCall("fwd", (0,)))
    fn = lpm.lookup_fn
    assert fn((0x0A000001,)) is None  # the miss is cached...
    entry = lpm.insert(TableEntry((Lpm(0x0A000000, 8),), ActionCall("fwd", (2,))))
    assert fn((0x0A000001,)) is entry  # ...and forgotten when the entries change
    lpm.delete(entry.matches)
    assert fn((0x0A000001,)) is None


def test_a_parser_with_a_stack_loop_is_straight_line_code() -> None:
    source = load_program(ROOT / "p4src" / "srv6_switch.p4").compiled.source
    parser = source[source.index("def block_parser"):source.index("block_verify_checksum")]
    # the SRH segment list loops on its own state; no state is dispatched by elif
    assert parser.count("while ") == 1 and "elif _sub" not in parser
