"""Loss detection for one QP: time-based (RACK, RFC 8985) and evidence-based, adapted
to sprayed paths and to SACKs that report 64 PSNs of a larger window
(docs/congestion-and-loss.md).

A SACK tells two things about a PSN: acknowledged (at or below the cumulative PSN,
or a one in the bitmap), or *shown missing* (the PSN just above the cumulative one,
or a zero in the bitmap). Every other PSN in flight is unknown: the NIC reports
one 64-PSN word per SACK, so a PSN that arrived may stay unreported until the holes
below it are filled. A transmission is lost when a SACK shows its PSN missing and
that SACK's *evidence time* is at least the reordering window after the
transmission: the evidence time is the latest send time of what the SACK
acknowledged for the first time (those arrived before the SACK was made), or, for
the answer to a probe, the probe's send time moved back by how much faster than a recent
data packet the probe went there and back (a probe is a small control packet that a
full data packet behind it cannot catch: seen with a T0-T1 link down on 8 planes, a
probe's round trip was 4 us against 11.8 us for the fastest data, and its answer took
six data packets sent 8 us before it, one per plane, for lost). So "a packet sent a
reordering window later arrived first" [RFC 8985], judged only on what the receiver
showed.

Round trips are measured only on the packet that made the SACK (its BTH PSN): the
others it acknowledges may have arrived long before, unreported. The reordering
window is ``reorder_window`` of the smallest round trip, plus ``reorder_allowance``
(the jitter of busy processes, not proportional to anything), plus the spread of the
recent round trips (the largest of the last ``RTT_HISTORY`` smallest round trips
minus the smallest: how much one path's delay can exceed another's). It widens by as much
again each time a retransmission turns out to have been spurious, up to
``max_reorder_steps`` times; RFC 8985 section 6.2 does the same with DSACKs. The
receiver's duplicate SACK is our DSACK: the NIC answers every copy of a PSN it
already has at once, with that PSN as the SACK's trigger, so a SACK triggered by a
retransmitted PSN that was already acknowledged shows two copies arrived [ours]. A
retransmission acknowledged faster than the smallest round trip is no such proof (the
retransmission may simply have met emptier queues, e.g. after a failure stopped
the traffic): its time is only no round-trip sample.

A transmission that a later one overtook but no SACK has shown missing (its word is
not reported, or no SACK came since: the tail) is asked about: at its deadline (its
send time + the recent round trip + the window; the recent round trip is the
largest of the last ``RTT_HISTORY`` smallest round trips, as queues grow) the sender
posts a probe naming its PSN, whose answer reports the receiver's word holding that
PSN, made after the deadline (host/sender.py keeps at most ``OUTSTANDING_PROBES``
unanswered).
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

__all__ = ["RTT_HISTORY", "Rack", "Transmission"]

RTT_HISTORY = 8  # the recent round trips: those of the last 8 smallest ones [ours]


class Transmission(Protocol):
    """What RACK reads of an unacknowledged PSN: its latest transmission."""

    sent_at: float
    tx_seq: int
    first_tx_seq: int


class Rack:
    """The QP's round trips and reordering window."""

    def __init__(self, reorder_window: float, reorder_allowance: float,
                 max_reorder_steps: int) -> None:
        self.reorder_window = reorder_window
        self.reorder_allowance = reorder_allowance
        self.max_reorder_steps = max_reorder_steps
        self.min_rtt: float | None = None
        self.tx_seq = 0  # latest-sent acknowledged transmission (0: none yet)
        self.steps = 1  # the reordering window's multiple
        self.spurious = 0  # retransmissions found spurious
        # (time, round trip) of recent samples, round trips decreasing: the first is
        # the largest of the history (a monotonic queue)
        self._recent: deque[tuple[float, float]] = deque()

    @property
    def recent_rtt(self) -> float:
        """The largest round trip of the recent history (0 before the first)."""
        return self._recent[0][1] if self._recent else 0.0

    @property
    def reorder(self) -> float:
        """The reordering window, in seconds."""
        min_rtt = self.min_rtt or 0.0
        spread = max(0.0, self.recent_rtt - min_rtt)
        return (min_rtt * self.reorder_window + self.reorder_allowance + spread) \
            * self.steps

    def deadline(self, sent: Transmission) -> float:
        """When ``sent`` should have been acknowledged, reordering included."""
        return sent.sent_at + self.recent_rtt + self.reorder

    def on_acked(self, sent: Transmission, now: float, trigger: bool) -> float | None:
        """``sent`` was acknowledged now (``trigger``: by the SACK it caused); returns
        the time since it was sent, or None when the acknowledgement may answer an
        earlier transmission of the PSN (then it is no evidence of what arrived
        when). Only a trigger's time is a round-trip sample."""
        rtt = now - sent.sent_at
        retransmitted = sent.tx_seq != sent.first_tx_seq
        if retransmitted and (self.min_rtt is None or rtt < self.min_rtt):
            return None  # faster than any round trip: it may answer an earlier copy
        if sent.tx_seq > self.tx_seq:
            self.tx_seq = sent.tx_seq
        if not trigger:
            return rtt
        if self.min_rtt is None or rtt < self.min_rtt:
            self.min_rtt = rtt
        recent = self._recent
        while recent and recent[-1][1] <= rtt:
            recent.pop()
        recent.append((now, rtt))
        horizon = now - RTT_HISTORY * self.min_rtt
        while recent[0][0] < horizon:
            recent.popleft()
        return rtt

    def on_spurious(self) -> None:
        """A retransmission turned out to be spurious (its PSN arrived twice): widen
        the reordering window by one more step."""
        self.spurious += 1
        self.steps = min(self.steps + 1, self.max_reorder_steps)

    def probe_evidence(self, probe_sent_at: float, now: float) -> float:
        """The evidence time of a probe's answer that arrives ``now``: the probe's
        send time, less what its round trip was shorter than a recent data one. A
        data packet sent at s arrives at s + (rtt - r/2), the probe at its send time
        + r/2 (r: its round trip, the answer's way back as long as a SACK's): the
        data missing then is overdue only if sent before the probe's send time -
        (rtt - r). A probe travels at the control priority and jumps the data queues,
        so rtt is the recent round trip (the largest of the last smallest ones), not
        the smallest: after a failure moves traffic, queued data is not lost."""
        lead = self.recent_rtt - (now - probe_sent_at)
        return probe_sent_at - max(0.0, lead)

    def lost(self, sent: Transmission, evidence: float) -> bool:
        """Is ``sent``, shown missing by a SACK of evidence time ``evidence``, lost?"""
        return sent.tx_seq < self.tx_seq and sent.sent_at + self.reorder <= evidence
