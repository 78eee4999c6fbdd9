"""The simulator's discrete-event loop: virtual time in microseconds and a heap of
function calls to make at later times.

A fabric run schedules an event per frame per hop, so this is the simulator's hottest
path after the pipelines; a generic engine (simpy: an event object per call, its
callback list and checks in every ``step``) cost about a fifth of a hop. Here an event
is one entry on a heap and running it is one call. The heap and the loop that pops and
calls are C (``_eventq.c``, built with the package where a C compiler is found): its
entries keep their order fields as C numbers, so a sift compares numbers, not tuples,
in one block of memory. ``HeapQueue`` is the same queue on Python's ``heapq``, used
where the C one is not built or ``MRC_P4_PURE_PYTHON`` is set; both run the same calls
in the same order.

Order: by time, then priority (a ``run(until=t)`` stop before the calls due at ``t``),
then the order the calls were scheduled in, so a run is deterministic. This is the
order simpy gave the same calls, signals included (a signal's callbacks run one event
after it succeeds, and a run that waits for ``any_of`` stops one event after that), so
a scenario gives the same report as it did on simpy.

One kind of call is placed otherwise: a frame on a cable between a NIC and its switch
(``call_at``), the cables a run split over processes has between them
(``fabric.sim.partition``), where such a frame is scheduled only when the processes
meet. Among the calls scheduled at the same virtual time it comes first, and such
frames among themselves in the order of the calls that sent them, then by cable
direction and number: which depends only on what the sending side did, so one process
and several run the same calls in the same order.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from heapq import heappop, heappush
from itertools import count
from typing import Any

from behavioral_model.pipeline.native import PURE_PYTHON_ENV

try:
    from . import _eventq
except ImportError:  # not built: no C compiler where the package was installed
    _eventq = None

URGENT = 0  # a run's stop at its ``until`` time, before the calls due then
NORMAL = 1
ARRIVAL, LOCAL = 0, 1  # a frame off a NIC's cable (``call_at``); any other call


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


class HeapQueue:
    """The queue of scheduled calls in Python (``heapq``), where the C one
    (``fabric/sim/_eventq.c``) is not built or is switched off; the same methods and
    the same order. An entry is the tuple ``(due, priority, scheduled at, kind, key,
    fn, args)``: a call scheduled earlier has a smaller sequence number, so ordering
    by the time it was scheduled first changes nothing for calls of one process."""

    __slots__ = ("loop", "_heap", "_sequence")

    def __init__(self, loop: EventLoop) -> None:
        self.loop = loop
        self._heap: list[tuple[float, int, float, int, Any, Callable[..., Any],
                               tuple[Any, ...]]] = []
        self._sequence = count()

    def later(self, delay_us: float, fn: Callable[..., Any], *args: Any) -> None:
        now = self.loop.now
        heappush(self._heap, (now + delay_us, NORMAL, now, LOCAL, next(self._sequence),
                              fn, args))

    def push(self, due: float, priority: int, sent: float, kind: int, key: Any,
             fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        if kind == LOCAL:
            key = next(self._sequence)
        heappush(self._heap, (due, priority, sent, kind, key, fn, args))

    def run_until(self, until: float) -> None:
        loop = self.loop
        heap = self._heap
        while heap and heap[0][0] < until:
            loop.now, _, _, loop._kind, loop._key, fn, args = heappop(heap)
            fn(*args)

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None


def _queue_class() -> type:
    """The C queue, unless it is not built or ``MRC_P4_PURE_PYTHON`` is set (as for the
    pipelines' extension: ``behavioral_model.pipeline.native``)."""
    if _eventq is None or os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return HeapQueue
    return _eventq.EventQueue


def uses_c_queue() -> bool:
    """Whether loops made now use the C queue (``fabric/sim/_eventq.c``)."""
    return _queue_class() is not HeapQueue


class EventLoop:
    """Virtual time (``now``, microseconds) and the calls scheduled in it.

    ``call_later(delay_us, fn, *args)`` runs ``fn(*args)`` ``delay_us`` microseconds
    from now (the queue's own method, without a Python call in between: a fabric run
    schedules a call per frame per hop)."""

    __slots__ = ("now", "_kind", "_key", "_queue", "call_later")

    def __init__(self) -> None:
        self.now: float = 0  # an int until the first call at a float time, as in simpy
        # the running call's kind and key (its sequence number, or an arrival's key)
        self._kind = LOCAL
        self._key: Any = -1
        self._queue = _queue_class()(self)
        self.call_later: Callable[..., None] = self._queue.later

    def arrival_key(self, frame: int) -> tuple[int, Any, int]:
        """The key of a frame sent now on a NIC's cable (``frame``: unique per frame,
        its cable direction and number on it): the key of the call sending it, then
        ``frame``."""
        return (self._kind, self._key, frame)

    def call_at(self, at_us: float, sent_us: float, key: tuple[int, Any, int],
                fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` at virtual time ``at_us``: a frame sent at ``sent_us`` with
        ``key`` (``arrival_key``)."""
        self._queue.push(at_us, NORMAL, sent_us, ARRIVAL, key, fn, args)

    def next_time(self) -> float | None:
        """When the next scheduled call is due; None if nothing is scheduled."""
        return self._queue.next_due()

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
            self._queue.push(self.now + (until - self.now), URGENT, self.now, LOCAL, None,
                             _stop, ())
        try:
            self._queue.run_until(math.inf)
        except _Stop:
            return
        raise RuntimeError(f"no scheduled events left before {until!r}")

    def run_window(self, until: float, signal: Signal | None = None) -> bool:
        """Run the calls due before ``until`` (``now`` is then ``until``), or stop
        early once ``signal`` has been processed; True if it stopped for the signal.
        Unlike ``run`` it leaves nothing scheduled behind, so a run may be cut into
        any number of windows (``fabric.sim.partition``) without changing its order."""
        if signal is not None:
            if signal.processed:
                return True
            signal.callbacks.append(_stop)
        try:
            self._queue.run_until(until)
        except _Stop:
            return True
        if signal is not None:
            signal.callbacks.remove(_stop)
        if until > self.now:
            self.now = until
        return False


def call_later(loop: EventLoop, delay_us: float, fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` ``delay_us`` microseconds from now on ``loop``."""
    loop.call_later(delay_us, fn, *args)
