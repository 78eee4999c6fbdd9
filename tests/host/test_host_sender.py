"""The sending side of a QP without a switch: segmentation, PSN mirroring, the window,
retransmission on NACK, on timeout (with backoff) and on gaps, loss reports, probes and
write completion. Time is a ManualClock: nothing sleeps."""

from __future__ import annotations

import pytest
from host_harness import PEER, QP, OneEndpoint

from host.codec import NackPacket, ProbePacket, WritePacket
from host.completions import WriteError
from host.config import TransportConfig
from protocol.constants import (
    NACK_HOST_LOSS_REPORT,
    NACK_NO_RESOURCE,
    NACK_PSN_OUT_OF_WINDOW,
    NACK_TRIMMED,
    NACK_TRIMMED_LASTHOP,
    NIC_RX_WINDOW,
    OPCODE_WRITE_FIRST,
    OPCODE_WRITE_LAST,
    OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_MIDDLE,
    OPCODE_WRITE_ONLY,
    OPCODE_WRITE_ONLY_IMM,
    SACK_PR_PROBE,
)


def writes(packets: list) -> list[WritePacket]:
    assert all(isinstance(p, WritePacket) for p in packets), packets
    return packets


# -- segmentation -------------------------------------------------------------------------
def test_message_is_cut_into_mtu_packets_with_reth_per_packet() -> None:
    side = OneEndpoint()
    data = bytes(i % 251 for i in range(2500))
    side.endpoint.write(QP, data, 0x10000, rkey=0x77)
    packets = writes(side.posted())
    assert [p.opcode for p in packets] == [OPCODE_WRITE_FIRST, OPCODE_WRITE_MIDDLE,
                                           OPCODE_WRITE_LAST]
    assert [p.virtual_addr for p in packets] == [0x10000, 0x10400, 0x10800]
    assert [p.dma_len for p in packets] == [1024, 1024, 452]
    assert b"".join(p.payload for p in packets) == data
    assert {p.rkey for p in packets} == {0x77} and {p.msg_seq for p in packets} == {0}
    assert [p.ack_req for p in packets] == [False, False, True]  # AckReq on the last
    assert not any(p.retransmit for p in packets)
    # What the host posts (mrc-nic.md 3): SA this NIC, DA the peer, DestQP = local QPN.
    assert {(p.src, p.dst, p.dest_qp) for p in packets} == {
        (side.endpoint.local, bytes.fromhex("20010db8" + "00" * 11 + "02"), QP)}


@pytest.mark.parametrize(("size", "imm", "opcodes"), [
    (0, None, [OPCODE_WRITE_ONLY]),
    (1024, None, [OPCODE_WRITE_ONLY]),
    (1025, None, [OPCODE_WRITE_FIRST, OPCODE_WRITE_LAST]),
    (10, 0xABCD, [OPCODE_WRITE_ONLY_IMM]),
    (3000, 0xABCD, [OPCODE_WRITE_FIRST, OPCODE_WRITE_MIDDLE, OPCODE_WRITE_LAST_IMM]),
])
def test_opcodes_and_immediate(size: int, imm: int | None, opcodes: list[int]) -> None:
    side = OneEndpoint()
    side.endpoint.write(QP, bytes(size), 0, imm=imm)
    packets = writes(side.posted())
    assert [p.opcode for p in packets] == opcodes
    assert [p.imm for p in packets] == [None] * (len(opcodes) - 1) + [imm]
    assert sum(p.dma_len for p in packets) == size


def test_configurable_mtu() -> None:
    side = OneEndpoint(TransportConfig(mtu=100))
    side.endpoint.write(QP, bytes(250), 0)
    assert [p.dma_len for p in writes(side.posted())] == [100, 100, 50]


def test_psns_mirror_the_nic_across_messages_and_msg_seq_counts_messages() -> None:
    side = OneEndpoint()
    first = side.endpoint.write(QP, bytes(2048), 0)
    second = side.endpoint.write(QP, bytes(100), 0)
    third = side.endpoint.write(QP, bytes(3000), 0)
    packets = writes(side.posted())
    assert [p.psn for p in packets] == list(range(6))
    assert [p.msg_seq for p in packets] == [0, 0, 1, 2, 2, 2]
    assert (first.first_psn, first.last_psn) == (0, 1)
    assert (second.first_psn, second.last_psn) == (2, 2)
    assert (third.first_psn, third.last_psn) == (3, 5)
    assert side.endpoint.sender(QP).next_psn == 6


# -- window and completion ----------------------------------------------------------------
def test_never_more_than_the_window_past_the_cumulative_psn() -> None:
    window = NIC_RX_WINDOW
    side = OneEndpoint(TransportConfig(mtu=1))
    handle = side.endpoint.write(QP, bytes(window + 36), 0)
    assert [p.psn for p in side.posted()] == list(range(window))
    side.sack(cumulative=9)
    assert [p.psn for p in side.posted()] == list(range(window, window + 10))  # to 9 + W
    side.sack(cumulative=8)  # an older SACK moves nothing
    assert side.posted() == []
    # the last 26 selectively acknowledged
    side.sack(cumulative=window + 9, bitmap=(1 << 26) - 1)
    assert [p.psn for p in side.posted()] == list(range(window + 10, window + 36))
    assert not handle.done
    side.sack(cumulative=window + 35)
    assert handle.done and handle.ok
    assert side.endpoint.idle and side.endpoint.next_deadline() is None


def test_write_completes_when_every_psn_is_sacked_in_any_order() -> None:
    side = OneEndpoint()
    done: list[object] = []
    handle = side.endpoint.write(QP, bytes(4096), 0)
    handle.add_done_callback(done.append)
    side.posted()
    side.sack(cumulative=-1, bitmap=0b0110)  # PSNs 1, 2 (bit i = PSN cum + 1 + i)
    assert not handle.done
    side.sack(cumulative=3)
    assert handle.ok and done == [handle]
    handle.result()  # does not raise
    stats = side.endpoint.qp_stats(QP)
    assert (stats.writes_completed, stats.sacks, stats.retransmits) == (1, 2, 0)


def test_sack_offset_is_honoured() -> None:
    side = OneEndpoint()
    handle = side.endpoint.write(QP, bytes(3 * 1024), 0)
    side.posted()
    side.sack(cumulative=-1, bitmap=0b11, offset=2)  # bit 0 is PSN -1 + 2 = 1
    side.sack(cumulative=0, bitmap=0)
    assert handle.ok


def test_sack_for_psns_never_posted_is_ignored() -> None:
    side = OneEndpoint()
    handle = side.endpoint.write(QP, bytes(10), 0)
    side.sack(cumulative=5)
    assert not handle.done
    assert side.endpoint.qp_stats(QP).sacks_ignored == 1


# -- NACKs --------------------------------------------------------------------------------
@pytest.mark.parametrize("reason", [NACK_TRIMMED, NACK_TRIMMED_LASTHOP])
def test_trimmed_psn_is_retransmitted_at_once_with_its_psn(reason: int) -> None:
    side = OneEndpoint()
    side.endpoint.write(QP, bytes(range(256)) * 12, 0)
    original = writes(side.posted())[1]
    side.nack(1, reason)
    (again,) = writes(side.posted())
    assert again.retransmit and again.psn == 1
    assert (again.payload, again.virtual_addr, again.opcode) == (
        original.payload, original.virtual_addr, original.opcode)
    stats = side.endpoint.qp_stats(QP)
    assert (stats.retransmits, stats.retransmits_trimmed, stats.loss_reports) == (1, 1, 0)


def test_nack_for_an_acknowledged_psn_does_nothing() -> None:
    side = OneEndpoint()
    side.endpoint.write(QP, bytes(2048), 0)
    side.posted()
    side.sack(cumulative=0)
    side.nack(0, NACK_TRIMMED)
    assert side.posted() == []


@pytest.mark.parametrize("reason", [NACK_PSN_OUT_OF_WINDOW, NACK_NO_RESOURCE])
def test_out_of_window_is_retransmitted_when_the_window_moves(reason: int) -> None:
    side = OneEndpoint()
    side.endpoint.write(QP, bytes(3 * 1024), 0)
    side.posted()
    side.nack(2, reason)
    assert side.posted() == []  # later, not now
    side.sack(cumulative=0)
    (again,) = writes(side.posted())
    assert again.psn == 2 and again.retransmit
    stats = side.endpoint.qp_stats(QP)
    assert (stats.retransmits_deferred, stats.loss_reports) == (1, 0)


# -- timeouts -----------------------------------------------------------------------------
def test_timeout_reports_the_oldest_loss_then_retransmits_it() -> None:
    side = OneEndpoint(TransportConfig(rto=0.5))
    side.endpoint.write(QP, bytes(2048), 0)
    side.posted()
    assert side.endpoint.next_deadline() == 0.5
    side.clock.set(0.4)
    side.endpoint.on_timer()  # early: nothing
    assert side.posted() == []
    side.clock.set(0.5)
    side.endpoint.on_timer()
    posted = side.posted()
    # Loss report before the retransmission: the NIC looks up the EV that carried the
    # PSN, which the retransmission replaces (mrc-nic.md 3).
    # Only the oldest: PSN 1 may have arrived unreported (a SACK reports one word).
    kinds = [(type(p).__name__, p.psn) for p in posted]
    assert kinds == [("NackPacket", 0), ("WritePacket", 0)]
    report = posted[0]
    assert isinstance(report, NackPacket)
    assert (report.reason, report.nack_psn, report.dest_qp) == (NACK_HOST_LOSS_REPORT, 0, QP)
    assert all(p.retransmit for p in posted if isinstance(p, WritePacket))


def test_timeouts_back_off_after_fixed_retries_then_fail() -> None:
    config = TransportConfig(rto=1.0, fixed_retries=3, max_retries=6, max_rto=8.0)
    side = OneEndpoint(config)
    handle = side.endpoint.write(QP, b"x", 0)
    side.posted()
    waits = []
    last = 0.0
    while not handle.done:
        deadline = side.endpoint.next_deadline()
        waits.append(deadline - last)
        last = deadline
        side.timer()
    assert waits == [1.0, 1.0, 1.0, 1.0, 2.0, 4.0, 8.0]  # 3 fixed, doubling, capped
    assert not handle.ok and isinstance(handle.error, WriteError)
    assert "PSN 0" in str(handle.error) and "6 retransmissions" in str(handle.error)
    with pytest.raises(WriteError):
        handle.result()
    stats = side.endpoint.qp_stats(QP)
    assert (stats.timeouts, stats.retransmits_timeout, stats.loss_reports) == (6, 6, 6)
    assert stats.writes_failed == 1
    assert side.endpoint.next_deadline() is None
    later = side.endpoint.write(QP, b"y", 0)  # the QP is in error: fails at once
    assert later.done and later.error is handle.error


def test_progress_ends_the_backoff() -> None:
    side = OneEndpoint(TransportConfig(rto=1.0, fixed_retries=0, max_rto=100.0))
    side.endpoint.write(QP, bytes(2048), 0)
    side.timer()  # at 1: PSN 0 again
    side.timer()  # at 0 + 2 (backed off once): PSN 1 again
    assert side.endpoint.next_deadline() == pytest.approx(1.0 + 4.0)  # PSN 0, twice
    side.sack(cumulative=0)
    assert side.endpoint.next_deadline() == pytest.approx(2.0 + 1.0)  # PSN 1, plain RTO


def test_only_expired_transmissions_are_retransmitted() -> None:
    side = OneEndpoint(TransportConfig(rto=1.0))
    side.endpoint.write(QP, b"a", 0)
    side.clock.set(0.6)
    side.endpoint.write(QP, b"b", 0)
    side.posted()
    side.timer()  # at 1.0: PSN 0 only
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [
        ("NackPacket", 0), ("WritePacket", 0)]
    assert side.endpoint.next_deadline() == pytest.approx(1.6)


def test_trimmed_or_deferred_packets_are_not_reported_lost_on_timeout() -> None:
    side = OneEndpoint(TransportConfig(rto=1.0))
    side.endpoint.write(QP, b"a", 0)
    side.nack(0, NACK_PSN_OUT_OF_WINDOW)
    side.posted()
    side.timer()
    assert [type(p).__name__ for p in side.posted()] == ["WritePacket"]
    assert side.endpoint.qp_stats(QP).loss_reports == 0


# -- loss detection (host/rack.py) ------------------------------------------------------
def rack_side() -> OneEndpoint:
    """A QP whose smallest round trip is 10 ms (PSN 0), so its reordering window is a
    quarter of it, 2.5 ms (no allowance, no spread yet)."""
    side = OneEndpoint(TransportConfig(gap_threshold=1, mtu=1, rto=1.0,
                                       reorder_allowance=0))
    side.endpoint.write(QP, bytes(1), 0)
    side.posted()
    side.clock.advance(0.010)
    side.sack(cumulative=0, ev=0x7)
    return side


def send_at(side: OneEndpoint, when: float) -> None:
    side.clock.set(when)
    side.endpoint.write(QP, bytes(1), 0)
    side.posted()


def test_a_psn_shown_missing_is_lost_once_a_packet_sent_a_window_later_arrived() -> None:
    side = rack_side()
    send_at(side, 0.010)  # PSN 1
    send_at(side, 0.011)  # PSN 2: 1 ms later, within the 2.5 ms window
    send_at(side, 0.013)  # PSN 3: 3 ms after PSN 1
    side.clock.set(0.021)
    side.sack(cumulative=0, bitmap=0b10)  # 2 arrived, 1 missing: reordering
    assert side.posted() == []
    side.clock.set(0.023)
    side.sack(cumulative=0, bitmap=0b110)
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [("NackPacket", 1),
                                                                  ("WritePacket", 1)]
    stats = side.endpoint.qp_stats(QP)
    assert (stats.retransmits_gap, stats.loss_reports, stats.timeouts) == (1, 1, 0)


def test_a_retransmission_is_judged_on_its_own_send_time() -> None:
    side = rack_side()
    send_at(side, 0.010)  # PSN 1, lost
    send_at(side, 0.013)  # PSN 2
    side.clock.set(0.023)
    side.sack(cumulative=0, bitmap=0b10)
    assert [p.psn for p in side.posted()] == [1, 1]  # report + retransmission at 23 ms
    send_at(side, 0.024)  # PSN 3, 1 ms after the retransmission
    send_at(side, 0.026)  # PSN 4, 3 ms after it
    side.clock.set(0.034)
    side.sack(cumulative=0, bitmap=0b110)
    assert side.posted() == []  # the retransmission may still be on its way
    side.clock.set(0.036)
    side.sack(cumulative=0, bitmap=0b1110)
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [("NackPacket", 1),
                                                                  ("WritePacket", 1)]


def test_a_spurious_retransmission_widens_the_reordering_window() -> None:
    side = rack_side()
    send_at(side, 0.010)  # PSN 1: only late
    send_at(side, 0.013)
    side.clock.set(0.023)
    side.sack(cumulative=0, bitmap=0b10)
    assert [p.psn for p in side.posted()] == [1, 1]  # taken for lost
    side.clock.set(0.024)  # 1 ms after the retransmission: the first copy arrived
    side.sack(cumulative=2, psn=1)
    sender = side.endpoint.sender(QP)
    assert side.endpoint.qp_stats(QP).spurious_retransmits == 0  # not known yet
    assert sender.rack.min_rtt == pytest.approx(0.010)  # no sample from it
    side.clock.set(0.030)  # the retransmission arrives too: the NIC's duplicate SACK
    side.sack(cumulative=2, psn=1)
    assert side.endpoint.qp_stats(QP).spurious_retransmits == 1
    assert sender.rack.reorder == pytest.approx(2 * 0.0025)
    side.sack(cumulative=2, psn=1)  # the same copy's SACK again counts once
    assert side.endpoint.qp_stats(QP).spurious_retransmits == 1


def test_a_retransmission_acknowledged_fast_without_a_duplicate_is_not_spurious() -> None:
    """Queues drain after a failure: the retransmission may come back faster than
    the smallest round trip seen under load, yet the first copy was lost."""
    side = rack_side()
    send_at(side, 0.010)  # PSN 1: lost
    send_at(side, 0.013)
    side.clock.set(0.023)
    side.sack(cumulative=0, bitmap=0b10)
    assert [p.psn for p in side.posted()] == [1, 1]
    side.clock.set(0.024)  # 1 ms after the retransmission, its own SACK
    side.sack(cumulative=2, psn=1)
    side.clock.set(0.030)
    send_at(side, 0.030)  # PSN 3, acknowledged normally: no copy of 1 ever again
    side.clock.set(0.040)
    side.sack(cumulative=3, psn=3)
    sender = side.endpoint.sender(QP)
    assert side.endpoint.qp_stats(QP).spurious_retransmits == 0
    assert sender.rack.reorder == pytest.approx(0.0025)


def test_a_psn_the_sack_does_not_cover_is_not_declared_lost() -> None:
    """The NIC reports one 64-PSN word per SACK: a PSN outside it (here between the
    cumulative PSN + 1 and the bitmap's start) may have arrived."""
    side = rack_side()
    for when in (0.010, 0.0101, 0.0102):  # PSNs 1, 2, 3
        send_at(side, when)
    send_at(side, 0.020)  # PSN 4, long after
    side.clock.set(0.030)
    side.sack(cumulative=0, bitmap=0b1, offset=4)  # 4 arrived; 1 missing; 2, 3 unknown
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [("NackPacket", 1),
                                                                  ("WritePacket", 1)]


def test_reordering_within_the_window_is_not_a_loss() -> None:
    side = rack_side()
    side.endpoint.write(QP, bytes(3), 0)  # PSNs 1, 2, 3 at t = 10 ms
    side.posted()
    side.clock.advance(0.011)  # 2 and 3 arrive after 11 ms, before 1
    side.sack(cumulative=0, bitmap=0b110, psn=3)
    assert side.posted() == []
    # A probe is due at PSN 1's deadline: its send time + the recent round trip
    # (11 ms, the largest) + the window (2.5 ms + the 1 ms spread of round trips).
    assert side.endpoint.next_deadline() == pytest.approx(0.010 + 0.011 + 0.0035)
    side.sack(cumulative=3)  # the late PSN 1 fills the hole
    assert side.posted() == []
    stats = side.endpoint.qp_stats(QP)
    assert (stats.retransmits_gap, stats.loss_reports, stats.state_probes) == (0, 0, 0)


def test_an_overtaken_psn_is_asked_about_by_a_probe_at_its_deadline() -> None:
    side = rack_side()
    side.endpoint.write(QP, bytes(3), 0)
    side.posted()
    side.clock.advance(0.011)
    side.sack(cumulative=0, bitmap=0b110, ev=0x20005, psn=3)
    assert side.posted() == []
    side.timer()  # PSN 1's deadline, long before the 1 s timeout
    assert side.clock.now() == pytest.approx(0.0245)
    probes = side.posted()
    assert [(type(p).__name__, p.sport << 16 | p.flow_label, p.psn) for p in probes] == [
        ("ProbePacket", 0x20005, 1)]  # on the EV of the latest data SACK, naming PSN 1
    side.clock.advance(0.010)
    side.sack(cumulative=0, bitmap=0b110, pr=SACK_PR_PROBE, ev=0x20005, psn=1)  # missing
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [("NackPacket", 1),
                                                                  ("WritePacket", 1)]
    stats = side.endpoint.qp_stats(QP)
    assert (stats.state_probes, stats.timeouts) == (1, 0)


# -- probes -------------------------------------------------------------------------------
def test_probe_carries_the_ev_and_its_answer_is_reported() -> None:
    answers: list[tuple[int, int]] = []
    side = OneEndpoint(on_probe_answer=lambda qp, ev: answers.append((qp, ev)))
    ev = 0x2003_0105
    probe_id = side.endpoint.probe(QP, ev)
    (probe,) = side.posted()
    assert isinstance(probe, ProbePacket)
    assert (probe.sport, probe.flow_label & 0xFFFF) == (0x2003, 0x0105)
    assert (probe.probe_id, probe.dest_qp, probe.src_conn_id) == (probe_id, QP, QP)
    side.sack(cumulative=-1, pr=SACK_PR_PROBE, ev=ev)
    assert answers == [(QP, ev)]
    stats = side.endpoint.qp_stats(QP)
    assert (stats.probes_sent, stats.probe_answers) == (1, 1)


def test_writes_and_probes_need_a_peer_and_an_open_qp() -> None:
    side = OneEndpoint()
    side.endpoint.open_qp(9)  # receive only
    with pytest.raises(ValueError, match="without a peer"):
        side.endpoint.write(9, b"x", 0)
    with pytest.raises(KeyError):
        side.endpoint.write(10, b"x", 0)
    with pytest.raises(ValueError):
        side.endpoint.write(QP, b"x", -1)
    with pytest.raises(ValueError):
        side.endpoint.probe(QP, 1 << 32)


def test_next_deadline_is_the_earliest_over_the_qps() -> None:
    side = OneEndpoint(TransportConfig(rto=1.0))
    side.endpoint.open_qp(6, PEER)
    side.clock.set(0.5)
    side.endpoint.write(6, b"later", 0)
    side.clock.set(0.7)
    side.endpoint.write(QP, b"latest", 0)
    assert side.endpoint.next_deadline() == 1.5
    side.posted()
    side.timer()  # QP 6 only
    assert [(p.dest_qp, type(p).__name__) for p in side.posted()] == [
        (6, "NackPacket"), (6, "WritePacket")]
    assert side.endpoint.next_deadline() == pytest.approx(1.7)
    side.sack(cumulative=0)
    side.sack(cumulative=0, qp=6)
    assert side.endpoint.idle and side.endpoint.next_deadline() is None
