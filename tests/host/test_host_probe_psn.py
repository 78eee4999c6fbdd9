"""State probes that name a PSN (host/sender.py, host/rack.py): each overtaken
transmission is asked about at its own deadline by a probe naming its PSN, whose answer
reports that PSN's window word (docs/mrc-nic.md 4.2, docs/congestion-and-loss.md)."""

from __future__ import annotations

import pytest
from host_harness import OneEndpoint
from test_host_rack import probed_side
from test_host_sender import QP, rack_side, send_at

from protocol.constants import SACK_PR_PROBE


def kinds(side: OneEndpoint) -> list[tuple[str, int]]:
    return [(type(p).__name__, p.psn) for p in side.posted()]


def two_words_side() -> OneEndpoint:
    """Smallest round trip 10 ms, window 2.5 ms. PSN 1 is sent at 10 ms, PSNs 2 to 65
    at 11 ms, 66 and 67 at 12 ms. A SACK shows 2 to 65 (made by 65, at 21 ms), one
    shows 67 (at 22 ms): 1 and 66 are overtaken and unknown (no SACK showed them
    missing). Every round trip is 10 ms: deadlines 10 + 10 + 2.5 = 22.5 ms for PSN 1,
    24.5 ms for PSN 66; a probe not answered is repeated 12.5 ms later."""
    side = rack_side()
    send_at(side, 0.010)
    side.clock.set(0.011)
    side.endpoint.write(QP, bytes(64), 0)
    send_at(side, 0.012)
    send_at(side, 0.012)
    side.posted()
    side.clock.set(0.021)
    side.sack(cumulative=0, offset=2, bitmap=(1 << 64) - 1, psn=65, ev=0x7)
    side.clock.set(0.022)
    side.sack(cumulative=0, offset=67, bitmap=1, psn=67, ev=0x7)
    assert side.posted() == []
    return side


def test_each_overtaken_psn_is_asked_about_at_its_own_deadline() -> None:
    side = two_words_side()
    side.timer()
    assert side.clock.now() == pytest.approx(0.0225)
    assert kinds(side) == [("ProbePacket", 1)]
    # The answer after 1 ms: PSN 1 missing, evidence 22.5 - (10 - 1) = 13.5 ms
    side.clock.set(0.0235)
    side.sack(cumulative=0, bitmap=0b10, pr=SACK_PR_PROBE, psn=1, ev=0x7)
    assert kinds(side) == [("NackPacket", 1), ("WritePacket", 1)]
    # PSN 66's own deadline, not one round trip and window after the last probe
    side.timer()
    assert side.clock.now() == pytest.approx(0.0245)
    assert kinds(side) == [("ProbePacket", 66)]
    # Its word: 66 missing, 67 there; evidence 24.5 - 9 = 15.5 ms >= 12 + 2.5
    side.clock.set(0.0255)
    side.sack(cumulative=0, offset=66, bitmap=0b10, pr=SACK_PR_PROBE, psn=66, ev=0x7)
    assert kinds(side) == [("NackPacket", 66), ("WritePacket", 66)]
    assert side.endpoint.qp_stats(QP).state_probes == 2


def test_a_probe_not_answered_is_repeated_a_round_trip_and_window_later() -> None:
    side = two_words_side()
    side.timer()
    side.timer()
    assert kinds(side) == [("ProbePacket", 1), ("ProbePacket", 66)]
    assert side.endpoint.next_deadline() == pytest.approx(0.0225 + 0.0125)
    side.timer()
    assert kinds(side) == [("ProbePacket", 1)]


def test_the_psn_a_probe_names_is_no_round_trip_sample() -> None:
    side = probed_side()  # round trips 10 and 10.5 ms; the probe named PSN 1 at 23.5
    side.clock.set(0.0245)
    # PSN 1 arrived after all, 14.5 ms after it was sent: the answer acknowledges it,
    # but its BTH PSN is the probe's, not a data packet's
    side.sack(cumulative=2, pr=SACK_PR_PROBE, psn=1)
    rack = side.endpoint.sender(QP).rack
    assert (rack.min_rtt, rack.recent_rtt) == (pytest.approx(0.010), pytest.approx(0.0105))


def test_a_probe_names_the_first_psn_not_acknowledged_by_default() -> None:
    side = rack_side()  # PSN 0 acknowledged
    send_at(side, 0.010)
    side.endpoint.probe(QP, 0x7)
    assert kinds(side) == [("ProbePacket", 1)]
