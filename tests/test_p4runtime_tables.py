"""P4Runtime server: pipeline configuration, table entries, status codes."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import (
    DELETE,
    DEVICE_ID,
    INSERT,
    MODIFY,
    ROUTER,
    SWITCH,
    Harness,
    Names,
    detail_codes,
    p4info_of,
    status_details,
    update,
)

from behavioral_model.p4runtime.device_config import make_bundle

Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
Get = p4runtime_pb2.GetForwardingPipelineConfigRequest
R = Names(p4info_of(ROUTER))


def all_entries(c) -> list[p4runtime_pb2.TableEntry]:  # type: ignore[no-untyped-def]
    return [e.table_entry for e in c.read(p4runtime_pb2.Entity(
        table_entry=p4runtime_pb2.TableEntry()))]


def nexthop(n: int, port: int = 1) -> p4runtime_pb2.TableEntry:
    return R.entry("nexthop", {"meta.nexthop": n}, "forward", (port, 0xA, 0xB))


def test_capabilities(harness: Harness) -> None:
    resp = harness.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest())
    assert resp.p4runtime_api_version == "1.4.1"


def test_write_and_read_before_pipeline(harness: Harness) -> None:
    c = harness.controller(1)
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as info:
        all_entries(c)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    resp = harness.stub.GetForwardingPipelineConfig(Get(device_id=DEVICE_ID))
    assert not resp.HasField("config")


def test_wrong_device_is_not_found(harness: Harness) -> None:
    c = harness.controller(1)
    c.set_pipeline(ROUTER)
    c.device_id = 99
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_bmv2_json_and_bad_programs_are_invalid_argument(harness: Harness) -> None:
    c = harness.controller(1)
    bmv2 = b'{"header_types": [], "headers": [], "__meta__": {"version": [2, 23]}}'
    with pytest.raises(grpc.RpcError) as info:
        c.set_pipeline(ROUTER, device_config=bmv2)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "this is a BMv2 JSON" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        c.set_pipeline(ROUTER, device_config=b"parser P() { state start { oops } }")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "main.p4:1:" in info.value.details()
    # A P4Info that does not describe the program.
    with pytest.raises(grpc.RpcError) as info:
        c.set_pipeline(ROUTER, p4info=p4info_of(SWITCH), device_config=make_bundle(ROUTER))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not match" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        c.set_pipeline(None, action=Req.VERIFY_AND_COMMIT)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_pipeline_actions_and_get(harness: Harness) -> None:
    c = harness.controller(1)
    c.set_pipeline(ROUTER, action=Req.VERIFY)
    assert harness.target.pipeline() is None
    c.set_pipeline(ROUTER, cookie=42)
    bundle = make_bundle(ROUTER)
    resp = harness.stub.GetForwardingPipelineConfig(Get(device_id=DEVICE_ID))
    assert resp.config.cookie.cookie == 42
    assert resp.config.p4info == p4info_of(ROUTER)
    assert resp.config.p4_device_config == bundle
    cookie = harness.stub.GetForwardingPipelineConfig(
        Get(device_id=DEVICE_ID, response_type=Get.COOKIE_ONLY)).config
    assert cookie.cookie.cookie == 42 and not cookie.HasField("p4info")
    assert not cookie.p4_device_config
    p4i = harness.stub.GetForwardingPipelineConfig(
        Get(device_id=DEVICE_ID, response_type=Get.P4INFO_AND_COOKIE)).config
    assert p4i.HasField("p4info") and not p4i.p4_device_config
    dev = harness.stub.GetForwardingPipelineConfig(
        Get(device_id=DEVICE_ID, response_type=Get.DEVICE_CONFIG_AND_COOKIE)).config
    assert dev.p4_device_config == bundle and not dev.HasField("p4info")
    # Re-commit with an empty device config: accepted when the P4Info fits, state cleared.
    c.write(update(INSERT, table_entry=nexthop(1)))
    c.set_pipeline(ROUTER, device_config=b"")
    assert all_entries(c) == []
    # COMMIT without a saved config.
    with pytest.raises(grpc.RpcError) as info:
        c.set_pipeline(None, action=Req.COMMIT)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_verify_and_save_then_commit_replays_writes(harness: Harness) -> None:
    c = harness.controller(1)
    c.set_pipeline(SWITCH)
    c.set_pipeline(ROUTER, action=Req.VERIFY_AND_SAVE)
    program_before = harness.target.pipeline()[0]  # type: ignore[index]
    c.write(update(INSERT, table_entry=nexthop(7)))  # goes to the saved pipeline
    assert harness.target.pipeline()[0] is program_before  # type: ignore[index]
    c.set_pipeline(None, action=Req.COMMIT)
    entries = all_entries(c)
    assert [e.table_id for e in entries] == [R.table_id("nexthop")]
    state = harness.target.state
    assert state is not None and len(state.tables["RouterIngress.nexthop"]) == 1


def test_reconcile_and_commit_keeps_entries(harness: Harness) -> None:
    c = harness.controller(1)
    c.set_pipeline(ROUTER, cookie=1)
    c.write(update(INSERT, table_entry=nexthop(3)))
    c.set_pipeline(ROUTER, action=Req.RECONCILE_AND_COMMIT, cookie=2)
    assert [e.match for e in all_entries(c)] == [nexthop(3).match]
    resp = harness.stub.GetForwardingPipelineConfig(
        Get(device_id=DEVICE_ID, response_type=Get.COOKIE_ONLY))
    assert resp.config.cookie.cookie == 2


def test_insert_read_modify_delete(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    lpm = R.entry("ipv6_lpm", {"hdr.ipv6.dst_addr": (0x20010DB8 << 96, 32)}, "set_nexthop",
                  (5,))
    c.write(update(INSERT, table_entry=lpm), update(INSERT, table_entry=nexthop(5, 2)))
    entries = {e.table_id: e for e in all_entries(c)}
    assert entries[R.table_id("ipv6_lpm")].match == lpm.match
    assert entries[R.table_id("nexthop")].action == nexthop(5, 2).action
    # Read one table, then one entry by its key.
    only = c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(
        table_id=R.table_id("nexthop"))))
    assert len(only) == 1
    key = R.entry("nexthop", {"meta.nexthop": 5})
    assert len(c.read(p4runtime_pb2.Entity(table_entry=key))) == 1
    c.write(update(MODIFY, table_entry=nexthop(5, 9)))
    (got,) = c.read(p4runtime_pb2.Entity(table_entry=key))
    assert got.table_entry.action == nexthop(5, 9).action
    c.write(update(DELETE, table_entry=key))
    assert [e.table_id for e in all_entries(c)] == [R.table_id("ipv6_lpm")]


def test_duplicate_and_missing(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    c.write(update(INSERT, table_entry=nexthop(1)))
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.UNKNOWN
    assert detail_codes(info.value) == [code_pb2.ALREADY_EXISTS]
    for kind in (DELETE, MODIFY):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(kind, table_entry=nexthop(2)))
        assert detail_codes(info.value) == [code_pb2.NOT_FOUND]


def test_batch_continue_on_error_reports_each_update(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    bad = nexthop(2)
    bad.match[0].exact.value = b"\x01\x00\x00"  # 17 bits into a bit<16> field
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=nexthop(1)), update(INSERT, table_entry=bad),
                update(INSERT, table_entry=nexthop(3)))
    assert info.value.code() == grpc.StatusCode.UNKNOWN
    details = status_details(info.value)
    assert [d.canonical_code for d in details] == [code_pb2.OK, code_pb2.INVALID_ARGUMENT,
                                                   code_pb2.OK]
    assert "does not fit in 16 bits" in details[1].message
    values = sorted(e.match[0].exact.value for e in all_entries(c))
    assert values == [b"\x01", b"\x03"]


def test_other_atomicity_modes_unimplemented(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    for mode in (p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR,
                 p4runtime_pb2.WriteRequest.DATAPLANE_ATOMIC):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(INSERT, table_entry=nexthop(1)), atomicity=mode)
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_default_action(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    tid = R.table_id("ipv6_lpm")
    default = p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True)
    (before,) = c.read(p4runtime_pb2.Entity(table_entry=default))
    assert before.table_entry.action.action.action_id == R.action_id("RouterIngress.drop")
    change = p4runtime_pb2.TableEntry(table_id=tid, is_default_action=True)
    change.action.action.CopyFrom(R.action("set_nexthop", 9))
    c.write(update(MODIFY, table_entry=change))
    (after,) = c.read(p4runtime_pb2.Entity(table_entry=default))
    assert after.table_entry.action == change.action
    assert harness.target.state.tables["RouterIngress.ipv6_lpm"].default_action.args == (9,)
    # No action: back to the program's default.
    c.write(update(MODIFY, table_entry=default))
    (reset,) = c.read(p4runtime_pb2.Entity(table_entry=default))
    assert reset.table_entry.action == before.table_entry.action
    # INSERT/DELETE of the default entry, or a match on it, are invalid.
    for kind in (INSERT, DELETE):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(kind, table_entry=change))
        assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]


def test_const_table_and_const_default(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    s = Names(p4info_of(SWITCH))
    entry = s.entry("fixed", {"hdr.ethernet.ether_type": 0x0BAD}, "SwIngress.drop")
    for kind in (INSERT, DELETE):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(kind, table_entry=entry))
        assert detail_codes(info.value) == [code_pb2.PERMISSION_DENIED]
    default = p4runtime_pb2.TableEntry(table_id=s.table_id("fixed"), is_default_action=True)
    default.action.action.CopyFrom(s.action("SwIngress.drop"))
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, table_entry=default))
    assert detail_codes(info.value) == [code_pb2.PERMISSION_DENIED]
    (const,) = c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(
        table_id=s.table_id("fixed"))))
    assert const.table_entry.is_const
    # @defaultonly action in an entry; is_const in a write.
    bad = s.entry("l2", {"hdr.ethernet.dst_addr": 1}, "SwIngress.drop")
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=bad))
    assert detail_codes(info.value) == [code_pb2.PERMISSION_DENIED]
    flagged = s.entry("l2", {"hdr.ethernet.dst_addr": 1}, "forward", (1,))
    flagged.is_const = True
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=flagged))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]


def test_ternary_priorities_and_match_rules(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    acl = R.table("acl")
    fields = {f.name: f.id for f in acl.match_fields}

    def acl_entry(priority: int, value: int, mask: int) -> p4runtime_pb2.TableEntry:
        return R.entry("acl", {"hdr.ipv6.next_hdr": ("t", value, mask)}, "RouterIngress.drop",
                       priority=priority)

    codes = []
    for te in (acl_entry(0, 6, 0xFF), acl_entry(-1, 6, 0xFF), acl_entry(1, 7, 0x01),
               acl_entry(1, 6, 0)):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(INSERT, table_entry=te))
        codes.append(detail_codes(info.value))
    assert codes == [[code_pb2.INVALID_ARGUMENT]] * 4
    c.write(update(INSERT, table_entry=acl_entry(10, 6, 0xFF)),
            update(INSERT, table_entry=acl_entry(20, 6, 0xFF)))
    got = sorted(e.priority for e in all_entries(c))
    assert got == [10, 20]
    # Priority filter in a read; exact tables refuse priorities.
    only = c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(
        table_id=acl.preamble.id, priority=20)))
    assert [e.table_entry.priority for e in only] == [20]
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=R.entry("nexthop", {"meta.nexthop": 1}, "forward",
                                                   (1, 2, 3), priority=5)))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]
    # LPM: prefix 0 must be omitted, bits beyond the prefix are refused.
    for value, plen in ((0, 0), (1, 8), (0, 129)):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(INSERT, table_entry=R.entry(
                "ipv6_lpm", {"hdr.ipv6.dst_addr": (value, plen)}, "set_nexthop", (1,))))
        assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]
    assert fields  # ids resolved


def test_canonical_bytestrings(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    te = nexthop(5)
    te.match[0].exact.value = b"\x00\x00\x05"  # leading zeros are fine on input
    te.action.action.params[0].value = b"\x00\x01"
    c.write(update(INSERT, table_entry=te))
    (got,) = all_entries(c)
    assert got.match[0].exact.value == b"\x05"
    assert got.action.action.params[0].value == b"\x01"
    # An empty byte string, an unknown action, a missing parameter, unknown ids.
    broken = []
    e1 = nexthop(6)
    e1.match[0].exact.value = b""
    e2 = nexthop(7)
    e2.action.action.action_id = R.action_id("set_nexthop")
    e3 = nexthop(8)
    del e3.action.action.params[2]
    e4 = nexthop(9)
    e4.table_id = 0x02FFFFFF
    e5 = nexthop(10)
    e5.match[0].field_id = 9
    for te in (e1, e2, e3, e4, e5):
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(INSERT, table_entry=te))
        broken += detail_codes(info.value)
    assert broken == [code_pb2.INVALID_ARGUMENT] * 3 + [code_pb2.NOT_FOUND,
                                                        code_pb2.INVALID_ARGUMENT]


def test_table_full_is_resource_exhausted(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    s = Names(p4info_of(SWITCH))
    updates = [update(INSERT, table_entry=s.entry("l2", {"hdr.ethernet.dst_addr": i},
                                                  "forward", (1,))) for i in range(65)]
    with pytest.raises(grpc.RpcError) as info:
        c.write(*updates)
    codes = detail_codes(info.value)
    assert codes[:64] == [code_pb2.OK] * 64 and codes[64] == code_pb2.RESOURCE_EXHAUSTED
