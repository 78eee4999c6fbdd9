"""When each flow of a run starts: at its ``start_us``, or once every flow it waits for
is done (a collective's steps). Records when each flow started and finished."""

from __future__ import annotations

from collections.abc import Callable

from .flows import Flow

__all__ = ["FlowSchedule"]


class FlowSchedule:
    """``start(index)`` posts a flow's writes; call ``write_done(index)`` as each of
    its writes completes. ``ready()`` gives the flows that start by time alone."""

    def __init__(self, flows: list[Flow], start: Callable[[int], None],
                 now: Callable[[], float]) -> None:
        self.flows = flows
        self._start = start
        self._now = now
        self.started_us: dict[int, float] = {}
        self.done_us: dict[int, float] = {}
        # a flow without writes (not in this run) is done when it starts
        self._left = {i: max(1, f.messages) for i, f in enumerate(flows)}
        self._waiting = {i: len(f.after) for i, f in enumerate(flows)}
        self._dependents: dict[int, list[int]] = {}
        for i, flow in enumerate(flows):
            for before in flow.after:
                self._dependents.setdefault(before, []).append(i)

    def ready(self) -> list[int]:
        """The flows that wait for no other flow."""
        return [i for i, n in self._waiting.items() if n == 0]

    def start(self, index: int) -> None:
        self.started_us[index] = self._now()
        self._start(index)

    def write_done(self, index: int) -> None:
        self._left[index] -= 1
        if self._left[index]:
            return
        self.done_us[index] = self._now()
        for after in self._dependents.get(index, ()):
            self._waiting[after] -= 1
            if self._waiting[after] == 0:
                self.start(after)

    @property
    def finished(self) -> bool:
        return len(self.done_us) == len(self.flows)
