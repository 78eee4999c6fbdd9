"""Calling a function at a later virtual time on a simpy environment, at the least
cost simpy allows: one small event object scheduled straight into the environment's
queue, no process and no generic Event machinery. (A fabric run schedules an event
per frame per hop, so this is the simulator's hottest path after the pipelines.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import simpy
from simpy.events import NORMAL


class _Call:
    """What ``Environment.step`` needs of an event: ``callbacks`` and ``_ok``."""

    __slots__ = ("callbacks", "fn", "args")
    _ok = True

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args
        self.callbacks = _FIRE  # step() replaces it with None once it has run it


def _fire(call: _Call) -> None:
    call.fn(*call.args)


# One shared callback list: no list or bound method to allocate per event.
_FIRE = [_fire]


def call_later(env: simpy.Environment, delay_us: float, fn: Callable[..., Any],
               *args: Any) -> None:
    """Run ``fn(*args)`` ``delay_us`` microseconds from now (events at one time run
    in the order they were scheduled, so a run is deterministic)."""
    env.schedule(_Call(fn, args), NORMAL, delay_us)  # type: ignore[arg-type]
