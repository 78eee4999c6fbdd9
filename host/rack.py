"""Time-based loss detection for one QP (RACK, RFC 8985, adapted to sprayed paths;
docs/congestion-and-loss.md).

Every transmission (first or retransmission) has a send time and a transmission
order. A transmission is lost once a transmission sent after it has been
acknowledged and it has been out for the round trip of that later one plus a
reordering window: sprayed packets cross paths of different lengths and queues, so
"a later one arrived first" alone is not loss. The window is ``reorder_window`` of
the smallest round trip plus ``reorder_allowance`` (the jitter of busy processes,
not proportional to anything), and it widens by that much again each time a
retransmission turns out to have been spurious (its SACK came back faster than any
round trip could: it answered the earlier transmission), up to ``max_reorder_steps``
times; RFC 8985 section 6.2 does the same with DSACKs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

__all__ = ["Rack", "Transmission"]


class Transmission(Protocol):
    """What RACK reads of an unacknowledged PSN: its latest transmission."""

    sent_at: float
    tx_seq: int
    first_tx_seq: int
    deferred: bool
    later_acked: int  # transmissions sent after it and acknowledged since


class Rack:
    """The QP's RACK state."""

    def __init__(self, reorder_window: float, reorder_allowance: float,
                 max_reorder_steps: int) -> None:
        self.reorder_window = reorder_window
        self.reorder_allowance = reorder_allowance
        self.max_reorder_steps = max_reorder_steps
        self.min_rtt: float | None = None
        self.rtt = 0.0  # round trip of the latest-sent acknowledged transmission
        self.tx_seq = 0  # its transmission order (0: nothing acknowledged yet)
        self.steps = 1  # the reordering window's multiple
        self.spurious = 0  # retransmissions found spurious

    @property
    def reorder(self) -> float:
        """The reordering window, in seconds."""
        base = (self.min_rtt or 0.0) * self.reorder_window + self.reorder_allowance
        return base * self.steps

    def on_acked(self, sent: Transmission, now: float) -> float | None:
        """``sent`` was acknowledged now; returns its round trip, or None when the
        acknowledgement may answer an earlier transmission of the PSN."""
        rtt = now - sent.sent_at
        retransmitted = sent.tx_seq != sent.first_tx_seq
        if retransmitted and self.min_rtt is not None and rtt < self.min_rtt:
            # Faster than any round trip: the earlier transmission arrived after all.
            self.spurious += 1
            self.steps = min(self.steps + 1, self.max_reorder_steps)
            return None
        if not retransmitted and (self.min_rtt is None or rtt < self.min_rtt):
            self.min_rtt = rtt
        if sent.tx_seq > self.tx_seq:
            self.tx_seq = sent.tx_seq
            self.rtt = rtt
        return None if retransmitted else rtt

    def detect(self, in_flight: Iterable[Transmission], now: float,
               threshold: int) -> tuple[list[Transmission], float | None]:
        """The transmissions lost by now, and when the next candidate will be (None:
        none). ``in_flight`` is ordered by transmission, oldest first; a candidate
        also needs ``threshold`` later transmissions acknowledged (a floor under the
        time rule, like the duplicate threshold RACK replaces)."""
        lost: list[Transmission] = []
        wait = self.rtt + self.reorder
        deadline = None
        for sent in in_flight:
            if sent.tx_seq >= self.tx_seq:
                break  # sent after everything acknowledged: not a candidate yet
            if sent.deferred or sent.later_acked < threshold:
                continue  # the receiver had no room: resent, never "lost"
            due = sent.sent_at + wait
            if due <= now:
                lost.append(sent)
            elif deadline is None or due < deadline:
                deadline = due
        return lost, deadline
