"""P4Runtime server: action profile members and groups, one-shot action sets, and the
entries of indirect tables, checked with packets. Every selector of the test programs
hashes ``h.b`` with the identity algorithm, so a group of total weight W picks the
member at index ``h.b % W`` of its weight-expanded member list."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import (
    DELETE,
    INSERT,
    MODIFY,
    ROOT,
    Controller,
    Harness,
    Names,
    detail_codes,
    p4info_of,
    update,
)

E = p4runtime_pb2.Entity
Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
SELECTOR = ROOT / "tests" / "p4" / "action_selector.p4"
PROFILES = ROOT / "tests" / "p4" / "p4rt_profiles.p4"
S = Names(p4info_of(SELECTOR))
P = Names(p4info_of(PROFILES))


def member(n: Names, profile: str, member_id: int, action: str | None = "fwd",
           *args: int) -> p4runtime_pb2.ActionProfileMember:
    m = p4runtime_pb2.ActionProfileMember(action_profile_id=n.profile_id(profile),
                                          member_id=member_id)
    if action is not None:
        m.action.CopyFrom(n.action(action, *args))
    return m


def group(n: Names, profile: str, group_id: int, members: list[tuple[int, int]],
          max_size: int = 0) -> p4runtime_pb2.ActionProfileGroup:
    g = p4runtime_pb2.ActionProfileGroup(action_profile_id=n.profile_id(profile),
                                         group_id=group_id, max_size=max_size)
    for member_id, weight in members:
        g.members.add(member_id=member_id, weight=weight)
    return g


def entry(n: Names, table: str, a: int, *, member_id: int | None = None,
          group_id: int | None = None,
          one_shot: list[tuple[int, int]] | None = None) -> p4runtime_pb2.TableEntry:
    """``one_shot``: (port, weight) pairs of fwd actions."""
    te = n.entry(table, {"hdr.h.a" if n is P else "h.h.a": a})
    if member_id is not None:
        te.action.action_profile_member_id = member_id
    elif group_id is not None:
        te.action.action_profile_group_id = group_id
    elif one_shot is not None:
        aset = te.action.action_profile_action_set
        for port, weight in one_shot:
            shot = aset.action_profile_actions.add(weight=weight)
            shot.action.CopyFrom(n.action("fwd", port))
    return te


def ports(h: Harness, a: int, bs: range | list[int]) -> list[int]:
    """The egress port of a packet (a, b) for each b (0: no table hit)."""
    out = []
    for b in bs:
        (sent,) = h.target.send(1, bytes([a, b]))
        out.append(sent[0])
    return out


def fails(c: Controller, *updates: p4runtime_pb2.Update) -> list[int]:
    with pytest.raises(grpc.RpcError) as info:
        c.write(*updates)
    return detail_codes(info.value)


def test_member_and_group_entries_forward_packets(harness: Harness) -> None:
    c = harness.primary_with(SELECTOR)
    c.write(update(INSERT, action_profile_member=member(S, "sel", 1, "fwd", 5)),
            update(INSERT, action_profile_member=member(S, "sel", 2, "fwd", 6)),
            update(INSERT, action_profile_member=member(S, "sel", 3, "fwd", 7)))
    c.write(update(INSERT, action_profile_group=group(S, "sel", 10, [(1, 1), (2, 1)])))
    c.write(update(INSERT, table_entry=entry(S, "t", 1, group_id=10)),
            update(INSERT, table_entry=entry(S, "t", 2, member_id=3)))
    assert ports(harness, 1, range(4)) == [5, 6, 5, 6]
    assert ports(harness, 2, range(3)) == [7, 7, 7]
    assert ports(harness, 3, range(2)) == [0, 0]  # miss: NoAction
    # Weights repeat members: [1, 2, 2] -> b % 3.
    c.write(update(MODIFY, action_profile_group=group(S, "sel", 10, [(1, 1), (2, 2)])))
    assert ports(harness, 1, range(6)) == [5, 6, 6, 5, 6, 6]
    # A member's new action applies to every group holding it.
    c.write(update(MODIFY, action_profile_member=member(S, "sel", 2, "fwd", 9)))
    assert ports(harness, 1, range(3)) == [5, 9, 9]
    # An entry can be re-pointed from a group to a member and back.
    c.write(update(MODIFY, table_entry=entry(S, "t", 1, member_id=3)))
    assert ports(harness, 1, range(3)) == [7, 7, 7]
    c.write(update(MODIFY, table_entry=entry(S, "t", 1, group_id=10)))
    assert ports(harness, 1, range(3)) == [5, 9, 9]
    # Tear down in dependency order.
    c.write(update(DELETE, table_entry=entry(S, "t", 1)),
            update(DELETE, table_entry=entry(S, "t", 2)))
    c.write(update(DELETE, action_profile_group=group(S, "sel", 10, [])))
    c.write(*(update(DELETE, action_profile_member=member(S, "sel", i, None))
              for i in (1, 2, 3)))
    assert c.read(E(action_profile_member=p4runtime_pb2.ActionProfileMember())) == []
    assert ports(harness, 1, range(2)) == [0, 0]


def test_reads_return_what_was_written(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    m1, m2 = member(P, "sel", 1, "fwd", 2), member(P, "sel", 2, "set_b", 0x33)
    pm = member(P, "prof", 1, "fwd", 4)
    g = group(P, "sel", 1, [(2, 3), (1, 1)], max_size=4)
    c.write(*(update(INSERT, action_profile_member=m) for m in (m1, m2, pm)))
    c.write(update(INSERT, action_profile_group=g))
    entries = [entry(P, "by_selector", 1, group_id=1), entry(P, "by_selector", 2, member_id=2),
               entry(P, "by_profile", 3, member_id=1)]
    c.write(*(update(INSERT, table_entry=te) for te in entries))
    everything = c.read(E(action_profile_member=p4runtime_pb2.ActionProfileMember()))
    assert sorted(x.action_profile_member.SerializeToString() for x in everything) == \
        sorted(m.SerializeToString() for m in (m1, m2, pm))
    in_sel = c.read(E(action_profile_member=p4runtime_pb2.ActionProfileMember(
        action_profile_id=P.profile_id("sel"))))
    assert [x.action_profile_member for x in in_sel] == [m1, m2]
    one = c.read(E(action_profile_member=p4runtime_pb2.ActionProfileMember(
        action_profile_id=P.profile_id("sel"), member_id=2)))
    assert [x.action_profile_member for x in one] == [m2]
    groups = c.read(E(action_profile_group=p4runtime_pb2.ActionProfileGroup()))
    assert [x.action_profile_group for x in groups] == [g]
    got = c.read(E(table_entry=p4runtime_pb2.TableEntry()))
    assert sorted(x.table_entry.SerializeToString() for x in got) == \
        sorted(te.SerializeToString() for te in entries)
    # Filter on the group id of indirect entries.
    want = p4runtime_pb2.TableEntry(table_id=entries[0].table_id)
    want.action.action_profile_group_id = 1
    assert [x.table_entry for x in c.read(E(table_entry=want))] == [entries[0]]
    # Group: (a=1) member list [2, 2, 2, 1] -> b % 4; member 2 rewrites b to 0x33.
    out = [harness.target.send(1, bytes([1, b]))[0] for b in range(4)]
    assert out == [(9, bytes([1, 0x33]))] * 3 + [(2, bytes([1, 3]))]
    assert ports(harness, 3, [0]) == [4]


def test_one_shot_action_sets(harness: Harness) -> None:
    c = harness.primary_with(SELECTOR)
    te = entry(S, "t", 4, one_shot=[(3, 1), (4, 2)])
    c.write(update(INSERT, table_entry=te))
    (got,) = c.read(E(table_entry=p4runtime_pb2.TableEntry(table_id=te.table_id)))
    assert got.table_entry == te  # as written, not desugared
    assert ports(harness, 4, range(6)) == [3, 4, 4, 3, 4, 4]
    # Members and groups cannot be mixed with one shots.
    assert fails(c, update(INSERT, action_profile_member=member(S, "sel", 1, "fwd", 1))) \
        == [code_pb2.INVALID_ARGUMENT]
    c.write(update(MODIFY, table_entry=entry(S, "t", 4, one_shot=[(8, 1)])))
    assert ports(harness, 4, range(3)) == [8, 8, 8]
    c.write(update(DELETE, table_entry=entry(S, "t", 4)))
    c.write(update(INSERT, action_profile_member=member(S, "sel", 1, "fwd", 1)))
    assert fails(c, update(INSERT, table_entry=te)) == [code_pb2.INVALID_ARGUMENT]
    # Bad one shots: empty, weight 0, a watch port, an action the table lacks.
    c.write(update(DELETE, action_profile_member=member(S, "sel", 1, None)))
    empty = entry(S, "t", 5)
    empty.action.action_profile_action_set.SetInParent()
    zero = entry(S, "t", 5, one_shot=[(1, 0)])
    watched = entry(S, "t", 5, one_shot=[(1, 1)])
    watched.action.action_profile_action_set.action_profile_actions[0].watch_port = b"\x01"
    noaction = entry(S, "t", 5, one_shot=[(1, 1)])
    noaction.action.action_profile_action_set.action_profile_actions[0].action.CopyFrom(
        S.action("NoAction"))
    huge = entry(S, "t", 5, one_shot=[(1, 5000)])
    assert fails(c, *(update(INSERT, table_entry=x)
                      for x in (empty, zero, watched, noaction, huge))) == [
        code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT, code_pb2.UNIMPLEMENTED,
        code_pb2.PERMISSION_DENIED, code_pb2.RESOURCE_EXHAUSTED]


def test_one_shot_size_rules(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    # sel: sum_of_weights, max_group_size 4.  sel_m: sum_of_members, max 3, weight <= 5.
    ok = [entry(P, "by_selector", 1, one_shot=[(1, 3), (2, 1)]),
          entry(P, "by_members", 2, one_shot=[(1, 5), (2, 5), (3, 5)])]
    c.write(*(update(INSERT, table_entry=x) for x in ok))
    assert ports(harness, 2, range(16)) == [1] * 5 + [2] * 5 + [3] * 5 + [1]
    bad = [entry(P, "by_selector", 3, one_shot=[(1, 3), (2, 2)]),
           entry(P, "by_members", 4, one_shot=[(1, 6)]),
           entry(P, "by_members", 4, one_shot=[(1, 1)] * 4),
           entry(P, "by_profile", 4, one_shot=[(1, 1)])]
    assert fails(c, *(update(INSERT, table_entry=x) for x in bad)) == \
        [code_pb2.INVALID_ARGUMENT] * 4


def test_member_and_group_errors(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    c.write(update(INSERT, action_profile_member=member(P, "sel", 1, "fwd", 1)),
            update(INSERT, action_profile_member=member(P, "sel", 2, "fwd", 2)))
    no_action = member(P, "sel", 3, None)
    no_params = member(P, "sel", 3, None)
    no_params.action.action_id = P.action_id("fwd")
    bad_profile = member(P, "sel", 3, "fwd", 1)
    bad_profile.action_profile_id = 0x11FFFFFF
    zero_profile = member(P, "sel", 3, "fwd", 1)
    zero_profile.action_profile_id = 0
    assert fails(c, *(update(INSERT, action_profile_member=m) for m in (
        member(P, "sel", 1, "fwd", 1),        # duplicate
        member(P, "sel", 0, "fwd", 1),        # id 0
        no_action, no_params,
        member(P, "sel", 3, "NoAction"),      # @defaultonly in the table
        member(P, "sel_m", 3, "set_b", 1),    # not an action of by_members
        bad_profile, zero_profile))) == [
        code_pb2.ALREADY_EXISTS, code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT,
        code_pb2.INVALID_ARGUMENT, code_pb2.PERMISSION_DENIED, code_pb2.INVALID_ARGUMENT,
        code_pb2.NOT_FOUND, code_pb2.INVALID_ARGUMENT]
    assert fails(c, update(MODIFY, action_profile_member=member(P, "sel", 9, "fwd", 1)),
                 update(DELETE, action_profile_member=member(P, "sel", 9, None))) == \
        [code_pb2.NOT_FOUND, code_pb2.NOT_FOUND]
    # The profile holds 4 members.
    c.write(*(update(INSERT, action_profile_member=member(P, "prof", i, "fwd", i))
              for i in range(1, 5)))
    assert fails(c, update(INSERT, action_profile_member=member(P, "prof", 5, "fwd", 5))) \
        == [code_pb2.RESOURCE_EXHAUSTED]
    watched = group(P, "sel", 7, [(1, 1)], max_size=4)
    watched.members[0].watch_port = b"\x02"
    assert fails(c, *(update(INSERT, action_profile_group=g) for g in (
        group(P, "prof", 7, [(1, 1)]),                    # no selector
        group(P, "sel", 7, [(1, 0)], max_size=4),         # weight 0
        group(P, "sel", 7, [(1, 1), (1, 1)], max_size=4),  # member twice
        group(P, "sel", 7, [(5, 1)], max_size=4),         # unknown member
        group(P, "sel", 7, [(1, 1)], max_size=5),         # > max_group_size
        group(P, "sel", 7, [(1, 1)], max_size=0),         # must be set (max_group_size)
        group(P, "sel", 7, [(1, 2), (2, 1)], max_size=2),  # weights exceed max_size
        group(P, "sel", 0, [(1, 1)], max_size=4),         # id 0
        watched))) == [
        code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT,
        code_pb2.NOT_FOUND, code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT,
        code_pb2.RESOURCE_EXHAUSTED, code_pb2.INVALID_ARGUMENT, code_pb2.UNIMPLEMENTED]
    c.write(update(INSERT, action_profile_group=group(P, "sel", 7, [(1, 1)], max_size=2)))
    assert fails(c,
                 update(INSERT, action_profile_group=group(P, "sel", 7, [], max_size=2)),
                 update(MODIFY, action_profile_group=group(P, "sel", 7, [(2, 1)],
                                                           max_size=3)),
                 update(MODIFY, action_profile_group=group(P, "sel", 8, [], max_size=2)),
                 update(DELETE, action_profile_group=group(P, "sel", 8, []))) == [
        code_pb2.ALREADY_EXISTS, code_pb2.INVALID_ARGUMENT, code_pb2.NOT_FOUND,
        code_pb2.NOT_FOUND]
    c.write(update(MODIFY, action_profile_group=group(P, "sel", 7, [(2, 2)], max_size=2)))
    # sum_of_members: the member count is the size; each weight <= max_member_weight.
    c.write(*(update(INSERT, action_profile_member=member(P, "sel_m", i, "fwd", i))
              for i in range(1, 5)))
    c.write(update(INSERT, action_profile_group=group(P, "sel_m", 1, [(1, 5), (2, 5)],
                                                      max_size=2)))
    assert fails(c, update(INSERT, action_profile_group=group(
        P, "sel_m", 2, [(1, 6)], max_size=3)), update(INSERT, action_profile_group=group(
            P, "sel_m", 2, [(1, 1), (2, 1), (3, 1)], max_size=2))) == [
        code_pb2.INVALID_ARGUMENT, code_pb2.RESOURCE_EXHAUSTED]


def test_references_protect_members_and_groups(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    c.write(*(update(INSERT, action_profile_member=member(P, p, 1, "fwd", 3))
              for p in ("sel", "prof")))
    c.write(update(INSERT, action_profile_group=group(P, "sel", 1, [(1, 1)], max_size=1)))
    # The profile is shared by two tables; the reference is in the second.
    c.write(update(INSERT, table_entry=entry(P, "by_profile_too", 5, member_id=1)),
            update(INSERT, table_entry=entry(P, "by_selector", 5, group_id=1)))
    assert fails(c, update(DELETE, action_profile_member=member(P, "prof", 1, None)),
                 update(DELETE, action_profile_member=member(P, "sel", 1, None)),
                 update(DELETE, action_profile_group=group(P, "sel", 1, []))) == \
        [code_pb2.FAILED_PRECONDITION] * 3
    assert ports(harness, 5, [0]) == [3]
    # Unknown references, direct actions and group ids where they do not belong.
    direct = P.entry("by_profile", {"hdr.h.a": 6}, "fwd", (1,))
    assert fails(c, *(update(INSERT, table_entry=x) for x in (
        entry(P, "by_profile", 6, member_id=9),
        entry(P, "by_selector", 6, group_id=9),
        entry(P, "by_profile", 6, group_id=1),
        entry(P, "by_profile", 6),
        direct))) == [code_pb2.NOT_FOUND, code_pb2.NOT_FOUND, code_pb2.INVALID_ARGUMENT,
                      code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT]
    default = p4runtime_pb2.TableEntry(table_id=P.table_id("by_selector"),
                                       is_default_action=True)
    default.action.action.CopyFrom(P.action("NoAction"))
    assert fails(c, update(MODIFY, table_entry=default)) == [code_pb2.PERMISSION_DENIED]
    (got,) = c.read(E(table_entry=p4runtime_pb2.TableEntry(
        table_id=default.table_id, is_default_action=True)))
    assert got.table_entry == default
    c.write(update(DELETE, table_entry=entry(P, "by_profile_too", 5)),
            update(DELETE, table_entry=entry(P, "by_selector", 5)))
    c.write(update(DELETE, action_profile_group=group(P, "sel", 1, [])))
    c.write(*(update(DELETE, action_profile_member=member(P, p, 1, None))
              for p in ("sel", "prof")))


def test_reconcile_keeps_members_groups_and_entries(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    c.write(update(INSERT, action_profile_member=member(P, "sel", 1, "fwd", 5)),
            update(INSERT, action_profile_member=member(P, "sel", 2, "fwd", 6)))
    c.write(update(INSERT, action_profile_group=group(P, "sel", 3, [(1, 1), (2, 1)],
                                                      max_size=2)))
    c.write(update(INSERT, table_entry=entry(P, "by_selector", 1, group_id=3)),
            update(INSERT, table_entry=entry(P, "by_members", 2, one_shot=[(7, 1)])))
    before = [c.read(E(**{kind: cls()})) for kind, cls in (
        ("action_profile_member", p4runtime_pb2.ActionProfileMember),
        ("action_profile_group", p4runtime_pb2.ActionProfileGroup),
        ("table_entry", p4runtime_pb2.TableEntry))]
    c.set_pipeline(PROFILES, action=Req.RECONCILE_AND_COMMIT)
    after = [c.read(E(**{kind: cls()})) for kind, cls in (
        ("action_profile_member", p4runtime_pb2.ActionProfileMember),
        ("action_profile_group", p4runtime_pb2.ActionProfileGroup),
        ("table_entry", p4runtime_pb2.TableEntry))]
    assert after == before
    assert ports(harness, 1, range(2)) == [5, 6]
    assert ports(harness, 2, [0]) == [7]
    # A staged pipeline replays member, group and entry writes in order on COMMIT.
    c.set_pipeline(PROFILES, action=Req.VERIFY_AND_SAVE)
    c.write(update(INSERT, action_profile_member=member(P, "prof", 1, "fwd", 8)))
    c.write(update(INSERT, table_entry=entry(P, "by_profile", 9, member_id=1)))
    assert ports(harness, 9, [0]) == [0]  # still the old pipeline
    c.set_pipeline(action=Req.COMMIT)
    assert ports(harness, 9, [0]) == [8]
