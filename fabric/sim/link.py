"""Cables between device ports: a rate, a propagation delay, a loss rate, up or down.

A frame is serialised at the cable's rate (its length in bits over the rate) and
arrives whole after the propagation delay (store and forward). A cable that is down,
or the loss draw, drops the frame; so does a cable that goes down while the frame is
on it. Each direction is a :class:`Channel`; both share the cable's state. Loss draws
come from the cable's own random generator, seeded from the run's seed and the cable's
name, so a run is deterministic. Whoever sees a port's link state (``fabric.sim.ports``:
the NIC's link-down detection) watches the cable: its ``watchers`` are called on every
change of ``up``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from zlib import crc32

from .events import EventLoop

# Where a frame is delivered: (port, frame) at the far device.
Receive = Callable[[int, bytes], None]
# Told when a cable goes down or comes back (the cable, its new state in ``up``).
CableWatcher = Callable[["Cable"], None]


@dataclass
class LinkCounters:
    frames: int = 0
    bytes: int = 0
    dropped_down: int = 0
    dropped_loss: int = 0

    @property
    def dropped(self) -> int:
        return self.dropped_down + self.dropped_loss


@dataclass
class Cable:
    """Both directions of one cable; ``name`` is ``dev:port-dev:port``."""

    name: str
    rate_bps: float  # 0: infinitely fast (a host's port to its NIC)
    delay_us: float
    loss: float = 0.0
    seed: int = 0
    counters: LinkCounters = field(default_factory=LinkCounters)
    watchers: list[CableWatcher] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed ^ crc32(self.name.encode()))
        self._up = True

    @property
    def up(self) -> bool:
        return self._up

    @up.setter
    def up(self, up: bool) -> None:
        """A change of state is told to the watchers (setting the same state is not)."""
        if up == self._up:
            return
        self._up = up
        for watcher in self.watchers:
            watcher(self)


class Channel:
    """One direction of a cable: frames from one device port to the far port."""

    __slots__ = ("env", "cable", "far_port", "receive", "_us_per_byte", "_later")

    def __init__(self, env: EventLoop, cable: Cable, far_port: int,
                 receive: Receive) -> None:
        self.env = env
        self.cable = cable
        self.far_port = far_port
        self.receive = receive
        self._us_per_byte = 8e6 / cable.rate_bps if cable.rate_bps else 0.0
        self._later = env.call_later

    def transmit(self, frame: bytes) -> float:
        """Put ``frame`` on the wire now; returns its serialisation time (the port is
        busy that long)."""
        cable = self.cable
        counters = cable.counters
        busy = len(frame) * self._us_per_byte
        if not cable.up:
            counters.dropped_down += 1
            return busy
        if cable.loss and cable.rng.random() < cable.loss:
            counters.dropped_loss += 1
            return busy
        counters.frames += 1
        counters.bytes += len(frame)
        self._later(busy + cable.delay_us, self._arrive, frame)
        return busy

    def _arrive(self, frame: bytes) -> None:
        if not self.cable.up:
            self.cable.counters.dropped_down += 1
            return
        self.receive(self.far_port, frame)
