"""P4Runtime server: counters, meters, registers, direct resources, PRE, value sets."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2
from test_p4runtime_helpers import (
    DELETE,
    INSERT,
    MODIFY,
    SWITCH,
    Harness,
    Names,
    detail_codes,
    frame,
    p4info_of,
    update,
)

from behavioral_model.p4runtime.codec import encode_uint

S = Names(p4info_of(SWITCH))
E = p4runtime_pb2.Entity


def l2(dst: int, action: str = "forward", *args: int) -> p4runtime_pb2.TableEntry:
    return S.entry("l2", {"hdr.ethernet.dst_addr": dst}, action, args or ((1,) if
                   action == "forward" else ()))


def counter_entry(index: int | None) -> p4runtime_pb2.CounterEntry:
    ce = p4runtime_pb2.CounterEntry(counter_id=S.counter_id("port_pkts"))
    if index is not None:
        ce.index.index = index
    return ce


def test_indexed_counter_read_and_write(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    for _ in range(3):
        harness.target.send(2, frame(1, 2, size=100))
    (got,) = c.read(E(counter_entry=counter_entry(2)))
    assert (got.counter_entry.data.packet_count, got.counter_entry.data.byte_count) == (3, 300)
    everything = c.read(E(counter_entry=p4runtime_pb2.CounterEntry()))
    assert len(everything) == 512
    ce = counter_entry(2)
    ce.data.packet_count = 10
    ce.data.byte_count = 20
    c.write(update(MODIFY, counter_entry=ce))
    (got,) = c.read(E(counter_entry=counter_entry(2)))
    assert got.counter_entry.data == ce.data
    codes = []
    for index, kind in ((600, MODIFY), (-1, MODIFY), (2, INSERT), (2, DELETE)):
        bad = counter_entry(index)
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(kind, counter_entry=bad))
        codes += detail_codes(info.value)
    assert codes == [code_pb2.OUT_OF_RANGE, code_pb2.INVALID_ARGUMENT,
                     code_pb2.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT]
    with pytest.raises(grpc.RpcError) as info:
        c.read(E(counter_entry=counter_entry(600)))
    assert info.value.code() == grpc.StatusCode.UNKNOWN
    assert detail_codes(info.value) == [code_pb2.OUT_OF_RANGE]


def test_direct_counter_in_entry_and_direct_counter_entry(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    entry = l2(0xBEEF, "forward", 3)
    entry.counter_data.packet_count = 5
    c.write(update(INSERT, table_entry=entry))
    harness.target.send(1, frame(0xBEEF, 1, size=80))
    want = p4runtime_pb2.TableEntry(table_id=S.table_id("l2"))
    want.counter_data.SetInParent()
    (got,) = c.read(E(table_entry=want))
    assert got.table_entry.counter_data.packet_count == 6
    assert got.table_entry.counter_data.byte_count == 80
    dce = p4runtime_pb2.DirectCounterEntry()
    dce.table_entry.CopyFrom(S.entry("l2", {"hdr.ethernet.dst_addr": 0xBEEF}))
    (direct,) = c.read(E(direct_counter_entry=dce))
    assert direct.direct_counter_entry.data.packet_count == 6
    dce.data.packet_count = 0
    c.write(update(MODIFY, direct_counter_entry=dce))
    (direct,) = c.read(E(direct_counter_entry=dce))
    assert direct.direct_counter_entry.data.packet_count == 0
    missing = p4runtime_pb2.DirectCounterEntry()
    missing.table_entry.CopyFrom(S.entry("l2", {"hdr.ethernet.dst_addr": 0xF00D}))
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, direct_counter_entry=missing))
    assert detail_codes(info.value) == [code_pb2.NOT_FOUND]
    # A table without a direct counter refuses counter_data.
    smac = S.entry("smac", {"hdr.ethernet.src_addr": 1}, "NoAction")
    smac.counter_data.packet_count = 1
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=smac))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]


def test_meters_and_direct_meters(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    me = p4runtime_pb2.MeterEntry(meter_id=S.meter_id("port_meter"))
    me.index.index = 4
    me.config.CopyFrom(p4runtime_pb2.MeterConfig(cir=100, cburst=10, pir=200, pburst=20))
    c.write(update(MODIFY, meter_entry=me))
    (got,) = c.read(E(meter_entry=p4runtime_pb2.MeterEntry(meter_id=me.meter_id,
                                                            index=me.index)))
    assert got.meter_entry.config == me.config
    me.ClearField("config")
    c.write(update(MODIFY, meter_entry=me))  # unset config: back to the default
    (got,) = c.read(E(meter_entry=p4runtime_pb2.MeterEntry(meter_id=me.meter_id,
                                                            index=me.index)))
    assert not got.meter_entry.HasField("config")
    bad = p4runtime_pb2.MeterEntry(meter_id=me.meter_id)
    bad.config.CopyFrom(p4runtime_pb2.MeterConfig(cir=300, cburst=10, pir=200, pburst=20))
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, meter_entry=bad))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]
    # Direct meter, set with the entry and through DirectMeterEntry.
    acl = S.entry("acl", {"hdr.ethernet.ether_type": ("t", 0x0800, 0xFFFF)}, "acl_pass",
                  priority=1)
    acl.meter_config.CopyFrom(p4runtime_pb2.MeterConfig(cir=1, cburst=1, pir=2, pburst=2))
    c.write(update(INSERT, table_entry=acl))
    want = p4runtime_pb2.TableEntry(table_id=S.table_id("acl"))
    want.meter_config.SetInParent()
    (got,) = c.read(E(table_entry=want))
    assert got.table_entry.meter_config == acl.meter_config
    dme = p4runtime_pb2.DirectMeterEntry()
    dme.table_entry.CopyFrom(S.entry("acl", {"hdr.ethernet.ether_type": ("t", 0x800, 0xFFFF)},
                                     priority=1))
    dme.config.CopyFrom(p4runtime_pb2.MeterConfig(cir=5, cburst=5, pir=6, pburst=6))
    c.write(update(MODIFY, direct_meter_entry=dme))
    (got,) = c.read(E(direct_meter_entry=p4runtime_pb2.DirectMeterEntry(
        table_entry=dme.table_entry)))
    assert got.direct_meter_entry.config == dme.config
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, direct_meter_entry=dme))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]


def test_registers(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    harness.target.send(9, frame(1, 2, size=77))
    rid = S.register_id("last_len")
    re = p4runtime_pb2.RegisterEntry(register_id=rid)
    re.index.index = 9
    (got,) = c.read(E(register_entry=re))
    assert got.register_entry.data.bitstring == encode_uint(77)
    re.data.CopyFrom(p4data_pb2.P4Data(bitstring=b"\x00\x00\x01\x00"))
    c.write(update(MODIFY, register_entry=re))
    (got,) = c.read(E(register_entry=p4runtime_pb2.RegisterEntry(register_id=rid,
                                                                  index=re.index)))
    assert got.register_entry.data.bitstring == b"\x01\x00"
    wide = p4runtime_pb2.RegisterEntry(register_id=rid, index=re.index)
    wide.data.bitstring = b"\x01" + bytes(4)
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, register_entry=wide))
    assert detail_codes(info.value) == [code_pb2.OUT_OF_RANGE]
    assert len(c.read(E(register_entry=p4runtime_pb2.RegisterEntry()))) == 512


def test_multicast_group_affects_forwarding(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    group = p4runtime_pb2.PacketReplicationEngineEntry()
    mg = group.multicast_group_entry
    mg.multicast_group_id = 3
    mg.replicas.add(port=b"\x00\x02", instance=1)
    mg.replicas.add(egress_port=4, instance=2)
    mg.metadata = b"cookie"
    c.write(update(INSERT, packet_replication_engine_entry=group),
            update(INSERT, table_entry=l2(0xFFFF, "flood", 3)))
    out = harness.target.send(1, frame(0xFFFF, 1))
    assert sorted(p for p, _ in out) == [2, 4]
    (got,) = c.read(E(packet_replication_engine_entry=p4runtime_pb2.PacketReplicationEngineEntry(
        multicast_group_entry=p4runtime_pb2.MulticastGroupEntry())))
    read_back = got.packet_replication_engine_entry.multicast_group_entry
    assert read_back.replicas[0].port == b"\x02"  # canonical
    assert read_back.replicas[1].egress_port == 4
    assert read_back.metadata == b"cookie"
    mg.ClearField("replicas")
    mg.replicas.add(port=b"\x05", instance=0)
    c.write(update(MODIFY, packet_replication_engine_entry=group))
    assert [p for p, _ in harness.target.send(1, frame(0xFFFF, 1))] == [5]
    c.write(update(DELETE, packet_replication_engine_entry=group))
    assert harness.target.send(1, frame(0xFFFF, 1)) == []
    codes = []
    for gid, ports in ((0, [1]), (4, [1, 1]), (5, [600])):
        bad = p4runtime_pb2.PacketReplicationEngineEntry()
        bad.multicast_group_entry.multicast_group_id = gid
        for p in ports:
            bad.multicast_group_entry.replicas.add(egress_port=p)
        with pytest.raises(grpc.RpcError) as info:
            c.write(update(INSERT, packet_replication_engine_entry=bad))
        codes += detail_codes(info.value)
    assert codes == [code_pb2.INVALID_ARGUMENT] * 3


def test_clone_sessions(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    pre = p4runtime_pb2.PacketReplicationEngineEntry()
    cs = pre.clone_session_entry
    cs.session_id = 5
    cs.replicas.add(port=b"\x07", instance=1)
    cs.class_of_service = 2
    cs.packet_length_bytes = 128
    c.write(update(INSERT, packet_replication_engine_entry=pre))
    (got,) = c.read(E(packet_replication_engine_entry=p4runtime_pb2.PacketReplicationEngineEntry(
        clone_session_entry=p4runtime_pb2.CloneSessionEntry())))
    assert got.packet_replication_engine_entry == pre
    session = harness.target.state.pre.get_clone_session(5)
    assert session is not None and session.packet_length_bytes == 128
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, packet_replication_engine_entry=pre))
    assert detail_codes(info.value) == [code_pb2.ALREADY_EXISTS]
    c.write(update(DELETE, packet_replication_engine_entry=pre))
    assert harness.target.state.pre.get_clone_session(5) is None


def test_value_set_changes_parsing(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    vs = p4runtime_pb2.ValueSetEntry(value_set_id=S.value_set_id("special_types"))
    member = vs.members.add()
    member.match.add(field_id=1).exact.value = b"\x88\xb5"
    c.write(update(MODIFY, value_set_entry=vs))
    assert [p for p, _ in harness.target.send(1, frame(1, 2, 0x88B5))] == [7]
    (got,) = c.read(E(value_set_entry=p4runtime_pb2.ValueSetEntry()))
    assert got.value_set_entry == vs
    dup = p4runtime_pb2.ValueSetEntry(value_set_id=vs.value_set_id)
    dup.members.extend([member, member])
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, value_set_entry=dup))
    assert detail_codes(info.value) == [code_pb2.ALREADY_EXISTS]
    big = p4runtime_pb2.ValueSetEntry(value_set_id=vs.value_set_id)
    for i in range(5):
        big.members.add().match.add(field_id=1).exact.value = encode_uint(i + 1)
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(MODIFY, value_set_entry=big))
    assert detail_codes(info.value) == [code_pb2.RESOURCE_EXHAUSTED]
    c.write(update(MODIFY, value_set_entry=p4runtime_pb2.ValueSetEntry(
        value_set_id=vs.value_set_id)))
    assert harness.target.send(1, frame(1, 2, 0x88B5)) == []  # l2 default: drop


def test_unsupported_entities(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    member = p4runtime_pb2.ActionProfileMember(action_profile_id=0x11000001, member_id=1)
    extern = p4runtime_pb2.ExternEntry(extern_type_id=0x81, extern_id=1)
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, action_profile_member=member),
                update(INSERT, extern_entry=extern), p4runtime_pb2.Update(type=INSERT))
    # This program has no action profiles: the id is unknown.
    assert detail_codes(info.value) == [code_pb2.NOT_FOUND, code_pb2.UNIMPLEMENTED,
                                        code_pb2.INVALID_ARGUMENT]
    assert c.read(E(action_profile_group=p4runtime_pb2.ActionProfileGroup())) == []
    with pytest.raises(grpc.RpcError) as info:
        c.read(E(extern_entry=extern), E())
    assert detail_codes(info.value) == [code_pb2.UNIMPLEMENTED, code_pb2.INVALID_ARGUMENT]
    one_shot = l2(0x42)
    one_shot.action.ClearField("action")
    one_shot.action.action_profile_member_id = 3
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=one_shot))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]


EXTERNS = SWITCH.parent / "p4info_externs.p4"


def test_program_with_profiles_timeouts_and_signed_registers(harness: Harness) -> None:
    c = harness.primary_with(EXTERNS)
    x = Names(p4info_of(EXTERNS))
    acl = x.entry("MyIngress.acl", {"hdr.ethernet.ether_type": ("t", 0x86DD, 0xFFFF),
                                    "meta.tag": 1, "meta.group": 3}, "victim", priority=5)
    acl.idle_timeout_ns = 2_000_000_000
    c.write(update(INSERT, table_entry=acl))
    want = p4runtime_pb2.TableEntry(table_id=acl.table_id, priority=5)
    found = [e.table_entry for e in c.read(E(table_entry=want))]
    assert [e.idle_timeout_ns for e in found] == [2_000_000_000]
    # Tables implemented by action profiles/selectors take no direct actions.
    ecmp = x.entry("MyIngress.ecmp", {"meta.group": 1, "meta.tag": 2}, "set_nh", (1,))
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(INSERT, table_entry=ecmp))
    assert detail_codes(info.value) == [code_pb2.INVALID_ARGUMENT]
    # int<16> register: two's complement on the wire, sign extension accepted.
    re = p4runtime_pb2.RegisterEntry(register_id=x.register_id("signed_reg"))
    re.index.index = 3
    re.data.bitstring = b"\xff\xfb"
    c.write(update(MODIFY, register_entry=re))
    (got,) = c.read(E(register_entry=p4runtime_pb2.RegisterEntry(register_id=re.register_id,
                                                                  index=re.index)))
    assert got.register_entry.data.bitstring == b"\xfb"
    # A digest whose type is renamed with @name is matched to its P4Info name.
    flow = p4runtime_pb2.DigestEntry(digest_id=x.digest_id("flow_event_t"))
    flow.config.max_list_size = 1
    c.write(update(INSERT, digest_entry=flow))
    harness.target.send(1, bytes(14))
    msg = c.next("digest")
    assert msg is not None and msg.digest.digest_id == flow.digest_id
