"""Probes name a PSN in their BTH (host/sender.py, docs/mrc-nic.md 4.2): the first PSN
not acknowledged unless told otherwise; the answer echoes it, and is no round-trip
sample."""

from __future__ import annotations

import pytest
from host_harness import OneEndpoint
from test_host_rack import probed_side
from test_host_sender import QP, rack_side, send_at

from protocol.constants import SACK_PR_PROBE


def kinds(side: OneEndpoint) -> list[tuple[str, int]]:
    return [(type(p).__name__, p.psn) for p in side.posted()]


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
