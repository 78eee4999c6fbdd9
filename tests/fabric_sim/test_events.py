"""The simulator's event loop (fabric.sim.events): the order calls run in, where a run
stops, and signals; the order is the one simpy gave the same calls."""

from __future__ import annotations

import pytest
import simpy

from fabric.sim.events import EventLoop, call_later


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
