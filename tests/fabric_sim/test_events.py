"""The simulator's event loop (fabric.sim.events): the order calls run in, where a run
stops, and signals; the order is the one simpy gave the same calls. Every test runs on
both queues: the C one (fabric/sim/_eventq.c) and the Python one (``HeapQueue``)."""

from __future__ import annotations

import gc
import weakref

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from behavioral_model.pipeline.native import PURE_PYTHON_ENV
from fabric.sim import events
from fabric.sim.events import EventLoop, HeapQueue, call_later


@pytest.fixture(autouse=True, params=["c", "python"])
def queue(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "c":
        if events._eventq is None:
            pytest.skip("fabric/sim/_eventq.c is not built (no C compiler at install)")
        monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)
    else:
        monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    return request.param


def test_the_queue_is_the_one_asked_for(queue: str) -> None:
    assert isinstance(EventLoop()._queue, HeapQueue) == (queue == "python")


def test_calls_run_by_time_then_in_the_order_they_were_scheduled() -> None:
    loop = EventLoop()
    seen: list[tuple[float, str]] = []

    def note(name: str) -> None:
        seen.append((loop.now, name))

    loop.call_later(2.0, note, "b")
    loop.call_later(1.0, note, "a")
    call_later(loop, 2.0, note, "c")
    loop.call_later(1.0, lambda: loop.call_later(1.0, note, "d"))
    loop.run(until=10.0)
    assert seen == [(1.0, "a"), (2.0, "b"), (2.0, "c"), (2.0, "d")]
    assert loop.now == 10.0


def test_a_run_until_a_time_stops_before_the_calls_due_then_and_keeps_them() -> None:
    loop = EventLoop()
    seen: list[str] = []
    loop.call_later(5.0, seen.append, "at 5")
    loop.call_later(6.0, seen.append, "at 6")
    loop.run(until=5.0)
    assert seen == [] and loop.now == 5.0
    loop.run(until=5.5)
    assert seen == ["at 5"]
    loop.run(until=7.0)
    assert seen == ["at 5", "at 6"]
    with pytest.raises(ValueError):
        loop.run(until=7.0)
    with pytest.raises(RuntimeError):
        loop.run(until=loop.any_of(loop.event()))  # nothing left that could end it


def test_a_signal_can_succeed_once() -> None:
    loop = EventLoop()
    signal = loop.event()
    signal.succeed()
    assert signal.triggered and not signal.processed
    with pytest.raises(RuntimeError):
        signal.succeed()
    loop.run(until=1.0)
    assert signal.processed


def _trace_ours(stop_at: float | None) -> list[tuple[float, str]]:
    loop = EventLoop()
    seen: list[tuple[float, str]] = []
    done = loop.event()
    deadline = loop.timeout(8.0)
    for i, delay in enumerate((3.0, 1.0, 3.0, 2.0, 9.0)):
        loop.call_later(delay, lambda i=i: seen.append((loop.now, f"call {i}")))
    if stop_at is not None:
        loop.call_later(stop_at, done.succeed)
    for i in range(3):  # calls at the moment the transfer ends, after the one ending it
        loop.call_later(3.0, lambda i=i: seen.append((loop.now, f"late {i}")))
    loop.run(until=loop.any_of(done, deadline))
    seen.append((loop.now, "stopped"))
    return seen


def _trace_simpy(stop_at: float | None) -> list[tuple[float, str]]:
    env = simpy.Environment()
    seen: list[tuple[float, str]] = []
    done = env.event()
    deadline = env.timeout(8.0)

    def later(delay: float, fn) -> None:  # type: ignore[no-untyped-def]
        event = env.timeout(delay)
        event.callbacks.append(lambda _e: fn())

    for i, delay in enumerate((3.0, 1.0, 3.0, 2.0, 9.0)):
        later(delay, lambda i=i: seen.append((env.now, f"call {i}")))
    if stop_at is not None:
        later(stop_at, done.succeed)
    for i in range(3):
        later(3.0, lambda i=i: seen.append((env.now, f"late {i}")))
    env.run(until=simpy.AnyOf(env, [done, deadline]))
    seen.append((env.now, "stopped"))
    return seen


@pytest.mark.parametrize("stop_at", [3.0, 2.5, None])
def test_waiting_for_the_first_of_two_signals_stops_where_simpy_stopped(
        stop_at: float | None) -> None:
    """A run that waits for ``any_of(done, deadline)`` stops two events after
    ``done.succeed()`` (its callbacks, then the combined signal's), as simpy's AnyOf
    did: the calls scheduled at that moment before the combined signal still run."""
    assert _trace_ours(stop_at) == _trace_simpy(stop_at)


def test_a_run_cut_into_windows_runs_the_same_calls_in_the_same_order() -> None:
    def schedule(loop: EventLoop, log: list) -> None:
        for n in range(6):
            call_later(loop, 0.5 * n, log.append, n)
        call_later(loop, 1.0, lambda: call_later(loop, 1.0, log.append, "late"))

    whole: list = []
    loop = EventLoop()
    schedule(loop, whole)
    assert loop.run_window(10.0) is False and loop.now == 10.0
    cut: list = []
    loop = EventLoop()
    schedule(loop, cut)
    for until in (0.7, 1.0, 1.0, 2.0, 2.5, 10.0):
        loop.run_window(until)
    assert cut == whole and loop.next_time() is None


def test_a_window_stops_for_its_signal_and_leaves_no_stop_behind() -> None:
    loop = EventLoop()
    done = loop.event()
    log: list = []
    call_later(loop, 1.0, done.succeed)
    call_later(loop, 1.0, log.append, "same instant")
    call_later(loop, 2.0, log.append, "after")
    assert loop.run_window(5.0, done) is True
    assert loop.now == 1.0 and log == ["same instant"]
    assert loop.run_window(5.0) is False and log == ["same instant", "after"]


def test_frames_on_a_nics_cable_come_first_in_the_order_their_senders_ran() -> None:
    """At one instant, frames (``call_at``) run before the other calls scheduled at the
    same time as they were sent, in the order of the calls that sent them, whenever
    they were scheduled themselves (as a frame from another process is, late)."""
    loop = EventLoop()
    log: list = []
    keys = []

    def sender(name: str) -> None:
        keys.append((name, loop.arrival_key(len(keys))))
        call_later(loop, 1.0, log.append, f"local after {name}")

    call_later(loop, 1.0, sender, "a")
    call_later(loop, 1.0, sender, "b")
    loop.run_window(1.5)
    for name, key in reversed(keys):  # scheduled late and in the wrong order
        loop.call_at(2.0, 1.0, key, log.append, f"frame from {name}")
    loop.run_window(3.0)
    assert log == ["frame from a", "frame from b", "local after a", "local after b"]


class _Token:
    """Something a scheduled call holds, to see when it is freed."""


def test_a_loop_with_calls_pending_is_freed_with_them() -> None:
    """The loop and its queue refer to each other; the garbage collector frees both,
    and what the pending calls hold."""
    loop = EventLoop()
    token = _Token()
    alive = weakref.ref(token)
    loop.call_later(1.0, lambda t=token: None)
    loop.call_at(2.0, 0.0, (0, 1, 0), print, token)
    del token, loop
    gc.collect()
    assert alive() is None


def test_an_error_in_a_call_propagates_and_the_rest_still_runs() -> None:
    loop = EventLoop()
    log: list = []

    def fail() -> None:
        raise KeyError("boom")

    loop.call_later(1.0, log.append, "first")
    loop.call_later(2.0, fail)
    loop.call_later(3.0, log.append, "after")
    with pytest.raises(KeyError):
        loop.run_window(10.0)
    assert log == ["first"] and loop.now == 2.0
    assert loop.run_window(10.0) is False
    assert log == ["first", "after"]


def test_bad_arguments_are_refused_with_a_type_error() -> None:
    loop = EventLoop()
    with pytest.raises(TypeError):
        loop.call_later("soon", print)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        loop.call_later(1.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        loop.run_window("later")  # type: ignore[arg-type]
    assert loop.next_time() is None


def test_the_c_queue_needs_a_loop_with_the_slots_it_sets() -> None:
    if events._eventq is None:
        pytest.skip("fabric/sim/_eventq.c is not built (no C compiler at install)")
    with pytest.raises(TypeError, match="not a slot"):
        events._eventq.EventQueue(object())

    class Loose:
        now = 0  # a class attribute, not a slot
    with pytest.raises(TypeError, match="not a slot"):
        events._eventq.EventQueue(Loose())


def test_now_stays_an_int_while_every_time_is_one() -> None:
    loop = EventLoop()
    seen: list = []
    loop.call_later(2, lambda: seen.append(loop.now))
    loop.call_later(2.5, lambda: seen.append(loop.now))
    loop.run_window(10)
    assert seen == [2, 2.5] and type(seen[0]) is int and type(seen[1]) is float


# A schedule: calls at random delays (ties on purpose: few distinct delays, ints and
# floats), some of which schedule more, frames placed with call_at, the run cut into
# random windows.
_delays = st.sampled_from([0, 1, 1.0, 0.5, 2, 2.25, 3])
_op = st.one_of(
    st.tuples(st.just("later"), _delays, st.integers(0, 2)),
    st.tuples(st.just("frame"), _delays, st.integers(0, 3)),
)


def _trace(ops: list, cuts: list[float]) -> list:
    loop = EventLoop()
    log: list = []
    frames = [0]

    def call(name: str, depth: int) -> None:
        log.append((loop.now, type(loop.now).__name__, name))
        if depth:
            loop.call_later(1, call, f"{name}>", depth - 1)
            key = loop.arrival_key(frames[0])
            frames[0] += 1
            loop.call_at(loop.now + 1, loop.now, key, call, f"{name}~", 0)

    for n, (kind, delay, extra) in enumerate(ops):
        if kind == "later":
            loop.call_later(delay, call, f"c{n}", extra)
        else:
            loop.call_at(delay, 0, (1, -1, extra * 100 + n), call, f"f{n}", 0)
    for until in sorted(cuts):
        if until > loop.now:
            loop.run_window(until)
    loop.run_window(100)
    return log


@settings(max_examples=60, deadline=None)
@given(st.lists(_op, max_size=25), st.lists(st.sampled_from([0.5, 1, 1.5, 2, 3.5]),
                                             max_size=4))
def test_both_queues_run_any_schedule_in_the_same_order(ops: list, cuts: list) -> None:
    """The C queue against heapq's tuples, on schedules full of ties: the same calls
    at the same times (and the same type of time), in the same order."""
    ours = _trace(ops, cuts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PURE_PYTHON_ENV, "1")
        reference = _trace(ops, cuts)
    assert ours == reference
    assert len(ours) >= len(ops)
