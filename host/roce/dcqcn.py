"""DCQCN's reaction point: the sending rate of one RoCE QP (Zhu et al., "Congestion
Control for Large-Scale RDMA Deployments", SIGCOMM 2015, section 3), the congestion
control of the paper's RoCE baseline.

The switches mark ECN-CE on a queue above their threshold (the congestion point); the
receiving NIC answers a CE-marked packet with a CNP (the notification point), at most
one per ``cnp_interval_us`` per QP. Here the receiving NIC's SACK with the ECN echo
(mark SKIP_ONCE, sent at once for a CE-marked packet: docs/mrc-nic.md) is the CNP, and
the reaction point ignores echoes less than ``cnp_interval_us`` after the cut it made,
which is what the notification point's limit would have let through.

- A CNP: target rate Rt = Rc; Rc = Rc (1 - alpha / 2); alpha = (1 - g) alpha + g; the
  increase counters restart.
- Every ``alpha_period_us`` without a CNP: alpha = (1 - g) alpha.
- Increase events, one per ``increase_period_us`` (timer T) and one per
  ``byte_counter_us`` worth of line-rate bytes sent (byte counter B): fast recovery
  Rc = (Rt + Rc) / 2 while both counters are under F = ``fast_recovery_steps``;
  additive increase (Rt += R_AI, then the same halving) once one of them reaches F;
  hyper increase (Rt += i R_HAI, i = the smaller counter - F) once both are past F.

Timers are evaluated lazily, when the sender next asks for the rate: between two
uses nothing depends on them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Dcqcn", "DcqcnConfig"]

_US = 1e-6


@dataclass(frozen=True)
class DcqcnConfig:
    """The DCQCN paper's parameters: a CNP at most every 50 us, an increase timer of
    55 us, F = 5, R_AI = 40 Mb/s and a 10 MB byte counter at 40 Gb/s. Rates and the
    byte counter are given as shares of the line rate (R_AI: 1/1000; B: 2 ms of line
    rate) so that they scale with ``line_rate_gbps``; R_HAI, which the paper leaves to
    the deployment, is 10 R_AI [ours].

    Alpha is updated as NVIDIA's ConnectX NICs (the RoCE NICs of the MRC paper's
    testbed) do by default: every microsecond (``dce_tcp_rtt`` = 1 us) with
    g = 5/1024 (``dce_tcp_g`` = 1019: alpha = 1019/1024 alpha [+ 5/1024 with a
    CNP]). The paper's g = 1/256 per 55 us takes alpha from 1 to 1/e in 14 ms, so
    every cut of a flow shorter than that halves its rate; with the NICs' update it
    takes ~200 us, and a flow that stops seeing marks cuts by less next time."""

    line_rate_gbps: float
    g: float = 5 / 1024
    cnp_interval_us: float = 50.0
    alpha_period_us: float = 1.0
    increase_period_us: float = 55.0
    fast_recovery_steps: int = 5
    ai_share: float = 1e-3  # R_AI / line rate
    hai_share: float = 1e-2  # R_HAI / line rate
    byte_counter_us: float = 2000.0  # B, in time at line rate
    min_share: float = 1e-3  # the rate never goes below this share of the line rate


class Dcqcn:
    """The current rate of one QP (``rate_bps(now)``, ``now`` in seconds)."""

    def __init__(self, config: DcqcnConfig, now: float) -> None:
        self.config = config
        self.line_bps = config.line_rate_gbps * 1e9
        self.current = self.target = self.line_bps
        self.alpha = 1.0
        self.cuts = 0
        self._last_cut: float | None = None
        self._next_alpha = now + config.alpha_period_us * _US
        self._next_increase = now + config.increase_period_us * _US
        self._timer_steps = 0
        self._byte_steps = 0
        self._bytes = 0.0
        self._byte_counter = self.line_bps / 8 * config.byte_counter_us * _US

    def rate_bps(self, now: float) -> float:
        self._advance(now)
        return self.current

    def limited(self, now: float) -> bool:
        """True while the rate is under the line rate (the sender paces)."""
        return self.rate_bps(now) < self.line_bps

    def on_cnp(self, now: float) -> None:
        self._advance(now)
        c = self.config
        if self._last_cut is not None and now - self._last_cut < c.cnp_interval_us * _US:
            return
        self._last_cut = now
        self.cuts += 1
        self.target = self.current
        self.current = max(self.current * (1 - self.alpha / 2), c.min_share * self.line_bps)
        self.alpha = (1 - c.g) * self.alpha + c.g
        self._next_alpha = now + c.alpha_period_us * _US
        self._next_increase = now + c.increase_period_us * _US
        self._timer_steps = self._byte_steps = 0
        self._bytes = 0.0

    def on_sent(self, size: int) -> None:
        """``size`` bytes went on the wire: the byte counter's increase events."""
        if self.current >= self.line_bps:
            return
        self._bytes += size
        while self._bytes >= self._byte_counter:
            self._bytes -= self._byte_counter
            self._byte_steps += 1
            self._increase()

    def _advance(self, now: float) -> None:
        c = self.config
        period = c.alpha_period_us * _US
        # alpha is the first CNP's (1: initial_alpha_value) until a cut has been made
        if self._last_cut is not None and now >= self._next_alpha:
            periods = int((now - self._next_alpha) / period) + 1
            self.alpha *= (1 - c.g) ** periods
            self._next_alpha += periods * period
        period = c.increase_period_us * _US
        while now >= self._next_increase:
            if self.current >= self.line_bps:  # nothing to recover: skip to now
                self._next_increase += (int((now - self._next_increase) / period) + 1) * period
                break
            self._next_increase += period
            self._timer_steps += 1
            self._increase()

    def _increase(self) -> None:
        c = self.config
        f = c.fast_recovery_steps
        both = min(self._timer_steps, self._byte_steps)
        if both > f:
            self.target += (both - f) * c.hai_share * self.line_bps
        elif max(self._timer_steps, self._byte_steps) >= f:
            self.target += c.ai_share * self.line_bps
        self.target = min(self.target, self.line_bps)
        self.current = (self.target + self.current) / 2
        if self.current > self.line_bps - c.ai_share * self.line_bps:
            self.current = self.line_bps  # within one R_AI of it: line rate [ours]
