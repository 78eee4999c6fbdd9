"""Tables: every match kind, priorities, LPM, wildcards, cache invalidation, errors."""

from __future__ import annotations

import pytest

from behavioral_model.runtime.errors import (
    ConstViolationError,
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
    RuntimeStateError,
    TableFullError,
    UnknownNameError,
)
from behavioral_model.runtime.matches import (
    Exact,
    KeyField,
    Lpm,
    MatchKind,
    Optional_,
    Range,
    Ternary,
)
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

DROP = ActionCall("drop")


def fwd(port: int) -> ActionCall:
    return ActionCall("fwd", (port,))


def make_table(*keys: KeyField, size: int = 16, **kwargs: object) -> Table:
    return Table("MyIngress.t", list(keys), ["fwd", "drop"], DROP, size=size, **kwargs)


def port_of(table: Table, *values: int) -> int | None:
    entry = table.lookup(tuple(values))
    return None if entry is None else entry.action.args[0]


# -- exact -----------------------------------------------------------------------------


def test_exact_hit_and_miss() -> None:
    t = make_table(KeyField("dst", MatchKind.EXACT, 16), KeyField("vrf", MatchKind.EXACT, 8))
    t.insert(TableEntry((Exact(0x0800), Exact(1)), fwd(3)))
    assert port_of(t, 0x0800, 1) == 3
    assert t.lookup((0x0800, 2)) is None
    assert t.default_action == DROP


def test_exact_field_is_mandatory() -> None:
    t = make_table(KeyField("dst", MatchKind.EXACT, 16))
    with pytest.raises(InvalidEntryError, match="cannot be left out"):
        t.insert(TableEntry((None,), fwd(1)))


def test_exact_value_too_wide() -> None:
    t = make_table(KeyField("dst", MatchKind.EXACT, 8))
    with pytest.raises(InvalidEntryError, match="does not fit in 8 bits"):
        t.insert(TableEntry((Exact(0x100),), fwd(1)))


# -- lpm -------------------------------------------------------------------------------


def test_lpm_longest_prefix_wins() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    t.insert(TableEntry((Lpm(0x0A000000, 8),), fwd(1)))
    t.insert(TableEntry((Lpm(0x0A010000, 16),), fwd(2)))
    t.insert(TableEntry((Lpm(0x0A010200, 24),), fwd(3)))
    assert port_of(t, 0x0A010203) == 3
    assert port_of(t, 0x0A01FF01) == 2
    assert port_of(t, 0x0AFF0000) == 1
    assert t.lookup((0x0B000000,)) is None


def test_lpm_default_route_by_omission_and_prefix_zero_are_the_same_entry() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    t.insert(TableEntry((None,), fwd(9)))
    assert port_of(t, 0x01020304) == 9
    with pytest.raises(DuplicateEntryError):
        t.insert(TableEntry((Lpm(0, 0),), fwd(8)))
    assert t.find((Lpm(0, 0),)) is t.entries()[0]


def test_lpm_full_length_128_bits() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 128))
    addr = 0xFC00_0000_0000_0000_0000_0000_0000_0001
    t.insert(TableEntry((Lpm(addr, 128),), fwd(1)))
    t.insert(TableEntry((Lpm(0xFC00 << 112, 16),), fwd(2)))
    assert port_of(t, addr) == 1
    assert port_of(t, addr + 1) == 2


def test_mixed_lpm_and_exact() -> None:
    t = make_table(KeyField("vrf", MatchKind.EXACT, 8), KeyField("dst", MatchKind.LPM, 32))
    t.insert(TableEntry((Exact(1), Lpm(0x0A000000, 8)), fwd(1)))
    t.insert(TableEntry((Exact(2), Lpm(0x0A000000, 16)), fwd(2)))
    t.insert(TableEntry((Exact(2), Lpm(0x0A000000, 8)), fwd(3)))
    assert port_of(t, 1, 0x0A000001) == 1
    assert port_of(t, 2, 0x0A000001) == 2
    assert port_of(t, 2, 0x0A110001) == 3
    assert t.lookup((3, 0x0A000001)) is None


def test_lpm_value_bits_beyond_prefix_rejected() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    with pytest.raises(InvalidEntryError, match="beyond the /8 prefix"):
        t.insert(TableEntry((Lpm(0x0A000001, 8),), fwd(1)))


def test_lpm_prefix_longer_than_width_rejected() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    with pytest.raises(InvalidEntryError, match="prefix length 33"):
        t.insert(TableEntry((Lpm(0, 33),), fwd(1)))


def test_lpm_table_rejects_priority() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    with pytest.raises(InvalidEntryError, match="priority must be 0"):
        t.insert(TableEntry((Lpm(0, 8),), fwd(1), priority=5))


# -- ternary / range / optional ---------------------------------------------------------


def test_ternary_highest_priority_wins() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 16))
    t.insert(TableEntry((Ternary(0x2500, 0xFF00),), fwd(1), priority=100))
    t.insert(TableEntry((Ternary(0x2525, 0xFFFF),), fwd(2), priority=110))
    t.insert(TableEntry((None,), fwd(3), priority=1))
    assert port_of(t, 0x2525) == 2
    assert port_of(t, 0x2501) == 1
    assert port_of(t, 0x9999) == 3


def test_ternary_priority_order_independent_of_insert_order() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Ternary(0, 0x01),), fwd(1), priority=1))
    t.insert(TableEntry((Ternary(0, 0x03),), fwd(2), priority=3))
    t.insert(TableEntry((Ternary(0, 0x02),), fwd(3), priority=2))
    assert port_of(t, 0x00) == 2
    assert port_of(t, 0x01) == 3  # bit1 clear -> priority 2 entry
    assert port_of(t, 0x02) == 1


def test_equal_priorities_first_inserted_wins() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Ternary(0, 0x01),), fwd(1), priority=5))
    t.insert(TableEntry((Ternary(0, 0x02),), fwd(2), priority=5))
    assert port_of(t, 0) == 1


def test_ternary_value_outside_mask_rejected() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    with pytest.raises(InvalidEntryError, match="outside mask"):
        t.insert(TableEntry((Ternary(0x11, 0xF0),), fwd(1), priority=1))


def test_ternary_mask_wider_than_field_rejected() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    with pytest.raises(InvalidEntryError, match="mask"):
        t.insert(TableEntry((Ternary(0, 0x1FF),), fwd(1), priority=1))


def test_priority_required_for_ternary_tables() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    with pytest.raises(InvalidEntryError, match="priority >= 1"):
        t.insert(TableEntry((Ternary(1, 0xFF),), fwd(1)))


def test_range_match() -> None:
    t = make_table(KeyField("port", MatchKind.RANGE, 16), KeyField("p", MatchKind.EXACT, 8))
    t.insert(TableEntry((Range(1000, 2000), Exact(6)), fwd(1), priority=10))
    t.insert(TableEntry((Range(1500, 1500), Exact(6)), fwd(2), priority=20))
    assert port_of(t, 1000, 6) == 1
    assert port_of(t, 2000, 6) == 1
    assert port_of(t, 1500, 6) == 2
    assert t.lookup((999, 6)) is None
    assert t.lookup((2001, 6)) is None
    assert t.lookup((1200, 17)) is None


def test_range_low_above_high_rejected() -> None:
    t = make_table(KeyField("port", MatchKind.RANGE, 16))
    with pytest.raises(InvalidEntryError, match="low 5 > high 4"):
        t.insert(TableEntry((Range(5, 4),), fwd(1), priority=1))


def test_full_range_is_a_wildcard() -> None:
    t = make_table(KeyField("port", MatchKind.RANGE, 16))
    t.insert(TableEntry((Range(0, 0xFFFF),), fwd(1), priority=1))
    assert t.entries()[0].matches == (None,)
    assert t.find((None,), 1) is not None


def test_optional_match_and_wildcard() -> None:
    t = make_table(KeyField("a", MatchKind.OPTIONAL, 8), KeyField("b", MatchKind.OPTIONAL, 8))
    t.insert(TableEntry((Optional_(1), Optional_(None)), fwd(1), priority=1))
    t.insert(TableEntry((Optional_(1), Optional_(2)), fwd(2), priority=2))
    assert port_of(t, 1, 2) == 2
    assert port_of(t, 1, 3) == 1
    assert t.lookup((2, 2)) is None


def test_ternary_with_lpm_field_uses_priority() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32), KeyField("tos", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Lpm(0x0A000000, 8), None), fwd(1), priority=10))
    t.insert(TableEntry((Lpm(0x0A010000, 16), None), fwd(2), priority=5))
    # Priority, not prefix length, decides in a table that needs priorities.
    assert port_of(t, 0x0A010101, 0) == 1


def test_wrong_match_type_for_kind_rejected() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    with pytest.raises(InvalidEntryError, match="got a Exact match"):
        t.insert(TableEntry((Exact(1),), fwd(1), priority=1))


def test_wrong_number_of_fields_rejected() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    with pytest.raises(InvalidEntryError, match="expected 1 match fields, got 2"):
        t.insert(TableEntry((Exact(1), Exact(2)), fwd(1)))


# -- cache invalidation ----------------------------------------------------------------


def test_cache_is_cleared_on_insert_and_delete() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    assert t.lookup((7,)) is None  # miss is cached
    t.insert(TableEntry((Ternary(7, 0xFF),), fwd(1), priority=1))
    assert port_of(t, 7) == 1
    t.insert(TableEntry((Ternary(0, 0),), fwd(2), priority=9))  # wildcard, higher prio
    assert port_of(t, 7) == 2
    t.delete((None,), 9)
    assert port_of(t, 7) == 1
    t.delete((Ternary(7, 0xFF),), 1)
    assert t.lookup((7,)) is None


def test_lpm_cache_is_cleared_on_mutation() -> None:
    t = make_table(KeyField("dst", MatchKind.LPM, 32))
    t.insert(TableEntry((Lpm(0x0A000000, 8),), fwd(1)))
    assert port_of(t, 0x0A010101) == 1
    t.insert(TableEntry((Lpm(0x0A010000, 16),), fwd(2)))
    assert port_of(t, 0x0A010101) == 2
    t.clear()
    assert t.lookup((0x0A010101,)) is None


def test_modify_changes_action_seen_by_lookup() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Ternary(7, 0xFF),), fwd(1), priority=1))
    assert port_of(t, 7) == 1
    stored = t.modify(TableEntry((Ternary(7, 0xFF),), fwd(5), priority=1))
    assert port_of(t, 7) == 5
    assert stored is t.entries()[0]


# -- errors ----------------------------------------------------------------------------


def test_errors_share_a_base_class() -> None:
    for error in (
        DuplicateEntryError,
        EntryNotFoundError,
        TableFullError,
        InvalidEntryError,
        ConstViolationError,
        UnknownNameError,
    ):
        assert issubclass(error, RuntimeStateError)


def test_duplicate_entry() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    t.insert(TableEntry((Exact(1),), fwd(1)))
    with pytest.raises(DuplicateEntryError):
        t.insert(TableEntry((Exact(1),), fwd(2)))


def test_same_matches_different_priority_are_distinct() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Ternary(1, 0xFF),), fwd(1), priority=1))
    t.insert(TableEntry((Ternary(1, 0xFF),), fwd(2), priority=2))
    assert len(t) == 2
    assert port_of(t, 1) == 2


def test_missing_entry() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    with pytest.raises(EntryNotFoundError):
        t.delete((Exact(1),))
    with pytest.raises(EntryNotFoundError):
        t.modify(TableEntry((Exact(1),), fwd(1)))
    assert t.find((Exact(1),)) is None


def test_table_full() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8), size=2)
    t.insert(TableEntry((Exact(1),), fwd(1)))
    t.insert(TableEntry((Exact(2),), fwd(1)))
    with pytest.raises(TableFullError, match="full"):
        t.insert(TableEntry((Exact(3),), fwd(1)))
    t.delete((Exact(1),))
    t.insert(TableEntry((Exact(3),), fwd(1)))


def test_unknown_action_rejected() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    with pytest.raises(InvalidEntryError, match="'nope' is not one of"):
        t.insert(TableEntry((Exact(1),), ActionCall("nope")))
    with pytest.raises(InvalidEntryError):
        t.set_default(ActionCall("nope"))


def test_default_only_and_table_only_actions() -> None:
    t = make_table(
        KeyField("f", MatchKind.EXACT, 8),
        default_only_actions=["drop"],
        table_only_actions=["fwd"],
    )
    with pytest.raises(InvalidEntryError, match="defaultonly"):
        t.insert(TableEntry((Exact(1),), DROP))
    with pytest.raises(InvalidEntryError, match="tableonly"):
        t.set_default(fwd(1))


def test_keyless_table_takes_no_entries() -> None:
    t = make_table()
    assert t.lookup(()) is None
    with pytest.raises(InvalidEntryError, match="no key"):
        t.insert(TableEntry((), fwd(1)))


def test_set_default_and_const_default() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    t.set_default(fwd(4))
    assert t.default_action == fwd(4)
    const = make_table(KeyField("f", MatchKind.EXACT, 8), default_is_const=True)
    with pytest.raises(ConstViolationError):
        const.set_default(fwd(4))


def test_default_action_must_be_a_table_action() -> None:
    with pytest.raises(ValueError, match="default action"):
        Table("t", [], ["a"], ActionCall("b"), size=1)


# -- const entries, clear, reset --------------------------------------------------------


def test_const_entries_first_listed_wins() -> None:
    t = make_table(KeyField("f", MatchKind.TERNARY, 8), const_entries=True)
    t.load_const_entries(
        [
            TableEntry((Ternary(0x01, 0x0F),), fwd(1)),
            TableEntry((None,), fwd(2)),
        ]
    )
    assert [e.priority for e in t.entries()] == [2, 1]
    assert all(e.is_const for e in t.entries())
    assert port_of(t, 0x01) == 1
    assert port_of(t, 0x02) == 2


def test_const_table_rejects_runtime_writes() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8), const_entries=True)
    t.load_const_entries([TableEntry((Exact(1),), fwd(1))])
    with pytest.raises(ConstViolationError):
        t.insert(TableEntry((Exact(2),), fwd(1)))
    with pytest.raises(ConstViolationError):
        t.delete((Exact(1),))
    with pytest.raises(ConstViolationError):
        t.modify(TableEntry((Exact(1),), fwd(2)))


def test_clear_and_reset_keep_const_entries() -> None:
    t = make_table(KeyField("f", MatchKind.EXACT, 8))
    t.load_const_entries([TableEntry((Exact(1),), fwd(1))])
    t.insert(TableEntry((Exact(2),), fwd(2)))
    t.set_default(fwd(7))
    t.entries()[0].direct_counter.packets = 5
    t.clear()
    assert [e.matches for e in t.entries()] == [(Exact(1),)]
    assert t.default_action == fwd(7)
    t.reset()
    assert t.default_action == DROP
    assert t.entries()[0].direct_counter.packets == 0
    assert port_of(t, 1) == 1
    assert t.lookup((2,)) is None


# -- names -----------------------------------------------------------------------------


def test_build_matches_by_field_suffix() -> None:
    t = make_table(
        KeyField("hdr.ipv6.dst_addr", MatchKind.LPM, 128),
        KeyField("meta.vrf", MatchKind.EXACT, 8),
    )
    matches = t.build_matches({"vrf": Exact(3)})
    assert matches == (None, Exact(3))
    assert t.key_position("ipv6.dst_addr") == 0
    with pytest.raises(UnknownNameError, match="unknown key field"):
        t.key_position("nope")


def test_more_than_one_lpm_without_priority_is_rejected() -> None:
    with pytest.raises(ValueError, match="more than one LPM"):
        make_table(KeyField("a", MatchKind.LPM, 8), KeyField("b", MatchKind.LPM, 8))
