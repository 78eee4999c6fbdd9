"""Traffic manager: strict priorities, tail drop, rates in virtual time, and the
queueing metadata (in microseconds and packets) as BMv2 simple_switch fills it."""

from __future__ import annotations

import struct
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from behavioral_model.program import load_program_text
from behavioral_model.switch.engine import Dataplane
from behavioral_model.tm import (
    DEFAULT_QUEUE_DEPTH,
    ManualClock,
    RealTimeClock,
    TrafficManager,
)


def job(port: int = 1, priority: int = 0, tag: object = None) -> SimpleNamespace:
    sm = SimpleNamespace(enq_timestamp=0, enq_qdepth=0, deq_timedelta=0, deq_qdepth=0)
    return SimpleNamespace(port=port, priority=priority, sm=sm, tag=tag)


def tags(jobs: list) -> list:
    return [j.tag for j in jobs]


# -- depth and tail drop -------------------------------------------------------------
def test_default_depth_is_bmv2s_64_and_tail_drops() -> None:
    assert DEFAULT_QUEUE_DEPTH == 64
    tm = TrafficManager(queue_rate_pps=1)  # nothing leaves during the test
    results = [tm.enqueue(job(tag=i), 0) for i in range(70)]
    assert results == [True] * 64 + [False] * 6
    assert tm.queue_depth(1) == 64
    assert tm.stats.tail_drops == {(1, 0): 6}
    assert tm.stats.enqueued == 64


def test_queue_depth_per_port_and_for_all_ports() -> None:
    tm = TrafficManager(queue_rate_pps=1)
    tm.set_queue_depth(1, 2)
    assert [tm.enqueue(job(1), 0) for _ in range(3)] == [True, True, False]
    assert [tm.enqueue(job(2), 0) for _ in range(3)] == [True, True, True]
    tm.set_all_queue_depths(1)  # also the default for ports not seen yet
    assert tm.enqueue(job(2), 0) is False
    assert [tm.enqueue(job(3), 0) for _ in range(2)] == [True, False]
    assert tm.queue_config(3) == (1, 1)


def test_reducing_depth_keeps_queued_packets() -> None:
    tm = TrafficManager(queue_rate_pps=1)
    for i in range(5):
        tm.enqueue(job(tag=i), 0)
    tm.set_queue_depth(1, 2)
    assert tm.queue_depth(1) == 5
    assert tm.enqueue(job(), 0) is False


def test_zero_depth_drops_everything() -> None:
    tm = TrafficManager()
    tm.set_queue_depth(1, 0)
    assert tm.enqueue(job(), 0) is False


# -- priorities ----------------------------------------------------------------------
def test_priority_out_of_range_is_dropped_like_bmv2() -> None:
    tm = TrafficManager()  # one queue per port, as simple_switch's default
    assert tm.enqueue(job(priority=1), 0) is False
    assert tm.stats.priority_drops == 1
    assert tm.enqueue(job(priority=0), 0) is True


def test_strict_priority_higher_value_first() -> None:
    tm = TrafficManager(priority_queues=8)
    for i, prio in enumerate([0, 3, 7, 3, 0, 5]):
        tm.enqueue(job(priority=prio, tag=(prio, i)), 10)
    out = tm.dequeue_ready(10)
    assert tags(out) == [(7, 2), (5, 5), (3, 1), (3, 3), (0, 0), (0, 4)]
    assert len(tm) == 0


def test_priority_with_rates_serves_the_due_high_queue_first() -> None:
    """Rates are per priority queue (BMv2); when both heads are due the higher
    priority departs first."""
    tm = TrafficManager(priority_queues=2, queue_rate_pps=1000)  # 1000 us per packet
    for i in range(3):
        tm.enqueue(job(priority=0, tag=f"lo{i}"), 0)
        tm.enqueue(job(priority=1, tag=f"hi{i}"), 0)
    departures = []
    while len(tm):
        t = tm.next_departure_time()
        departures.append((t, tags(tm.dequeue_ready(t))))
    assert departures == [(0, ["hi0", "lo0"]), (1000, ["hi1", "lo1"]),
                          (2000, ["hi2", "lo2"])]


def test_port_shaper_gives_a_strict_priority_link() -> None:
    tm = TrafficManager(priority_queues=2)
    tm.set_port_rate(1, 1000)  # one packet per millisecond for the whole port
    for i in range(2):
        tm.enqueue(job(priority=0, tag=f"lo{i}"), 0)
    tm.enqueue(job(priority=1, tag="hi0"), 0)
    seen = []
    while len(tm):
        t = tm.next_departure_time()
        out = tm.dequeue_ready(t)
        seen.extend((t, tag) for tag in tags(out))
        if t == 1000:
            tm.enqueue(job(priority=1, tag="hi1"), t)  # arrives while lo1 waits
    assert seen == [(0, "hi0"), (1000, "lo0"), (2000, "hi1"), (3000, "lo1")]


def test_dequeue_port_takes_one_packet_of_one_port_by_priority() -> None:
    """A caller that models the link (frames serialised by length) takes one packet
    at a time from the port whose link is free."""
    tm = TrafficManager(priority_queues=8)
    tm.enqueue(job(port=1, priority=0, tag="lo"), 0)
    tm.enqueue(job(port=2, priority=0, tag="other"), 0)
    tm.enqueue(job(port=1, priority=7, tag="hi"), 1)
    first = tm.dequeue_port(1, 5)
    assert first.tag == "hi" and first.sm.deq_timedelta == 4 and first.sm.deq_qdepth == 0
    assert tm.dequeue_port(1, 6).tag == "lo"
    assert tm.dequeue_port(1, 7) is None and tm.dequeue_port(9, 7) is None
    assert len(tm) == 1 and tm.queue_depth(2) == 1


def test_priority_argument_of_queue_settings() -> None:
    tm = TrafficManager(priority_queues=2)
    tm.set_queue_depth(1, 1, priority=1)
    tm.set_queue_rate(1, 10, priority=0)
    assert tm.queue_config(1, 1) == (1, 0)
    assert tm.queue_config(1, 0) == (64, 10)
    with pytest.raises(ValueError):
        tm.set_queue_depth(1, 1, priority=2)
    with pytest.raises(ValueError):
        tm.set_queue_rate(1, -1)
    with pytest.raises(ValueError):
        TrafficManager(priority_queues=0)


# -- rates in virtual time -------------------------------------------------------------
def test_rate_limit_spaces_departures_in_virtual_time() -> None:
    clock = ManualClock()
    tm = TrafficManager()
    tm.set_queue_rate(1, 2000)  # 500 us apart
    for i in range(4):
        tm.enqueue(job(tag=i), clock.now_us())
    times = []
    while len(tm):
        t = tm.next_departure_time()
        clock.set(t)
        out = tm.dequeue_ready(clock.now_us())
        times.extend((t, j.tag, j.sm.deq_timedelta) for j in out)
    assert times == [(0, 0, 0), (500, 1, 500), (1000, 2, 1000), (1500, 3, 1500)]


def test_nothing_leaves_before_its_time() -> None:
    tm = TrafficManager(queue_rate_pps=1000)
    tm.enqueue(job(tag="a"), 0)
    tm.enqueue(job(tag="b"), 0)
    assert tags(tm.dequeue_ready(0)) == ["a"]
    assert tm.dequeue_ready(999.9) == []
    assert tm.next_departure_time() == 1000
    assert tags(tm.dequeue_ready(1000)) == ["b"]
    assert tm.next_departure_time() is None


def test_rate_change_applies_to_later_packets_only() -> None:
    tm = TrafficManager(queue_rate_pps=1000)
    tm.enqueue(job(tag="a"), 0)
    tm.enqueue(job(tag="b"), 0)  # due at 1000
    tm.set_all_queue_rates(100)  # 10 ms
    tm.enqueue(job(tag="c"), 0)  # due at 1000 + 10000
    assert [(t, tags(tm.dequeue_ready(t))) for t in (0, 1000, 11000)] == \
        [(0, ["a"]), (1000, ["b"]), (11000, ["c"])]


def test_idle_queue_does_not_bank_credit() -> None:
    tm = TrafficManager(queue_rate_pps=1000)
    tm.enqueue(job(tag="a"), 0)
    tm.dequeue_ready(0)
    tm.enqueue(job(tag="b"), 5000)  # long after: leaves at once
    tm.enqueue(job(tag="c"), 5000)  # then 1 ms later
    assert tm.next_departure_time() == 5000
    assert tags(tm.dequeue_ready(5000)) == ["b"]
    assert tm.next_departure_time() == 6000


def test_ports_are_independent_and_merged_by_time() -> None:
    tm = TrafficManager()
    tm.set_queue_rate(1, 1000)
    tm.enqueue(job(1, tag="p1a"), 0)
    tm.enqueue(job(1, tag="p1b"), 0)
    tm.enqueue(job(2, tag="p2a"), 0)
    tm.enqueue(job(2, tag="p2b"), 0)
    assert tags(tm.dequeue_ready(0)) == ["p1a", "p2a", "p2b"]
    assert tags(tm.dequeue_ready(1000)) == ["p1b"]


def test_dequeue_limit_and_clear() -> None:
    tm = TrafficManager()
    for i in range(5):
        tm.enqueue(job(tag=i), 0)
    assert tags(tm.dequeue_ready(0, limit=2)) == [0, 1]
    assert len(tm) == 3
    flushed = tm.clear()
    assert tags(flushed) == [2, 3, 4] and len(tm) == 0
    assert tm.stats.flushed == 3


# -- queueing metadata -----------------------------------------------------------------
def test_queueing_metadata_values() -> None:
    tm = TrafficManager(queue_rate_pps=10_000)  # 100 us per packet
    jobs = [job(tag=i) for i in range(3)]
    tm.enqueue(jobs[0], 1000.0)
    tm.enqueue(jobs[1], 1010.0)
    tm.enqueue(jobs[2], 1020.7)
    assert [(j.sm.enq_timestamp, j.sm.enq_qdepth) for j in jobs] == \
        [(1000, 0), (1010, 1), (1020, 2)]
    out = []
    while len(tm):
        out += tm.dequeue_ready(tm.next_departure_time())
    # departures at 1000, 1100, 1200; depth left behind in the packet's queue
    assert [(j.sm.deq_timedelta, j.sm.deq_qdepth) for j in out] == \
        [(0, 2), (90, 1), (180, 0)]


def test_queue_depth_metadata_is_per_priority_queue() -> None:
    tm = TrafficManager(priority_queues=2, queue_rate_pps=1)
    tm.enqueue(job(priority=0), 0)
    tm.enqueue(job(priority=0), 0)
    high = job(priority=1)
    tm.enqueue(high, 0)
    assert high.sm.enq_qdepth == 0
    assert tm.queue_depth(1) == 3 and tm.queue_depth(1, 0) == 2


def test_qid_is_set_when_the_metadata_has_it() -> None:
    tm = TrafficManager(priority_queues=4)
    j = job(priority=3)
    j.sm.qid = 0
    tm.enqueue(j, 0)
    tm.dequeue_ready(0)
    assert j.sm.qid == 3


def test_metadata_wraps_to_field_widths() -> None:
    tm = TrafficManager()
    j = job()
    tm.enqueue(j, float(2**32 + 5))
    assert j.sm.enq_timestamp == 5


def test_clocks() -> None:
    clock = ManualClock(10)
    assert clock.advance(5) == 15
    with pytest.raises(ValueError):
        clock.set(1)
    real = RealTimeClock()
    a = real.now_us()
    real.sleep_until(a + 1000)
    assert real.now_us() - a >= 1000


# -- through the pipeline: the program sees the metadata -------------------------------
QUEUE_PROBE_P4 = r"""
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header probe_t { bit<32> enq_ts; bit<32> enq_qdepth; bit<32> deq_td; bit<32> deq_qdepth; }
struct headers_t { eth_t eth; probe_t probe; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.probe); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 2;
        std.priority = (bit<3>) hdr.eth.type;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.probe.enq_ts = std.enq_timestamp;
        hdr.probe.enq_qdepth = (bit<32>) std.enq_qdepth;
        hdr.probe.deq_td = std.deq_timedelta;
        hdr.probe.deq_qdepth = (bit<32>) std.deq_qdepth;
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.probe); }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def probe_frame(priority: int, n: int) -> bytes:
    return bytes(6) + bytes([0, 0, 0, 0, 0, n]) + struct.pack("!H", priority) + bytes(16)


def probe_values(data: bytes) -> tuple[int, int, int, int, int]:
    return (data[11],) + struct.unpack("!IIII", data[14:30])


@pytest.fixture(scope="module")
def probe_program():
    return load_program_text(QUEUE_PROBE_P4, "queue_probe.p4")


def test_pipeline_sees_queueing_metadata_in_virtual_time(probe_program) -> None:
    clock = ManualClock(100)
    dp = Dataplane(TrafficManager(priority_queues=2, queue_rate_pps=1000))
    dp.set_program(probe_program)
    for n, prio in enumerate([0, 0, 1]):
        dp.receive(1, probe_frame(prio, n), clock.now_us())
    outputs = []
    while dp.pending():
        clock.set(dp.next_departure_time())
        outputs += [probe_values(p.data) for p in dp.service(clock.now_us())]
    # (n, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth): packet 2 has priority
    # 1 (its own, empty queue) and goes first; the priority-0 packets leave 1 ms apart
    assert outputs == [(2, 100, 0, 0, 0), (0, 100, 0, 0, 1), (1, 100, 1, 1000, 0)]


def test_pipeline_tail_drop_and_priority_drop(probe_program) -> None:
    dp = Dataplane(TrafficManager(queue_depth=2, queue_rate_pps=1))
    dp.set_program(probe_program)
    for n in range(4):
        dp.receive(1, probe_frame(0, n), 0)
    dp.receive(1, probe_frame(1, 9), 0)  # priority 1 with one queue: dropped
    assert dp.pending() == 2
    assert dp.stats.tm_drops == 3
    assert dp.tm.stats.tail_drops == {(2, 0): 2} and dp.tm.stats.priority_drops == 1


# -- pass-through: the switch's fast path gives what the queue would -----------------
def qjob(port: int = 1, priority: int = 0, qid: bool = False) -> SimpleNamespace:
    j = job(port, priority)
    if qid:
        j.sm.qid = 99
    return j


def meta(j: SimpleNamespace) -> dict:
    return dict(vars(j.sm))


def queued_then_dequeued(tm: TrafficManager, j: SimpleNamespace, now: float) -> bool:
    """The slow path: enqueue, then the departures due at ``now``."""
    return tm.enqueue(j, now) and j in tm.dequeue_ready(now)


def twin(setup) -> tuple[TrafficManager, TrafficManager]:
    return setup(), setup()


@pytest.mark.parametrize("setup, history, probe, now", [
    (TrafficManager, [], dict(), 7.9),
    (lambda: TrafficManager(priority_queues=4), [], dict(priority=3, qid=True), 10),
    (lambda: TrafficManager(queue_rate_pps=1000), [(1, 0, 0.0), (1, 0, 1000.0)],
     dict(), 2000.5),  # a rate, with credit again
    (lambda: TrafficManager(queue_rate_pps=1000), [(2, 0, 0.0)], dict(), 10),  # other port
    (lambda: _shaped(TrafficManager(priority_queues=2)), [(1, 1, 0.0)],
     dict(priority=0, qid=True), 1000),  # port shaper, free again
])
def test_pass_through_equals_enqueue_then_dequeue(setup, history, probe, now) -> None:
    fast, slow = twin(setup)
    for tm in (fast, slow):  # same past: packets that came and went
        for port, prio, t in history:
            assert tm.enqueue(job(port, prio), t)
            assert len(tm.dequeue_ready(t)) == 1
    a, b = qjob(**probe), qjob(**probe)
    assert fast.pass_through(a, now) is True
    assert queued_then_dequeued(slow, b, now)
    assert meta(a) == meta(b)
    assert meta(a)["enq_timestamp"] == int(now) and meta(a)["deq_timedelta"] == 0
    assert (fast.stats.enqueued, fast.stats.dequeued) == (slow.stats.enqueued,
                                                           slow.stats.dequeued)
    assert len(fast) == len(slow) == 0
    # and the future is the same: the next packet (same port, same priority) gets the
    # same departure time (rates and shaper saw the pass-through packet)
    c, d = qjob(**probe), qjob(**probe)
    fast.enqueue(c, now)
    slow.enqueue(d, now)
    assert fast.next_departure_time() == slow.next_departure_time()
    assert meta(c) == meta(d)


def _shaped(tm: TrafficManager) -> TrafficManager:
    tm.set_port_rate(1, 1000)
    return tm


@pytest.mark.parametrize("setup, probe", [
    (lambda: _busy(TrafficManager(queue_rate_pps=1)), dict()),  # packets queued ahead
    (lambda: _sent(TrafficManager(queue_rate_pps=1000)), dict()),  # no credit yet
    (lambda: _sent(_shaped(TrafficManager(priority_queues=2))), dict(priority=1)),
    (lambda: _zero(TrafficManager()), dict()),  # depth 0: the slow path drops it
    (TrafficManager, dict(priority=1)),  # priority out of range: dropped
])
def test_pass_through_refuses_what_must_wait_or_drop(setup, probe) -> None:
    tm = setup()
    before = (len(tm), tm.stats.enqueued, tm.stats.dequeued, tm.next_departure_time())
    j = qjob(**probe)
    assert tm.pass_through(j, 500) is False
    assert (len(tm), tm.stats.enqueued, tm.stats.dequeued,
            tm.next_departure_time()) == before  # nothing changed
    assert meta(j) == meta(qjob(**probe))
    assert not queued_then_dequeued(setup(), qjob(**probe), 500)  # nor would it leave


def test_pass_through_beside_a_waiting_lower_priority_queue() -> None:
    """A port holds a packet that is not due yet in priority queue 0: a priority-1
    packet whose own queue is empty leaves at once on both paths."""
    fast, slow = twin(lambda: _busy(TrafficManager(priority_queues=2, queue_rate_pps=1)))
    assert fast.next_departure_time() > 500  # the precondition: nothing due at 500
    a, b = qjob(priority=1, qid=True), qjob(priority=1, qid=True)
    assert fast.pass_through(a, 500) is True
    assert queued_then_dequeued(slow, b, 500)
    assert meta(a) == meta(b)
    assert (len(fast), fast.stats.dequeued) == (len(slow), slow.stats.dequeued) == (1, 2)


def _busy(tm: TrafficManager) -> TrafficManager:
    tm.enqueue(job(), 0)
    tm.enqueue(job(), 0)
    tm.dequeue_ready(0)  # one left, due in a second
    return tm


def _sent(tm: TrafficManager) -> TrafficManager:
    tm.enqueue(job(), 0)  # the next may leave at 1000 us
    tm.dequeue_ready(0)
    return tm


def _zero(tm: TrafficManager) -> TrafficManager:
    tm.set_queue_depth(1, 0)
    return tm


ARRIVALS = [  # (time us, priority, packet number)
    (100, 0, 0), (100, 0, 1), (100, 1, 2), (150, 1, 3), (1500, 0, 4), (1600, 0, 5),
    (1600, 1, 6), (9000, 0, 7), (9000, 0, 8), (20000, 1, 9),
]


@pytest.mark.parametrize("rate", [0, 1000])
def test_dataplane_process_equals_receive_then_service(probe_program, rate) -> None:
    """``Dataplane.process`` (ingress straight to egress when the queue is empty) and
    ``receive`` + ``service`` give the same packets, in the same order, with the same
    queueing metadata (written into the packet by the probe program) and counters."""
    fast = Dataplane(TrafficManager(priority_queues=2, queue_rate_pps=rate))
    slow = Dataplane(TrafficManager(priority_queues=2, queue_rate_pps=rate))
    passed: list[bool] = []
    admit = fast.tm.admit  # what pass_through and the fast path ask

    def spy(port, priority, sm, now):
        passed.append(admit(port, priority, sm, now))
        return passed[-1]

    fast.tm.admit = spy  # type: ignore[method-assign]
    outputs: dict[str, list] = {"fast": [], "slow": []}
    for dp in (fast, slow):
        dp.set_program(probe_program)
    for t, prio, n in ARRIVALS:
        for name, dp in (("fast", fast), ("slow", slow)):
            # departures that fell due before this arrival leave first
            while (due := dp.next_departure_time()) is not None and due < t:
                outputs[name] += dp.serve_due(due)
        outputs["fast"] += fast.process(1, probe_frame(prio, n), t)
        slow.receive(1, probe_frame(prio, n), t)
        outputs["slow"] += slow.serve_due(t)
    for name, dp in (("fast", fast), ("slow", slow)):
        while (due := dp.next_departure_time()) is not None:
            outputs[name] += dp.serve_due(due)
    got = {name: [probe_values(p.data) for p in pkts] for name, pkts in outputs.items()}
    assert len(got["fast"]) == len(ARRIVALS)
    assert got["fast"] == got["slow"]
    assert fast.stats == slow.stats
    assert fast.tm.stats == slow.tm.stats
    assert any(passed)  # the fast path was taken ...
    assert not all(passed) or rate == 0  # ... and, with a rate, not always
    if rate == 0:  # nothing ever waits: every packet sees empty queues
        assert all(v[2:] == (0, 0, 0) for v in got["fast"])


def test_dequeue_port_skips_the_priorities_a_pause_holds() -> None:
    """PFC (802.1Qbb) pauses one priority: the port sends the others, control traffic
    included, and the held packets when the pause is lifted."""
    tm = TrafficManager(priority_queues=8)
    tm.enqueue(job(port=1, priority=0, tag="data"), 0)
    tm.enqueue(job(port=1, priority=7, tag="ack"), 0)
    assert tm.dequeue_port(1, 1, paused=0b1).tag == "ack"
    assert tm.dequeue_port(1, 2, paused=0b1) is None
    assert tm.queue_depth(1) == 1
    assert tm.dequeue_port(1, 3).tag == "data"
    single = TrafficManager(priority_queues=1)
    single.enqueue(job(port=1, priority=0, tag="only"), 0)
    assert single.dequeue_port(1, 1, paused=0b1) is None
    assert single.dequeue_port(1, 1).tag == "only"


# -- dequeue_port: one packet of one port, as the general drain would choose it ------
_steps = st.lists(st.tuples(st.sampled_from(("enqueue", "dequeue")), st.integers(0, 3),
                            st.integers(0, 15), st.integers(0, 3)), max_size=60)


@settings(max_examples=200, deadline=None)
@given(steps=_steps, rate=st.sampled_from((0, 1000, 250_000)),
       shaped=st.booleans(), qid=st.booleans())
def test_dequeue_port_takes_what_the_general_drain_takes(steps, rate, shaped, qid) -> None:
    """A fabric port asks for one packet at a time (``dequeue_port``); its choice, the
    metadata and the counters must be those of the general drain (``_drain_port``, as
    ``dequeue_ready`` uses), whatever the priorities, pauses, rates and port shaper."""
    fast, slow = (TrafficManager(priority_queues=4, queue_depth=8, queue_rate_pps=rate)
                  for _ in range(2))
    if shaped:
        for tm in (fast, slow):
            tm.set_port_rate(1, 500_000)
    now = 0.0
    for n, (kind, priority, paused, gap) in enumerate(steps):
        now += gap
        if kind == "enqueue":
            a, b = qjob(1, priority, qid), qjob(1, priority, qid)
            a.tag = b.tag = n
            assert fast.enqueue(a, now) == slow.enqueue(b, now)
            continue
        got = fast.dequeue_port(1, now, paused)
        p = slow._ports.get(1)
        taken = slow._drain_port(1, p, now, 1, paused) if p is not None and p.size else []
        if not taken:
            assert got is None
            continue
        want = taken[0][2]
        assert got is not None and got.tag == want.tag and meta(got) == meta(want)
        assert (fast.queue_depth(1), len(fast), fast.stats.dequeued) == \
            (slow.queue_depth(1), len(slow), slow.stats.dequeued)
        assert fast.next_departure_time() == slow.next_departure_time()
