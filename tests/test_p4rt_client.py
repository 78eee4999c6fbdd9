"""p4rt_client: the shared rules for names and values, sessions with two devices in
one process, arbitration (primary, backup, no fight), batched writes with per-update
errors and reads, against in-process bm P4Runtime servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import SWITCH, Harness, p4info_of
from test_p4runtime_idle_timeout import ClockHarness, program

from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.p4runtime.local_target import LocalTarget
from behavioral_model.p4runtime.server import P4RuntimeServer
from p4rt_client import (
    NotPrimaryError,
    P4InfoHelper,
    P4RuntimeSession,
    P4RuntimeWriteError,
    UnknownNameError,
    parse_value,
    update,
)
from p4rt_client.names import resolve_key_field, resolve_name

__all__ = ["program"]

INSERT = p4runtime_pb2.Update.INSERT


def test_values_in_bmv2_cli_notation() -> None:
    assert parse_value("10") == 10
    assert parse_value("010") == 10
    assert parse_value("0x0a") == 10
    assert parse_value("0b1010") == 10
    assert parse_value("00:11:22:33:44:55") == 0x001122334455
    assert parse_value("10.0.0.1") == 0x0A000001
    assert parse_value("2001:db8::1") == 0x20010DB8 << 96 | 1
    for bad in ("ten", "10.0.0", "1.2.3.999", "0xg", "2001:db8::g", ""):
        with pytest.raises(ValueError):
            parse_value(bad)


def test_names_full_suffix_ambiguous_and_validity() -> None:
    names = ["Ingress.a.t", "Ingress.b.t", "Ingress.route"]
    assert resolve_name("route", names, "table") == "Ingress.route"
    assert resolve_name("a.t", names, "table") == "Ingress.a.t"
    with pytest.raises(UnknownNameError, match="ambiguous table name 't'"):
        resolve_name("t", names, "table")
    with pytest.raises(UnknownNameError, match="known tables: Ingress.a.t"):
        resolve_name("nope", names, "table")
    keys = ["hdr.eth.dst", "hdr.ipv6.$valid$", "hdr.stack[0].x"]
    assert resolve_key_field("dst", keys, "t") == 0
    assert resolve_key_field("hdr.ipv6.isValid()", keys, "t") == 1
    assert resolve_key_field("hdr.ipv6", keys, "t") == 1
    assert resolve_key_field("stack$0.x", keys, "t") == 2


@pytest.fixture
def two_devices() -> Iterator[tuple[Harness, Harness]]:
    first, second = Harness(device_id=1), Harness(device_id=2)
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def _session(h: Harness, election_id: tuple[int, int] = (0, 1)) -> P4RuntimeSession:
    return P4RuntimeSession(f"127.0.0.1:{h.server.port}", h.target.device_id, election_id)


def test_two_devices_in_one_process(two_devices: tuple[Harness, Harness]) -> None:
    helper = P4InfoHelper(p4info_of(SWITCH))
    sessions = [_session(h) for h in two_devices]
    try:
        for port, session in enumerate(sessions, start=3):
            session.connect()
            assert session.primary
            session.set_pipeline(helper.p4info, make_bundle(SWITCH))
            session.write([update(INSERT, helper.table_entry(
                "l2", {"dst_addr": "00:00:00:00:00:0a"}, "forward", {"port": port}))])
        for port, session in enumerate(sessions, start=3):
            (entity,) = session.read([helper.table_entry("l2")])
            param = entity.table_entry.action.action.params[0]
            assert int.from_bytes(param.value, "big") == port
    finally:
        for session in sessions:
            session.close()


def test_backup_reports_the_primary_instead_of_fighting(harness: Harness) -> None:
    primary = _session(harness, (0, 5))
    primary.connect()
    backup = _session(harness, (0, 2))
    try:
        with pytest.raises(NotPrimaryError, match=r"election id \(0, 5\)") as info:
            backup.connect()
        assert info.value.primary_election_id == (0, 5)
        reply = backup.connect(require_primary=False)
        assert reply.status.code == code_pb2.ALREADY_EXISTS
        assert not backup.primary and primary.primary
        primary.set_pipeline(p4info_of(SWITCH), make_bundle(SWITCH))
        helper = P4InfoHelper(p4info_of(SWITCH))
        entry = helper.table_entry("l2", {"dst_addr": 1}, "forward", {"port": 1})
        with pytest.raises(P4RuntimeWriteError) as write_error:
            backup.write([update(INSERT, entry)])
        assert write_error.value.code.name == "PERMISSION_DENIED"
        primary.write([update(INSERT, entry)])
        assert len(backup.read([helper.table_entry("l2")])) == 1  # backups may read
    finally:
        backup.close()
        primary.close()


def test_batched_write_reports_each_update(harness: Harness) -> None:
    helper = P4InfoHelper(p4info_of(SWITCH))
    with _session(harness) as session:
        session.connect()
        session.set_pipeline(helper.p4info, make_bundle(SWITCH))
        first = helper.table_entry("l2", {"dst_addr": 1}, "forward", {"port": 1})
        second = helper.table_entry("l2", {"dst_addr": 2}, "forward", {"port": 2})
        session.write([update(INSERT, first)])
        with pytest.raises(P4RuntimeWriteError) as info:
            session.write([update(INSERT, first), update(INSERT, second)])
        assert info.value.applied() == [1]
        assert [(i, e.canonical_code) for i, e in info.value.failed_updates()] == [
            (0, code_pb2.ALREADY_EXISTS)]
        assert len(session.read([helper.table_entry("l2")])) == 2


def _frame(dst: int, src: int) -> bytes:
    return dst.to_bytes(6, "big") + src.to_bytes(6, "big") + b"\x08\x00" + bytes(50)


def test_stream_packets_and_digests(harness: Harness) -> None:
    helper = P4InfoHelper(p4info_of(SWITCH))
    with _session(harness) as session:
        session.connect()
        session.set_pipeline(helper.p4info, make_bundle(SWITCH))
        session.packet_out(_frame(1, 2), helper.packet_metadata("packet_out",
                                                                {"egress_port": 5}))
        assert harness.target.get_output() == (5, _frame(1, 2))

        session.write([update(INSERT, helper.table_entry("l2", {"dst_addr": 0xCAFE},
                                                         "to_cpu"))])
        harness.target.send(3, _frame(0xCAFE, 0x1234))
        packet_in = session.get_stream("packet")
        assert packet_in.payload == _frame(0xCAFE, 0x1234)
        assert helper.decode_packet_metadata("packet_in", packet_in.metadata)[
            "ingress_port"] == 3

        session.write([update(INSERT, helper.digest_entry(
            "learn_t", max_list_size=1, ack_timeout_ns=60 * 10**9))])
        harness.target.send(4, _frame(0xFF, 0xA1))
        digest = session.get_stream("digest")
        assert [helper.decode_p4data(d)[0] for d in digest.data] == [0xA1]
        session.ack_digest(digest)
        # Until the server has the ack (it travels on the stream) the same data is
        # suppressed; after it, the same learned address is reported again.
        again = None
        for _ in range(100):
            harness.target.send(4, _frame(0xFF, 0xA1))
            again = session.get_stream("digest", timeout=0.05)
            if again is not None:
                break
        assert again is not None and again.list_id != digest.list_id


def test_stream_idle_timeout_notification(program: Path) -> None:
    harness = ClockHarness()
    helper = P4InfoHelper(p4info_of(program))
    try:
        with P4RuntimeSession(f"127.0.0.1:{harness.server.port}",
                              harness.target.device_id) as session:
            session.connect()
            session.set_pipeline(helper.p4info, make_bundle(program))
            entry = helper.table_entry("idle_t", {"a": 1, "b": (0x800, 0xFFFF)}, "nop",
                                       priority=1, idle_timeout_ns=10**9)
            session.write([update(INSERT, entry)])
            harness.clock.advance(2_000_000)
            notification = session.get_stream("idle_timeout_notification", timeout=5)
            assert [e.match for e in notification.table_entry] == [entry.match]
    finally:
        harness.close()


def test_a_second_server_on_a_taken_address_fails_instead_of_sharing_it(
        harness: Harness) -> None:
    """gRPC would let two servers share a port (SO_REUSEPORT) and answer for each
    other; a second switch on a taken address must fail at start instead."""
    with pytest.raises(OSError, match="cannot listen"):
        P4RuntimeServer(LocalTarget(device_id=2), f"127.0.0.1:{harness.server.port}")
