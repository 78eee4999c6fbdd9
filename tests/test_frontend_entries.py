"""Table entry lists as p4c checks them (spec 14.2.1.4; found by
scripts/compare_p4test.py on p4c's p4_16_errors/init-entries-error*-bmv2.p4 and
table-entries-error.p4): priorities only where the key has a ternary, range or optional
field, the first entry gives one when any does, the implied priorities stay in range,
and no two entries have the same keys. Each rejected program below is rejected by
p4test 1.2.5 too; each accepted one is accepted by it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

PROGRAM = """
#include <core.p4>
control C(inout bit<8> x, inout bit<8> y);
package P(C c);
control Ctl(inout bit<8> x, inout bit<8> y) {
    action set(bit<8> v) { x = v; }
    table t {
        key = { x : %s; y : %s; }
        actions = { set; }
        %s
        entries = { %s }
    }
    apply { t.apply(); }
}
P(Ctl()) main;
"""


def program(kinds: tuple[str, str], props: str, entries: str) -> str:
    return PROGRAM % (*kinds, props, entries)


def check(kinds: tuple[str, str], entries: str, props: str = "") -> None:
    check_source(preprocess_text(program(kinds, props, entries)))


@pytest.mark.parametrize("kinds, props, entries, message", [
    pytest.param(("exact", "lpm"), "", "priority=10: (1, 2) : set(1);",
                 "take no priority", id="priority-on-exact-and-lpm"),
    pytest.param(("exact", "ternary"), "", "(1, 2) : set(1); priority=5: (2, 2) : set(2);",
                 "first entry must give a priority", id="first-entry-without-priority"),
    pytest.param(("exact", "ternary"), "priority_delta = 10;",
                 "priority=12: (1, 2) : set(1); (2, 2) : set(2); (3, 3) : set(3);",
                 "priorities overflow", id="implied-priority-below-zero"),
    pytest.param(("exact", "exact"), "", "(1, 2) : set(1); (3, 4) : set(2); (1, 2) : set(3);",
                 r"duplicate entry keys \(the same as entry 1\)", id="duplicate-keys"),
    pytest.param(("exact", "ternary"), "",
                 "(1, 2 &&& 3) : set(1); (1, 2 &&& 3) : set(2);",
                 "duplicate entry keys", id="duplicate-masked-keys"),
])
def test_bad_entry_lists_are_rejected(kinds: tuple[str, str], props: str, entries: str,
                                      message: str) -> None:
    with pytest.raises(P4TypeError, match=message) as err:
        check(kinds, entries, props)
    assert err.value.location is not None


def test_priorities_on_const_entries_are_rejected() -> None:
    text = program(("exact", "ternary"), "", "priority=1: (1, 2) : set(1);").replace(
        "entries =", "const entries =")
    with pytest.raises(P4TypeError, match="const entries cannot give them priorities"):
        check_source(preprocess_text(text))


@pytest.mark.parametrize("kinds, props, entries", [
    pytest.param(("exact", "ternary"), "",
                 "priority=12: (1, 2) : set(1); (2, 2) : set(2); priority=3: (3, 3) : set(3);",
                 id="explicit-priorities"),
    pytest.param(("exact", "ternary"), "largest_priority_wins = false; priority_delta = 10;",
                 "priority=1: (1, 2) : set(1); (2, 2) : set(2);", id="smallest-wins"),
    pytest.param(("exact", "ternary"), "", "(1, 2 &&& 3) : set(1); (1, 2) : set(2);",
                 id="ternary-covering-is-no-error"),
    pytest.param(("exact", "lpm"), "", "(1, 2) : set(1); (1, 3) : set(2);",
                 id="distinct-keys"),
])
def test_good_entry_lists_are_accepted(kinds: tuple[str, str], props: str,
                                       entries: str) -> None:
    check(kinds, entries, props)

