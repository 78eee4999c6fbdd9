"""A process waiting for the other's window polls before it blocks (fabric/sim/spin.py),
and stops spinning on a machine where it only takes the CPU from the other."""

from __future__ import annotations

from multiprocessing import Pipe
from types import SimpleNamespace

import pytest

from fabric.sim import spin
from fabric.sim.spin import MAX_BACKOFF, SPIN_S, Spinner, spin_budget


class _Clock:
    """A fake ``time`` for the spin: each reading is one second after the last."""

    def __init__(self) -> None:
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        return float(self.readings)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(spin, "time", SimpleNamespace(perf_counter=fake.perf_counter))
    return fake


def test_a_process_spins_only_with_a_core_of_its_own() -> None:
    assert spin_budget(2, 2) == SPIN_S > 0
    assert spin_budget(2, 8) == SPIN_S
    assert spin_budget(2, 1) == 0.0  # it would hold the core the other needs


@pytest.mark.parametrize("budget_s", [0.0, 5.0, 1000.0])
def test_the_spin_stops_at_a_waiting_message_and_leaves_it_to_recv(
        budget_s: float, clock: _Clock) -> None:
    ours, theirs = Pipe()
    theirs.send(("ran", 7))
    Spinner(budget_s).wait(ours)
    assert clock.readings <= 1  # it saw the message at once, not after its budget
    assert ours.recv() == ("ran", 7)


def test_with_nothing_to_read_the_spin_ends_with_its_budget(clock: _Clock) -> None:
    ours, theirs = Pipe()
    Spinner(5.0).wait(ours)
    assert clock.readings == 6  # the start (t = 1), then a look after each poll up to t = 6
    assert not ours.poll(0)
    theirs.send("late")
    assert ours.recv() == "late"


def _spins(spinner: Spinner, conn: object, clock: _Clock, windows: int) -> list[bool]:
    """Per window, whether the spinner looked at the clock (spun) or blocked at once."""
    spun = []
    for _ in range(windows):
        before = clock.readings
        spinner.wait(conn)  # type: ignore[arg-type]
        spun.append(clock.readings > before)
    return spun


def test_fruitless_spins_back_off_twice_as_long_each_time(clock: _Clock) -> None:
    ours, _theirs = Pipe()
    spun = _spins(Spinner(2.0), ours, clock, 12)
    # spin, skip 1; spin, skip 2; spin, skip 4; spin, ...
    assert spun == [True, False, True, False, False, True, False, False, False, False,
                    True, False]


def test_the_back_off_is_bounded(clock: _Clock) -> None:
    ours, _theirs = Pipe()
    spun = _spins(Spinner(1.0), ours, clock, 8 * MAX_BACKOFF)
    positions = [k for k, s in enumerate(spun) if s]
    gaps = [b - a - 1 for a, b in zip(positions, positions[1:], strict=False)]
    assert max(gaps) == gaps[-1] == MAX_BACKOFF


def test_a_spin_that_meets_its_message_ends_the_back_off(clock: _Clock) -> None:
    ours, theirs = Pipe()
    spinner = Spinner(2.0)
    # spin, skip 1, spin, skip 2: one window of the two is still to skip
    assert _spins(spinner, ours, clock, 5) == [True, False, True, False, False]
    theirs.send("ran")
    assert _spins(spinner, ours, clock, 1) == [True]  # met it
    ours.recv()
    # the next fruitless spin skips one window again, not four
    assert _spins(spinner, ours, clock, 4) == [True, False, True, False]


def test_no_budget_never_spins(clock: _Clock) -> None:
    ours, _theirs = Pipe()
    assert _spins(Spinner(0.0), ours, clock, 3) == [False, False, False]
