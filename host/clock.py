"""Clocks the endpoint reads time from. The endpoint never sleeps: whoever drives it (a
blocking loop, a discrete-event fabric, a test) owns time and hands it in through one of
these."""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["Clock", "ManualClock", "MonotonicClock"]


class Clock(Protocol):
    """A source of time in seconds. Only differences matter; the origin is arbitrary."""

    def now(self) -> float: ...


class MonotonicClock:
    """Wall time for real ports: ``time.monotonic()``."""

    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """Time that moves only when told: for tests and for simulators that keep their own
    virtual time (a simpy fabric can wrap ``env.now`` instead)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (>= 0); returns the new time."""
        if seconds < 0:
            raise ValueError(f"time cannot go backwards ({seconds} s)")
        self._now += seconds
        return self._now

    def set(self, when: float) -> None:
        """Jump to ``when``, which must not be earlier than now."""
        if when < self._now:
            raise ValueError(f"time cannot go backwards ({when} < {self._now})")
        self._now = when
