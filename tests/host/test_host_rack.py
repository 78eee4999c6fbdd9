"""RACK's evidence from a state probe's answer (host/rack.py): a probe is a small packet
that overtakes full data packets sent shortly before it, so its answer is evidence only
for what was sent before it by more than the probe's lead (docs/congestion-and-loss.md)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from host_harness import OneEndpoint
from test_host_sender import rack_side, send_at

from host.codec import NackPacket, WritePacket
from host.rack import Rack
from protocol.constants import SACK_PR_PROBE


@dataclass
class _Sent:
    sent_at: float
    tx_seq: int
    first_tx_seq: int


@pytest.mark.parametrize(("round_trips", "probe_rtt", "evidence"), [
    ((), 0.001, 0.100),              # no round trip yet: nothing to compare with
    ((0.010,), 0.010, 0.100),        # as slow as data: its send time
    ((0.010,), 0.015, 0.100),        # slower than data: its send time, never later
    ((0.010,), 0.004, 0.094),        # 6 ms faster than data: 6 ms earlier
    # Queues grew (round trips 10 then 14 ms): data sent 10 ms before the probe may
    # still be queued where the probe, at the control priority, went past it; the
    # lead is measured from the recent round trip, 14 ms, not the smallest.
    ((0.010, 0.014), 0.004, 0.090),
])
def test_probe_evidence_moves_back_by_the_probes_lead(
        round_trips: tuple[float, ...], probe_rtt: float, evidence: float) -> None:
    rack = Rack(reorder_window=0.25, reorder_allowance=0.0, max_reorder_steps=4)
    now = 0.0
    for seq, rtt in enumerate(round_trips, start=1):
        now += 0.001
        rack.on_acked(_Sent(now - rtt, seq, seq), now, trigger=True)
    assert rack.probe_evidence(0.100, 0.100 + probe_rtt) == pytest.approx(evidence)


def probed_side() -> OneEndpoint:
    """Smallest round trip 10 ms, window 3 ms (2.5 + the 0.5 ms spread). PSN 1 is
    overtaken by PSN 2 (both sent at 10 ms, 2 acknowledged at 20.5 ms); PSNs 3 and 4
    are sent at 20 ms; the probe for PSN 1 leaves at its deadline, 10 + 10.5 + 3 =
    23.5 ms."""
    side = rack_side()
    for when in (0.010, 0.010, 0.020, 0.020):  # PSNs 1 to 4
        send_at(side, when)
    side.clock.set(0.0205)
    side.sack(cumulative=0, bitmap=0b10, psn=2, ev=0x7)
    assert side.posted() == []
    side.timer()
    assert side.clock.now() == pytest.approx(0.0235)
    assert [(type(p).__name__, p.psn) for p in side.posted()] == [("ProbePacket", 1)]
    return side


def lost_psns(side: OneEndpoint) -> list[int]:
    posted = side.posted()
    reported = [p.psn for p in posted if isinstance(p, NackPacket)]
    assert reported == [p.psn for p in posted if isinstance(p, WritePacket)]
    return reported


def test_a_fast_probes_answer_takes_no_packet_it_overtook_for_lost() -> None:
    side = probed_side()
    side.clock.set(0.0245)  # the answer after 1 ms; data takes 10 ms at best
    # 2 and 4 arrived, 1 and 3 not: 4 overtook 3, but was sent with it (data
    # evidence 20 ms), and the probe's evidence is 23.5 - (10 - 1) = 14.5 ms: PSN 1
    # (10 + 3 <= 20) is lost; PSN 3, sent 3.5 ms before the probe, may still be on
    # its way behind it.
    side.sack(cumulative=0, bitmap=0b1010, pr=SACK_PR_PROBE, psn=1)
    assert lost_psns(side) == [1]


def test_a_probe_as_slow_as_data_is_evidence_from_its_send_time() -> None:
    side = probed_side()
    side.clock.set(0.0335)  # the answer after 10 ms, as data
    side.sack(cumulative=0, bitmap=0b1010, pr=SACK_PR_PROBE, psn=1)
    assert lost_psns(side) == [1, 3]  # 20 + 3 <= 23.5: PSN 3 too
