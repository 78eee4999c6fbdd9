"""The reordering window's queue allowance (host/rack.py): with NSCC, a path queued
for less than half NSCC's target delay is congested, not lossy, even before any
round trip measured that queue."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from host_harness import QP, OneEndpoint

from host.config import TransportConfig
from host.nscc import NsccConfig
from host.rack import QUEUE_ALLOWANCE_SHARE, Rack


def sent(at: float, seq: int) -> SimpleNamespace:
    return SimpleNamespace(sent_at=at, tx_seq=seq, first_tx_seq=seq)


def test_the_queue_allowance_is_the_least_spread_of_round_trips() -> None:
    rack = Rack(0.25, 0.0, 16, queue_allowance=0.004)
    rack.on_acked(sent(0.0, 1), 0.010, trigger=True)  # smallest round trip 10 ms
    assert rack.reorder == pytest.approx(0.0025 + 0.004)  # no spread measured yet
    rack.on_acked(sent(0.001, 2), 0.013, trigger=True)  # 12 ms: spread 2 ms < 4 ms
    assert rack.reorder == pytest.approx(0.0025 + 0.004)
    rack.on_acked(sent(0.002, 3), 0.022, trigger=True)  # 20 ms: spread 10 ms
    assert rack.reorder == pytest.approx(0.0025 + 0.010)


def test_a_packet_queued_within_the_allowance_is_not_lost_one_later_is() -> None:
    rack = Rack(0.25, 0.0, 16, queue_allowance=0.004)
    rack.on_acked(sent(0.0, 1), 0.010, trigger=True)
    late = sent(0.010, 2)
    rack.on_acked(sent(0.015, 3), 0.026, trigger=False)  # sent 5 ms after it
    assert not rack.lost(late, evidence=0.015)  # within 6.5 ms: queued, not lost
    rack.on_acked(sent(0.017, 4), 0.028, trigger=False)
    assert rack.lost(late, evidence=0.017)  # 7 ms later arrived first: lost


def test_the_sender_allows_half_the_nscc_target_and_nothing_without_nscc() -> None:
    nscc = OneEndpoint(TransportConfig(cc="nscc", nscc=NsccConfig(line_rate_gbps=80,
                                                                  base_rtt_us=13)))
    sender = nscc.endpoint.sender(QP)
    assert sender.cc is not None
    assert sender.rack.queue_allowance == pytest.approx(
        QUEUE_ALLOWANCE_SHARE * 0.75 * 13e-6)
    assert sender.rack.queue_allowance == pytest.approx(
        QUEUE_ALLOWANCE_SHARE * sender.cc.target)
    plain = OneEndpoint(TransportConfig())
    assert plain.endpoint.sender(QP).rack.queue_allowance == 0.0
