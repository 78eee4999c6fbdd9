"""NSCC (host/nscc.py) on UEC's reference network (100 Gb/s, 12 us: BDP 150,000 bytes,
so every gain is its public default): one test per quadrant of (ECN) x (delay vs
target), the receiver's window penalty, fast increase, trims and losses; and the
sender keeping its bytes in flight under the window."""

from __future__ import annotations

import pytest
from host_harness import PEER, QP, OneEndpoint

from host.config import TransportConfig
from host.nscc import NicWire, Nscc, NsccConfig

MTU = 4096
BASE = 12e-6
TARGET = 0.75 * BASE  # 9 us
CONFIG = NsccConfig(line_rate_gbps=100, base_rtt_us=12)


def window(cwnd: float | None = None) -> Nscc:
    """A window at the reference network, shrunk to ``cwnd`` (below its 225,000-byte
    ceiling, so it can grow)."""
    cc = Nscc(CONFIG, MTU, now=0.0)
    assert cc.max_window == pytest.approx(225_000)
    if cwnd is not None:
        cc.on_loss(int(cc.cwnd - cwnd))
        assert cc.cwnd == pytest.approx(cwnd)
    return cc


def ack_many(cc: Nscc, *, marked: bool, delay: float, count: int = 12,
             now: float = 5e-6) -> None:
    for _ in range(count):
        cc.on_ack(MTU, marked, BASE + delay, in_flight=100_000, now=now)


def test_no_ecn_and_low_delay_increases_proportionally() -> None:
    cc = window(100_000)
    ack_many(cc, marked=False, delay=3e-6)  # above "clear", below the target
    assert cc.cwnd > 100_000
    assert cc.decreases == 0


def test_no_ecn_and_high_delay_increases_fairly_whatever_the_window() -> None:
    """Fair increase adds the same bytes to every window (each competing QP converges
    to its share), where proportional increase depends on the delay."""
    small, large = window(50_000), window(100_000)
    ack_many(small, marked=False, delay=20e-6)
    ack_many(large, marked=False, delay=20e-6)
    assert small.cwnd - 50_000 > large.cwnd - 100_000 > 0
    assert small.decreases == large.decreases == 0


def test_ecn_and_low_delay_holds_the_window() -> None:
    cc = window(100_000)
    ack_many(cc, marked=True, delay=3e-6)
    assert cc.cwnd == pytest.approx(100_000)
    assert cc.decreases == 0


def test_ecn_and_high_delay_decreases_by_the_delay_excess() -> None:
    cc = window(100_000)
    # Two base RTTs after the start: the average delay is the sample (20 us); the
    # adjustment period has passed too, which adds eta (0.15 MTU).
    cc.on_ack(MTU, True, BASE + 20e-6, in_flight=100_000, now=2 * BASE)
    factor = 1 - 0.8 * (20e-6 - TARGET) / 20e-6  # 0.56, above max_md_jump (0.5)
    assert cc.cwnd == pytest.approx(100_000 * factor + 0.15 * MTU)
    assert cc.decreases == 1
    cc.on_ack(MTU, True, BASE + 20e-6, in_flight=100_000, now=2 * BASE + 1e-6)
    assert cc.decreases == 1  # at most once per base round trip


def test_a_huge_delay_cuts_at_most_by_max_md_jump() -> None:
    cc = window(100_000)
    cc.on_ack(MTU, True, BASE + 500e-6, in_flight=100_000, now=2 * BASE)
    assert cc.cwnd == pytest.approx(50_000 + 0.15 * MTU)


def test_the_receivers_penalty_caps_and_shrinks_the_window() -> None:
    cc = window(100_000)
    cc.on_ack(MTU, False, BASE, in_flight=60_000, now=5e-6, penalty=64)
    assert cc.cwnd == pytest.approx(60_000 - 64 * MTU / 128)
    no_penalty = window(100_000)
    no_penalty.on_ack(MTU, False, BASE, in_flight=60_000, now=5e-6)
    assert no_penalty.cwnd >= 100_000


def test_fast_increase_after_a_whole_window_at_zero_delay() -> None:
    cc = window(40_000)
    for _ in range(16):  # more than a window's worth (which grows meanwhile)
        cc.on_ack(MTU, False, BASE, in_flight=40_000, now=5e-6)
    before = cc.cwnd
    cc.on_ack(MTU, False, BASE, in_flight=40_000, now=5e-6)
    assert cc.cwnd == pytest.approx(before + 0.25 * MTU)  # fast_increase_scale x bytes


def test_trims_and_losses_shrink_the_window() -> None:
    cc = window(100_000)
    cc.on_loss(MTU)
    assert cc.cwnd == pytest.approx(100_000 - MTU)
    cc.on_trim(MTU, in_flight=90_000, now=1e-6)
    assert cc.cwnd < 100_000 - MTU
    floor = window()
    floor.on_loss(10**9)
    assert floor.cwnd == MTU  # never below one packet


def test_a_smaller_round_trip_lowers_the_base_and_the_ceiling() -> None:
    cc = window()
    cc.on_ack(MTU, False, 6e-6, in_flight=0, now=1e-6)
    assert cc.base_rtt == pytest.approx(6e-6)
    assert cc.max_window == pytest.approx(1.5 * 12.5e9 * 6e-6)
    assert cc.cwnd <= cc.max_window


def test_the_sender_keeps_its_bytes_in_flight_under_the_window() -> None:
    config = TransportConfig(mtu=1000, cc="nscc", nscc=NsccConfig(
        line_rate_gbps=8, base_rtt_us=10))  # BDP 10,000 bytes: a 15,000-byte window
    side = OneEndpoint(config)
    side.endpoint.write(QP, bytes(100_000), 0)
    sender = side.endpoint.sender(QP)
    assert len(side.posted()) == 15
    assert sender.bytes_in_flight == 15_000
    # PSN 4 left the NIC after 4 others (about 1,134 bytes each on the wire at 1 GB/s):
    # back a base round trip later.
    side.clock.advance(4 * 1.2e-6 + 10e-6)
    side.sack(cumulative=4, psn=4)
    assert sender.bytes_in_flight <= sender.cc.cwnd
    assert len(side.posted()) >= 5


def test_the_nic_wire_sends_what_is_posted_at_once_one_packet_after_another() -> None:
    wire = NicWire(line_rate_gbps=8)  # 1 byte per ns
    assert wire.departure(1000, now=0.0) == 0.0
    assert wire.departure(1000, now=0.0) == pytest.approx(1e-6)  # behind the first
    assert wire.departure(1000, now=5e-6) == 5e-6  # the queue drained meanwhile


def test_the_qps_of_one_nic_share_its_transmit_queue() -> None:
    """A QP's round trip starts when its packet leaves the NIC: a second QP's first
    window waits behind the first QP's on the same wire, which is no network delay.
    Timed from its own post, it would show 15 packets' worth (17 us) of queueing."""
    config = TransportConfig(mtu=1000, cc="nscc", nscc=NsccConfig(
        line_rate_gbps=8, base_rtt_us=10))  # a 15,000-byte window each
    side = OneEndpoint(config)
    other = QP + 1
    side.endpoint.open_qp(other, PEER)
    side.endpoint.write(QP, bytes(15_000), 0)
    side.endpoint.write(other, bytes(15_000), 0)
    assert len(side.posted()) == 30
    # the other QP's PSN 0 leaves after QP's 15 packets (about 1,134 bytes each at
    # 1 GB/s) and its SACK is back one base round trip later
    side.clock.advance(15 * 1.134e-6 + 10e-6)
    side.sack(cumulative=0, psn=0, qp=other)
    assert side.endpoint.sender(other).cc.avg_delay < 1e-6


def test_the_last_packet_the_window_lets_out_asks_for_a_sack() -> None:
    """The receiver coalesces several new packets per SACK; a congestion window
    smaller than that (an incast's fair share) would wait for the timeout, so the
    packet after which the window is full carries AckReq (sender.py)."""
    config = TransportConfig(mtu=1000, cc="nscc", nscc=NsccConfig(
        line_rate_gbps=8, base_rtt_us=10))  # a 15,000-byte window
    side = OneEndpoint(config)
    side.endpoint.write(QP, bytes(100_000), 0)
    packets = side.posted()
    assert [p.ack_req for p in packets] == [False] * 14 + [True]
    sender = side.endpoint.sender(QP)
    sender.cc.cwnd = 2_500.0  # an incast's share: fewer packets than a SACK coalesces
    side.clock.advance(30e-6)
    side.sack(cumulative=14, psn=14)
    assert [p.ack_req for p in side.posted()] == [False, True]


def test_cc_none_sends_the_whole_psn_window() -> None:
    side = OneEndpoint(TransportConfig(mtu=1000, window=40))
    side.endpoint.write(QP, bytes(100_000), 0)
    packets = side.posted()
    assert len(packets) == 40
    assert not any(p.ack_req for p in packets)  # no congestion window to close
    assert side.endpoint.sender(QP).cc is None


def test_bad_congestion_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="cc"):
        TransportConfig(cc="cubic")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        NsccConfig(gamma=2)
