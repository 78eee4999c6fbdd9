"""The simulator's discrete-event loop: virtual time in microseconds and a heap of
function calls to make at later times.

A fabric run schedules an event per frame per hop, so this is the simulator's hottest
path after the pipelines; a generic engine (simpy: an event object per call, its
callback list and checks in every ``step``) cost about a fifth of a hop. Here an event
is one tuple ``(time, priority, sequence, fn, args)`` on a heap and running it is one
call.

Order: by time, then priority (a ``run(until=t)`` stop before the calls due at ``t``),
then the order the calls were scheduled in, so a run is deterministic. This is the
order simpy gave the same calls, signals included (a signal's callbacks run one event
after it succeeds, and a run that waits for ``any_of`` stops one event after that), so
a scenario gives the same report as it did on simpy.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from itertools import count
from typing import Any

URGENT = 0  # a run's stop at its ``until`` time, before the calls due then
NORMAL = 1


class _Stop(Exception):
    """Raised by the event that ends ``EventLoop.run``."""


def _stop() -> None:
    raise _Stop


class Signal:
    """Something that happens once (a transfer is done, a deadline has come):
    ``succeed()`` marks it ``triggered`` and its callbacks run as the next event at
    the current time."""

    __slots__ = ("loop", "triggered", "processed", "callbacks")

    def __init__(self, loop: EventLoop) -> None:
        self.loop = loop
        self.triggered = False
        self.processed = False
        self.callbacks: list[Callable[[], None]] = []

    def succeed(self, delay_us: float = 0.0) -> None:
        """It happens now (or ``delay_us`` from now); a second call is an error."""
        if self.triggered:
            raise RuntimeError("a signal succeeds once")
        self.triggered = True
        self.loop.call_later(delay_us, self._process)

    def _process(self) -> None:
        self.processed = True
        callbacks, self.callbacks = self.callbacks, []
        for callback in callbacks:
            callback()


class EventLoop:
    """Virtual time (``now``, microseconds) and the calls scheduled in it."""

    __slots__ = ("now", "_queue", "_sequence")

    def __init__(self) -> None:
        self.now: float = 0  # an int until the first call at a float time, as in simpy
        self._queue: list[tuple[float, int, int, Callable[..., Any], tuple[Any, ...]]] = []
        self._sequence = count()

    def call_later(self, delay_us: float, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` ``delay_us`` microseconds from now."""
        heappush(self._queue, (self.now + delay_us, NORMAL, next(self._sequence), fn, args))

    def event(self) -> Signal:
        """A signal that succeeds when someone calls its ``succeed``."""
        return Signal(self)

    def timeout(self, delay_us: float) -> Signal:
        """A signal that succeeds ``delay_us`` microseconds from now."""
        signal = Signal(self)
        signal.succeed(delay_us)
        return signal

    def any_of(self, *signals: Signal) -> Signal:
        """A signal that succeeds once the first of ``signals`` has been processed."""
        first = Signal(self)

        def done() -> None:
            if not first.triggered:
                first.succeed()

        for signal in signals:
            signal.callbacks.append(done)
        return first

    def run(self, until: float | Signal) -> None:
        """Run the scheduled calls in order until virtual time ``until`` (before the
        calls due then) or until the signal ``until`` has been processed. What is
        left stays scheduled for the next run. RuntimeError if nothing is left to run
        before that."""
        if isinstance(until, Signal):
            if until.processed:
                return
            until.callbacks.append(_stop)
        else:
            if until <= self.now:
                raise ValueError(f"until ({until}) must be later than now ({self.now})")
            # now + (until - now), not until: the same float as simpy computed
            heappush(self._queue, (self.now + (until - self.now), URGENT,
                                   next(self._sequence), _stop, ()))
        queue = self._queue
        try:
            while queue:
                self.now, _, _, fn, args = heappop(queue)
                fn(*args)
        except _Stop:
            return
        raise RuntimeError(f"no scheduled events left before {until!r}")


def call_later(loop: EventLoop, delay_us: float, fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` ``delay_us`` microseconds from now on ``loop``."""
    loop.call_later(delay_us, fn, *args)
