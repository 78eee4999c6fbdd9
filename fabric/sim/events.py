"""Calling a function at a later virtual time on a simpy environment, with as little
per-event cost as simpy allows: one Timeout and one callback, no process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import simpy
from simpy.events import Timeout


def call_later(env: simpy.Environment, delay_us: float, fn: Callable[..., Any],
               *args: Any) -> None:
    """Run ``fn(*args)`` ``delay_us`` microseconds from now (events at one time run
    in the order they were scheduled, so a run is deterministic)."""
    Timeout(env, delay_us).callbacks.append(lambda _event: fn(*args))
