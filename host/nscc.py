"""NSCC, Ultra Ethernet's sender congestion control, for one QP: a window of bytes in
flight, clocked by SACKs and steered by two signals, the ECN echo of the SACK (mark
SKIP_ONCE) and the packet's queueing delay (its round trip minus the base round trip)
against a target (docs/congestion-and-loss.md).

The four quadrants of an acknowledgement [public: UEC 1.0 NSCC, htsim's model]:

    ============  ===============================  =================================
                  delay < target                   delay >= target
    ============  ===============================  =================================
    no ECN        proportional increase (fast       fair increase: the same bytes for
                  increase after a clear window)    every competing window
    ECN           hold: the marking queue has not   multiplicative decrease, at most
                  delayed us yet, and the NIC's     once per base round trip
                  ECN steering moves the EV first
    ============  ===============================  =================================

Increases accumulate and are applied every ``adjust_bytes`` acknowledged or every
``adjust_period`` base round trips (plus ``eta``). A trim or a declared loss shrinks
the window by the packet; QuickAdapt sets it to what was achieved in the last round
trip when a trim (or a very high delay) shows that far less got through than the
window. The receiver's window penalty (SACK ``rcv_window_penalty``, 0..127) caps the
window at what is in flight and shrinks it by penalty/128 of the bytes acknowledged.

Every constant is one of the public defaults, defined on UEC's reference network
(100 Gb/s, 12 us base round trip, BDP 150,000 bytes) and scaled to this one by
``scaling_a`` (BDP over 150,000) and ``scaling_b`` (target delay over 12 us).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["NicWire", "Nscc", "NsccConfig"]

_REFERENCE_BDP = 150_000.0  # bytes: 100 Gb/s x 12 us [public]
_REFERENCE_RTT = 12e-6  # seconds [public]
_CLEAR_DELAY = 1e-6  # seconds: "delay ~ 0" for fast increase (htsim's tolerance) [public]


class NsccConfig(BaseModel):
    """NSCC's parameters (UEC 1.0 NSCC defaults [public]) and the network it runs on.

    - ``line_rate_gbps``, ``base_rtt_us``: the sender's line rate (every plane) and the
      unloaded round trip; their product is the BDP that sizes the window. The base
      round trip only ever goes down to the smallest one measured.
    - ``target_qdelay``: queueing delay from which an acknowledgement is congested,
      in base round trips (0.75, where switches trim).
    - ``max_window``: the window's ceiling and initial value, in BDPs (1.5).
    - ``gamma``, ``max_md_jump``: a decrease multiplies the window by
      ``max(1 - gamma * (avg - target) / avg, max_md_jump)`` (0.8, 0.5).
    - ``fair_increase`` (MTUs), ``fast_increase_scale``, ``eta`` (MTUs), ``alpha``
      (MTUs per target delay): the increase gains (5, 0.25, 0.15, 4), all times
      ``scaling_a``; ``alpha`` also times ``scaling_b``.
    - ``qa_gate``, ``qa_threshold``: QuickAdapt acts when less than max window /
      2^qa_gate was acknowledged in its period (3); a delay over ``qa_threshold``
      target delays triggers it without a trim (0: only trims, as with trimming
      switches).
    - ``adjust_bytes`` (MTUs), ``adjust_period`` (base round trips): how often the
      accumulated increase is applied (8, 1).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    line_rate_gbps: float = Field(800.0, gt=0)
    base_rtt_us: float = Field(12.0, gt=0)
    target_qdelay: float = Field(0.75, gt=0)
    max_window: float = Field(1.5, gt=0)
    gamma: float = Field(0.8, ge=0, le=1)
    max_md_jump: float = Field(0.5, gt=0, le=1)
    fair_increase: float = Field(5.0, ge=0)
    fast_increase_scale: float = Field(0.25, ge=0)
    eta: float = Field(0.15, ge=0)
    alpha: float = Field(4.0, ge=0)
    qa_gate: int = Field(3, ge=0, le=63)
    qa_threshold: float = Field(0.0, ge=0)
    adjust_bytes: int = Field(8, ge=1)
    adjust_period: float = Field(1.0, gt=0)


class Nscc:
    """The window of one QP. Times in seconds, sizes in bytes; ``now`` is handed in
    (the endpoint is sans-IO)."""

    def __init__(self, config: NsccConfig, mtu: int, now: float) -> None:
        self.config = config
        self.mtu = mtu
        self._rate = config.line_rate_gbps * 1e9 / 8  # bytes per second
        self._configured_rtt = config.base_rtt_us * 1e-6
        self.base_rtt = self._configured_rtt
        bdp = self._rate * self.base_rtt
        scaling_a = bdp / _REFERENCE_BDP
        self.target = config.target_qdelay * self.base_rtt
        scaling_b = self.target / _REFERENCE_RTT
        self._fi = config.fair_increase * mtu * scaling_a
        self._fi_scale = config.fast_increase_scale * scaling_a
        self._eta = config.eta * mtu * scaling_a
        self._alpha = config.alpha * mtu * scaling_a * scaling_b / self.target
        self._qa_threshold = (config.qa_threshold * self.target if config.qa_threshold
                              else float("inf"))
        self._adjust_bytes = config.adjust_bytes * mtu
        self.max_window = config.max_window * bdp
        self.cwnd = self.max_window
        self.avg_delay = 0.0
        self._inc_bytes = 0.0
        self._received = 0
        self._achieved = 0
        self._fi_count = 0
        self._increase_mode = False
        self._trigger_qa = False
        self._qa_end = 0.0
        self._to_ignore = 0
        self._ignored = 0
        self._last_adjust = now
        self._last_decrease = now
        self._last_delay = now
        self.decreases = 0  # multiplicative decreases applied (for reports and tests)

    # -- events ------------------------------------------------------------------------
    def on_ack(self, acked: int, marked: bool, rtt: float | None, in_flight: int,
               now: float, penalty: int = 0) -> None:
        """A SACK acknowledged ``acked`` new bytes; ``marked``: it echoes ECN-CE;
        ``rtt``: the round trip of the packet that triggered it (None when that
        packet's transmission is ambiguous or it was a duplicate); ``in_flight``:
        bytes still unacknowledged; ``penalty``: the receiver's window penalty."""
        self._ignored += acked
        self._received += acked
        self._achieved += acked
        increase = not marked
        if penalty:
            self.cwnd = min(self.cwnd, max(in_flight, self.mtu))
            self._shrink(penalty * acked / 128)
            increase = False
        if rtt is None:
            return
        if rtt < self.base_rtt:
            self.base_rtt = rtt
            self.max_window = self.config.max_window * self._rate * rtt
            self.cwnd = min(self.cwnd, self.max_window)
        delay = rtt - self.base_rtt
        self._update_delay(delay, now)
        if self._quick_adapt(False, marked, delay, in_flight, now):
            return
        if increase and delay >= self.target:
            self._inc_bytes += self._fi * acked  # fair increase
        elif increase:
            if not self._fast_increase(acked, delay):
                self._inc_bytes += self._alpha * acked * (self.target - delay)
        elif marked and delay >= self.target:
            self._decrease(now)
        # marked below the target: hold (the quadrant the NIC's ECN steering handles)
        if now - self._last_adjust >= self.config.adjust_period * self.base_rtt \
                or self._received > self._adjust_bytes:
            self._adjust(now)

    def on_trim(self, size: int, in_flight: int, now: float) -> None:
        """A NACK TRIMMED / TRIMMED_LASTHOP for a packet of ``size`` bytes: the packet
        met a full queue (its delay counts as one configured base round trip)."""
        self._update_delay(self._configured_rtt, now)
        self._ignored += size
        self._trigger_qa = True
        if not self._quick_adapt(True, True, 0.0, in_flight, now):
            self._shrink(size)

    def on_loss(self, size: int) -> None:
        """A packet of ``size`` bytes declared lost (gap or timeout)."""
        self._shrink(size)
        self._ignored += size

    # -- the rules ---------------------------------------------------------------------
    def _fast_increase(self, acked: int, delay: float) -> bool:
        """Grow by ``fast_increase_scale`` of every byte acknowledged once a whole
        window came back at (near) zero delay; True while in that mode."""
        if delay < _CLEAR_DELAY:
            self._fi_count += acked
            if self._fi_count > self.cwnd or self._increase_mode:
                self.cwnd = min(self.cwnd + acked * self._fi_scale, self.max_window)
                self._increase_mode = True
                return True
        else:
            self._fi_count = 0
        self._increase_mode = False
        return False

    def _decrease(self, now: float) -> None:
        self._increase_mode = False
        self._fi_count = 0
        avg = self.avg_delay
        if avg > self.target and now - self._last_decrease > self.base_rtt:
            factor = max(1 - self.config.gamma * (avg - self.target) / avg,
                         self.config.max_md_jump)
            self.cwnd = max(self.cwnd * factor, self.mtu)
            self._last_decrease = now
            self.decreases += 1

    def _quick_adapt(self, loss: bool, marked: bool, delay: float, in_flight: int,
                     now: float) -> bool:
        handled = False
        if marked and self._ignored < self._to_ignore:
            handled = True  # marks of bytes sent before the last QuickAdapt
        elif now >= self._qa_end:
            if (self._qa_end and (self._trigger_qa or loss or delay > self._qa_threshold)
                    and self._achieved < self.max_window / (1 << self.config.qa_gate)):
                self.cwnd = max(self._achieved, self.mtu)
                self._to_ignore = in_flight
                self._ignored = 0
                self._trigger_qa = False
                handled = True
            self._achieved = 0
            self._qa_end = now + self.base_rtt + self.target
        if handled:
            self._inc_bytes = 0.0
            self._received = 0
        return handled

    def _adjust(self, now: float) -> None:
        self.cwnd += self._inc_bytes / self.cwnd
        if now - self._last_adjust >= self.config.adjust_period * self.base_rtt:
            self._last_adjust = now
            self.cwnd += self._eta
        self.cwnd = min(self.cwnd, self.max_window)
        self._inc_bytes = 0.0
        self._received = 0

    def _update_delay(self, delay: float, now: float) -> None:
        """The average queueing delay over about the last base round trip: each sample
        weighs the time since the previous one, in base round trips."""
        weight = min(1.0, (now - self._last_delay) / self.base_rtt)
        self.avg_delay += weight * (delay - self.avg_delay)
        self._last_delay = now

    def _shrink(self, size: float) -> None:
        self.cwnd = self.cwnd - size if self.cwnd > size + self.mtu else float(self.mtu)


class NicWire:
    """When a packet the host posts starts to leave the NIC: the NIC's transmit queue,
    shared by every QP of the host, as a fluid queue draining at the line rate.

    NSCC's round trip starts when the packet leaves the NIC, not when the host posts it:
    a real NIC's transmit scheduler takes packets from its QPs' send queues as its ports
    have room, so time a packet waits behind other QPs' packets of the same NIC is no
    queueing in the network. One clock per QP would let each QP believe the wire is its
    own: with 7 QPs posting their windows at once (an all-to-all), the later ones' round
    trips would count up to 7 windows of the NIC's own queue as network delay."""

    def __init__(self, line_rate_gbps: float) -> None:
        self._rate = line_rate_gbps * 1e9 / 8  # bytes per second
        self._free = 0.0  # when the queue is empty

    def departure(self, wire_bytes: int, now: float) -> float:
        """A packet of ``wire_bytes`` posted at ``now``: when it starts to leave."""
        start = max(now, self._free)
        self._free = start + wire_bytes / self._rate
        return start
