"""The outcome of an STF run: failures, notes and what the run did."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["StfCounts", "StfResult"]


@dataclass
class StfCounts:
    """What a run did: commands executed, entries written, packets in and out."""

    commands: int = 0
    entries: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    packets_expected: int = 0
    packets_matched: int = 0


@dataclass
class StfResult:
    """Outcome of one STF run. ``failures`` are readable, each starting with the STF
    ``file:line`` it concerns; ``notes`` are informational (e.g. unobserved output)."""

    filename: str
    failures: list[str] = field(default_factory=list)
    counts: StfCounts = field(default_factory=StfCounts)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        c = self.counts
        stats = (
            f"{c.packets_sent} packets sent, {c.packets_received} received, "
            f"{c.packets_matched}/{c.packets_expected} expected matched"
        )
        if self.passed:
            return f"{self.filename}: PASS ({stats})"
        plural = "s" if len(self.failures) != 1 else ""
        return f"{self.filename}: FAIL ({len(self.failures)} failure{plural}; {stats})"

    def report(self) -> str:
        """The failures (if any) followed by the summary line."""
        return "\n".join([*self.failures, self.summary()])
