"""P4Runtime server: StreamChannel arbitration, packet-in/out, digests."""

from __future__ import annotations

import time

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import (
    CPU_PORT,
    INSERT,
    ROUTER,
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
R = Names(p4info_of(ROUTER))


def nexthop(n: int) -> p4runtime_pb2.TableEntry:
    return R.entry("nexthop", {"meta.nexthop": n}, "forward", (1, 2, 3))


def test_two_controllers_higher_id_wins_both_notified(harness: Harness) -> None:
    a = harness.controller(None, arbitrate=False)
    first = a.arbitrate(1)
    assert a.is_primary_msg(first)
    assert first.election_id.low == 1
    b = harness.controller(None, arbitrate=False)
    b_view = b.arbitrate(2)
    a_view = a.next_arbitration()
    assert b.is_primary_msg(b_view)
    assert a_view is not None and a_view.status.code == code_pb2.ALREADY_EXISTS
    assert a_view.election_id.low == 2
    # The backup cannot write or push a pipeline; the primary can.
    b.set_pipeline(ROUTER)
    with pytest.raises(grpc.RpcError) as info:
        a.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as info:
        a.set_pipeline(ROUTER)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    b.write(update(INSERT, table_entry=nexthop(1)))
    # A lower id joining only hears about itself.
    c = harness.controller(None, arbitrate=False)
    c_view = c.arbitrate(0)
    assert c_view is not None and c_view.status.code == code_pb2.ALREADY_EXISTS
    assert a.next_arbitration(timeout=0.3) is None
    # The primary leaves: the others learn there is no primary; nobody is promoted
    # until an id >= the highest one ever seen arrives.
    b.close()
    for ctrl in (a, c):
        view = ctrl.next_arbitration()
        assert view is not None and view.status.code == code_pb2.NOT_FOUND
    with pytest.raises(grpc.RpcError) as info:
        a.write(update(INSERT, table_entry=nexthop(2)))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    promoted = a.arbitrate(3)
    assert a.is_primary_msg(promoted)
    assert c.next_arbitration().status.code == code_pb2.ALREADY_EXISTS
    a.write(update(INSERT, table_entry=nexthop(2)))


def test_write_without_stream_or_election_id(harness: Harness) -> None:
    a = harness.controller(5)
    a.set_pipeline(ROUTER)
    other = harness.controller(None, arbitrate=False)
    other.election_id = 4
    with pytest.raises(grpc.RpcError) as info:
        other.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    other.election_id = None
    with pytest.raises(grpc.RpcError) as info:
        other.write(update(INSERT, table_entry=nexthop(1)))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_duplicate_election_id_and_wrong_device_end_the_stream(harness: Harness) -> None:
    harness.controller(7)
    dup = harness.controller(None, arbitrate=False)
    dup.arbitrate(7, wait=False)
    assert dup.next_arbitration() is None  # stream ended instead
    assert dup.stream_error is not None
    assert dup.stream_error.code() == grpc.StatusCode.INVALID_ARGUMENT
    stranger = harness.controller(None, arbitrate=False)
    stranger.device_id = 3
    stranger.arbitrate(1, wait=False)
    assert stranger.next_arbitration() is None
    assert stranger.stream_error.code() == grpc.StatusCode.NOT_FOUND


def test_named_roles_have_their_own_primary(harness: Harness) -> None:
    default = harness.controller(10)
    default.set_pipeline(ROUTER)
    stats = harness.controller(None, role="stats", arbitrate=False)
    view = stats.arbitrate(1)  # lower than the default role's 10, but another role
    assert stats.is_primary_msg(view)
    assert view.role.name == "stats"
    stats.write(update(INSERT, table_entry=nexthop(1)))
    unknown_role = harness.controller(None, arbitrate=False)
    unknown_role.role = "nobody"
    unknown_role.election_id = 1
    with pytest.raises(grpc.RpcError) as info:
        unknown_role.write(update(INSERT, table_entry=nexthop(2)))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_packet_out_is_forwarded(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    c.packet_out(frame(1, 2), egress_port=5, _pad=0)
    out = harness.target.get_output(timeout=5)
    assert out == (5, frame(1, 2))
    # Bad metadata: a StreamError, nothing sent.
    c.packet_out(frame(1, 2), egress_port=5)
    err = c.next("error")
    assert err is not None and err.error.canonical_code == code_pb2.INVALID_ARGUMENT
    assert err.error.HasField("packet_out")
    assert harness.target.get_output(timeout=0.2) is None


def test_packet_out_from_backup_is_refused(harness: Harness) -> None:
    c = harness.primary_with(SWITCH, election_id=2)
    backup = harness.controller(1)
    backup.p4info = c.p4info
    backup.packet_out(frame(1, 2), egress_port=5, _pad=0)
    err = backup.next("error")
    assert err.error.canonical_code == code_pb2.PERMISSION_DENIED
    assert harness.target.get_output(timeout=0.2) is None


def test_packet_in_goes_to_the_primary(harness: Harness) -> None:
    c = harness.primary_with(SWITCH, election_id=2)
    backup = harness.controller(1)
    c.write(update(INSERT, table_entry=S.entry("l2", {"hdr.ethernet.dst_addr": 0xCAFE},
                                               "to_cpu")))
    pkt = frame(0xCAFE, 0x1234)
    harness.target.send(3, pkt)
    msg = c.next("packet")
    assert msg is not None
    assert msg.packet.payload == pkt
    meta = {m.metadata_id: m.value for m in msg.packet.metadata}
    cpm = next(p for p in S.p4info.controller_packet_metadata
               if p.preamble.name == "packet_in")
    port_id = next(m.id for m in cpm.metadata if m.name == "ingress_port")
    assert meta[port_id] == encode_uint(3)
    assert backup.next("packet", timeout=0.2) is None
    assert CPU_PORT == harness.target.cpu_port


def test_digest_list_and_ack(harness: Harness) -> None:
    c = harness.primary_with(SWITCH)
    digest_id = S.digest_id("learn_t")
    entry = p4runtime_pb2.DigestEntry(digest_id=digest_id)
    entry.config.max_list_size = 2
    entry.config.max_timeout_ns = 200_000_000
    entry.config.ack_timeout_ns = 10_000_000_000
    c.write(update(INSERT, digest_entry=entry))
    (read,) = c.read(p4runtime_pb2.Entity(digest_entry=p4runtime_pb2.DigestEntry()))
    assert read.digest_entry == entry
    for src in (0xA1, 0xA2, 0xA1):  # the repeat is suppressed
        harness.target.send(4, frame(0xFF, src))
    msg = c.next("digest")
    assert msg is not None
    digest = msg.digest
    assert digest.digest_id == digest_id and digest.list_id == 1
    srcs = [d.struct.members[0].bitstring for d in digest.data]
    assert srcs == [encode_uint(0xA1), encode_uint(0xA2)]
    assert digest.data[0].struct.members[1].bitstring == encode_uint(4)
    # Unacknowledged: the same data stays suppressed; a new source waits for the timeout.
    harness.target.send(4, frame(0xFF, 0xA1))
    harness.target.send(4, frame(0xFF, 0xA3))
    start = time.monotonic()
    late = c.next("digest")
    assert late is not None and time.monotonic() - start >= 0.1
    assert [d.struct.members[0].bitstring for d in late.digest.data] == [encode_uint(0xA3)]
    # After the ack the data may be reported again.
    ack = p4runtime_pb2.StreamMessageRequest()
    ack.digest_ack.digest_id = digest_id
    ack.digest_ack.list_id = 1
    c.send(ack)
    time.sleep(0.1)
    harness.target.send(4, frame(0xFF, 0xA1))
    again = c.next("digest")
    assert again is not None and again.digest.list_id == 3
    # Disabled digests send nothing.
    c.write(update(p4runtime_pb2.Update.DELETE, digest_entry=entry))
    harness.target.send(4, frame(0xFF, 0xA9))
    assert c.next("digest", timeout=0.4) is None
    with pytest.raises(grpc.RpcError) as info:
        c.write(update(p4runtime_pb2.Update.DELETE, digest_entry=entry))
    assert detail_codes(info.value) == [code_pb2.NOT_FOUND]
