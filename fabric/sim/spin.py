"""Waiting for the other process's window: poll for a while before blocking.

On a virtual machine a process blocked in ``poll`` takes tens of microseconds to wake
(the small fabric's 3,596 windows of 1 us waited 0.28-0.32 s in all, for about 200 us
of work per window): polling without blocking for a little longer than one window's
imbalance keeps both processes on their cores (docs/simulator-performance.md,
"Several processes"). Spinning only pays while each process has a core of its own: on
a busy machine the spinner takes the CPU from the very process it waits for, so a spin
that ends without the message is followed by windows that block at once, twice as
many after each such spin in a row.
"""

from __future__ import annotations

import time

from .wire import Wire

SPIN_S = 300e-6  # longer gained no more on the small fabric, shorter gained less
MAX_BACKOFF = 64  # windows without a spin after several spins in a row came to nothing


def spin_budget(procs: int, cores: int) -> float:
    """Seconds a process of a ``procs``-process run may spin before blocking on a
    window, on a machine with ``cores`` cores."""
    return SPIN_S if cores >= procs else 0.0


class Spinner:
    """Polls a connection without blocking before the caller blocks on it."""

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self._backoff = 0  # windows to skip after the next spin that comes to nothing
        self._skip = 0  # windows left to block in at once

    def wait(self, conn: Wire) -> None:
        """Return once ``conn`` has a message, or when this window should block
        instead (the budget spent, or spinning backed off); reads nothing."""
        if self.budget_s <= 0:
            return
        if self._skip:
            self._skip -= 1
            return
        end = time.perf_counter() + self.budget_s
        while not conn.poll(0):
            if time.perf_counter() >= end:
                self._backoff = min(2 * self._backoff or 1, MAX_BACKOFF)
                self._skip = self._backoff
                return
        self._backoff = 0
