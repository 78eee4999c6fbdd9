"""Idle timeout of table entries (P4Runtime spec, "Idle-timeout" and "Table Idle Timeout
Notification"): hits recorded by the pipeline in the device clock, ``time_since_last_hit``
in Reads, and ``IdleTimeoutNotification``s from the server's sweeper.

The device clock is a ManualClock, so timeouts take no real time; the sweeper thread
runs every ``SWEEP_PERIOD_S`` of real time, and ``sweep()`` is called directly to check
that nothing is due."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from test_p4runtime_helpers import (
    CPU_PORT,
    DEVICE_ID,
    INSERT,
    MODIFY,
    Controller,
    Harness,
    Names,
    p4info_of,
    update,
)

from behavioral_model.p4runtime.codec import encode_uint
from behavioral_model.p4runtime.idle_timeout import SWEEP_PERIOD_S
from behavioral_model.p4runtime.local_target import LocalTarget
from behavioral_model.p4runtime.server import P4RuntimeServer
from behavioral_model.switch.core import SwitchCore
from behavioral_model.tm import ManualClock

SECOND_US = 1_000_000
SECOND_NS = 1_000_000_000

IDLE_P4 = r"""
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> b; }
struct headers_t { h_t h; }
struct metadata_t { }

parser IParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control IVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control IIngress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    action fwd(bit<9> port) { std.egress_spec = port; }
    action nop() { }
    table idle_t {
        key = { hdr.h.a: exact; hdr.h.b: ternary; }
        actions = { fwd; nop; }
        default_action = nop();
        support_timeout = true;
    }
    table plain_t {
        key = { hdr.h.a: exact; }
        actions = { fwd; nop; }
        default_action = nop();
    }
    apply {
        idle_t.apply();
        plain_t.apply();
    }
}

control IEgress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) { apply { } }
control ICompute(inout headers_t hdr, inout metadata_t meta) { apply { } }
control IDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(IParser(), IVerify(), IIngress(), IEgress(), ICompute(), IDeparser()) main;
"""


class ClockHarness(Harness):
    """A Harness whose target runs on a ManualClock."""

    def __init__(self) -> None:  # not Harness.__init__: its target has no clock to set
        self.clock = ManualClock(1000.0)
        self.target = LocalTarget(device_id=DEVICE_ID, cpu_port=CPU_PORT,
                                  clock_us=lambda: int(self.clock.now_us()))
        self.server = P4RuntimeServer(self.target, "127.0.0.1:0")
        self.server.start()
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.server.port}")
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.controllers = []


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("idle_timeout") / "idle.p4"
    path.write_text(IDLE_P4)
    return path


@pytest.fixture
def h(program: Path) -> Iterator[tuple[ClockHarness, Controller, Names]]:
    harness = ClockHarness()
    try:
        c = harness.primary_with(program)
        yield harness, c, Names(p4info_of(program))
    finally:
        harness.close()


def idle_entry(k: Names, a: int, ttl_ns: int, priority: int = 10,
               **extra: object) -> p4runtime_pb2.TableEntry:
    te = k.entry("idle_t", {"hdr.h.a": a, "hdr.h.b": ("t", 0x0800, 0xFFFF)}, "fwd", (1,),
                 priority=priority)
    te.idle_timeout_ns = ttl_ns
    for name, value in extra.items():
        setattr(te, name, value)
    return te


def key_of(te: p4runtime_pb2.TableEntry) -> tuple[int, bytes, int]:
    return te.table_id, b"".join(m.SerializeToString() for m in te.match), te.priority


def notified(c: Controller, timeout: float = 2.0) -> p4runtime_pb2.IdleTimeoutNotification:
    resp = c.next("other", timeout)
    assert resp is not None, "no idle-timeout notification"
    assert resp.WhichOneof("update") == "idle_timeout_notification"
    return resp.idle_timeout_notification


def assert_quiet(harness: ClockHarness, c: Controller) -> None:
    """Nothing is due now, and the sweeper thread sent nothing either."""
    assert harness.server.idle_timeouts.sweep() is None
    assert c.next("other", timeout=3 * SWEEP_PERIOD_S) is None


def read_elapsed(c: Controller, k: Names) -> dict[int, int]:
    """hdr.h.a -> time_since_last_hit.elapsed_ns of the idle_t entries."""
    want = p4runtime_pb2.TableEntry(table_id=k.table_id("idle_t"))
    want.time_since_last_hit.SetInParent()
    out = {}
    for e in c.read(p4runtime_pb2.Entity(table_entry=want)):
        assert e.table_entry.HasField("time_since_last_hit")
        out[e.table_entry.match[0].exact.value[0]] = \
            e.table_entry.time_since_last_hit.elapsed_ns
    return out


def packet(a: int, b: int = 0x0800) -> bytes:
    return bytes([a]) + b.to_bytes(2, "big")


def test_never_hit_entry_is_notified_once_per_ttl(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    expiring = idle_entry(k, 1, SECOND_NS, controller_metadata=7, metadata=b"cookie")
    c.write(update(INSERT, table_entry=expiring),
            update(INSERT, table_entry=idle_entry(k, 2, 0)))  # TTL 0: never expires
    harness.clock.advance(SECOND_US - 1)
    assert_quiet(harness, c)
    harness.clock.advance(1)  # idle for exactly the TTL ("greater or equal")
    before = time.time_ns()
    note = notified(c)
    assert len(note.table_entry) == 1
    te = note.table_entry[0]
    # key fields, controller_metadata, metadata and idle_timeout_ns must be set
    assert key_of(te) == key_of(expiring)
    assert te.controller_metadata == 7 and te.metadata == b"cookie"
    assert te.idle_timeout_ns == SECOND_NS
    # the server's wall clock, in ns since the Epoch
    assert before - SECOND_NS < note.timestamp <= time.time_ns()
    # the timer was reset by the notification: no repeat while the clock stands still...
    assert_quiet(harness, c)
    harness.clock.advance(SECOND_US // 2)
    assert_quiet(harness, c)
    # ...but one more TTL later the still idle entry is reported again
    harness.clock.advance(SECOND_US // 2)
    assert key_of(notified(c).table_entry[0]) == key_of(expiring)
    # the reset is not a hit: Read still reports the time since insertion
    assert read_elapsed(c, k) == {1: 2 * SECOND_NS, 2: 2 * SECOND_NS}


def test_hit_resets_the_timer(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    c.write(update(INSERT, table_entry=idle_entry(k, 1, SECOND_NS)),
            update(INSERT, table_entry=idle_entry(k, 2, SECOND_NS)))
    harness.clock.advance(800_000)
    assert harness.target.send(1, packet(1)) == [(1, packet(1))]  # hits entry 1
    assert harness.target.send(1, packet(3)) == [(0, packet(3))]  # a miss: no hit
    assert read_elapsed(c, k) == {1: 0, 2: 800_000_000}
    harness.clock.advance(200_000)  # entry 2 is idle for its TTL, entry 1 is not
    assert [te.match[0].exact.value for te in notified(c).table_entry] == [encode_uint(2)]
    harness.clock.advance(500_000)
    assert_quiet(harness, c)
    assert read_elapsed(c, k) == {1: 700_000_000, 2: 1_500_000_000}
    harness.clock.advance(300_000)  # entry 1: a TTL after its hit
    assert [te.match[0].exact.value for te in notified(c).table_entry] == [encode_uint(1)]


def test_entries_expiring_together_are_coalesced(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    c.write(*(update(INSERT, table_entry=idle_entry(k, a, SECOND_NS, priority=a))
              for a in (1, 2, 3)))
    harness.clock.advance(SECOND_US)
    note = notified(c)
    assert sorted(te.priority for te in note.table_entry) == [1, 2, 3]
    assert_quiet(harness, c)


def test_modify_changes_the_ttl_but_is_not_a_hit(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    c.write(update(INSERT, table_entry=idle_entry(k, 1, SECOND_NS)))
    harness.clock.advance(900_000)
    longer = idle_entry(k, 1, 2 * SECOND_NS)
    c.write(update(MODIFY, table_entry=longer))
    harness.clock.advance(600_000)
    assert_quiet(harness, c)  # 1.5 s idle < the new TTL
    assert read_elapsed(c, k) == {1: 1_500_000_000}
    harness.clock.advance(500_000)  # 2 s since insertion
    assert notified(c).table_entry[0].idle_timeout_ns == 2 * SECOND_NS


def test_zero_ttl_is_never_notified(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    c.write(update(INSERT, table_entry=idle_entry(k, 1, 0)))
    harness.clock.advance(1000 * SECOND_US)
    assert_quiet(harness, c)
    # time_since_last_hit is reported even for a TTL of 0 (spec)
    assert read_elapsed(c, k) == {1: 1000 * SECOND_NS}


def test_only_timeout_tables_record_hits(h) -> None:  # type: ignore[no-untyped-def]
    harness, c, k = h
    c.write(update(INSERT, table_entry=idle_entry(k, 1, 0)),
            update(INSERT, table_entry=k.entry("plain_t", {"hdr.h.a": 1}, "nop")))
    source = harness.target.pipeline()[0].compiled.source
    assert source.count(".last_hit_ns = ") == 1  # idle_t only, no per-packet cost else
    harness.clock.advance(5000)
    harness.target.send(1, packet(1))
    state = harness.target.state
    idle = next(iter(state.tables["IIngress.idle_t"].entries()))
    plain = next(iter(state.tables["IIngress.plain_t"].entries()))
    assert idle.last_hit_ns == 6000 * 1000
    assert plain.last_hit_ns == 1000 * 1000  # its insertion, untouched by the hit


def test_targets_share_the_data_plane_clock() -> None:
    clock = ManualClock(2.5)
    assert SwitchCore(clock=clock).now_ns() == 2500
    assert LocalTarget(clock_us=lambda: 3).now_ns() == 3000
