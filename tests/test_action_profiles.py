"""Action profiles and selectors: members, groups, and the data-plane choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.program import load_program
from behavioral_model.runtime.action_profiles import ActionProfile, GroupRef, MemberRef
from behavioral_model.runtime.errors import (
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
)
from behavioral_model.runtime.matches import Exact
from behavioral_model.runtime.tables import ActionCall, TableEntry

PROGRAM = Path(__file__).parent / "p4" / "action_selector.p4"


@pytest.fixture(scope="module")
def program():
    return load_program(PROGRAM)


def test_group_member_chosen_by_identity_hash_of_selector_key(program) -> None:
    device = program.new_device()
    prof = device.state.action_profile("sel")
    prof.add_member(1, ActionCall("I.fwd", (5,)))
    prof.add_member(2, ActionCall("I.fwd", (6,)))
    prof.set_group(10, [(1, 1), (2, 1)], create=True)
    device.state.table("t").insert(TableEntry((Exact(1),), GroupRef(10)))
    # identity hash of the 8-bit selector field b is b itself; two members: b % 2.
    ports = [device.process(bytes([1, b]), 1)[0].port for b in range(4)]
    assert ports == [5, 6, 5, 6]


def test_member_reference_and_miss(program) -> None:
    device = program.new_device()
    prof = device.state.action_profile("sel")
    prof.add_member(7, ActionCall("I.fwd", (9,)))
    device.state.table("t").insert(TableEntry((Exact(2),), MemberRef(7)))
    assert device.process(bytes([2, 0]), 1)[0].port == 9
    # A miss runs the default NoAction: egress_spec stays 0.
    assert device.process(bytes([3, 0]), 1)[0].port == 0


def test_table_with_profile_rejects_direct_actions(program) -> None:
    device = program.new_device()
    with pytest.raises(InvalidEntryError, match="members or groups"):
        device.state.table("t").insert(TableEntry((Exact(1),), ActionCall("I.fwd", (1,))))


def test_profile_errors() -> None:
    prof = ActionProfile("p", size=1, with_selector=True)
    prof.add_member(1, ActionCall("a"))
    with pytest.raises(DuplicateEntryError):
        prof.add_member(1, ActionCall("a"))
    with pytest.raises(EntryNotFoundError):
        prof.set_group(1, [(2, 1)], create=True)
    prof.set_group(1, [(1, 1)], create=True)
    with pytest.raises(InvalidEntryError, match="still in group"):
        prof.delete_member(1)
    with pytest.raises(InvalidEntryError):
        ActionProfile("q", size=4).set_group(1, [], create=True)
