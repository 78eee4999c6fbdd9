"""Cables between device ports: a rate, a propagation delay, a loss rate, up or down.

A frame is serialised at the cable's rate (its length in bits over the rate) and
arrives whole after the propagation delay (store and forward). A cable that is down,
or the loss draw, drops the frame; so does a cable that goes down while the frame is
on it. Each direction is a :class:`Channel`; both share the cable's state. Loss draws
come from the cable's own random generator, seeded from the run's seed and the cable's
name (a NIC's cable: per direction, so that one end's draws do not depend on when the
other sends), so a run is deterministic. Whoever sees a port's link state
(``fabric.sim.ports``: the NIC's link-down detection) watches the cable: its
``watchers`` are called on every change of ``up``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
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
        # the way back's draws on a NIC's cable (``Channel.boundary``)
        self.rng_back = random.Random(self.seed ^ crc32(f"{self.name}<".encode()))
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


# A channel's frames are numbered below this; its index above it.
FRAMES_PER_CHANNEL = 1 << 40
FRAME, PFC = 0, 1  # what a delivery from another process carries (``Channel.deliver``)

# What a channel toward another process's device sends instead of scheduling it:
# (arrival time, send time, key, channel index, FRAME or PFC, frame or (priority, pause)).
Remote = tuple[float, float, tuple[int, Any, int], int, int, object]


class Channel:
    """One direction of a cable: frames from one device port to the far port.

    ``index`` is the channel's place in the network (the same in every process of a
    partitioned run). On a ``boundary`` channel (between a NIC and its switch: where
    a partitioned run's processes meet, ``fabric.sim.partition``) frames are placed
    by ``EventLoop.call_at``, in every run, and with ``outbox`` set (the far device
    lives in another process) they are appended to it instead of scheduled."""

    __slots__ = ("env", "cable", "far_port", "receive", "far", "index", "boundary",
                 "outbox", "rng", "_us_per_byte", "_later", "_key")

    def __init__(self, env: EventLoop, cable: Cable, far_port: int, receive: Receive,
                 index: int = 0, far: Any = None, boundary: bool = False,
                 back: bool = False) -> None:
        self.env = env
        self.cable = cable
        self.far_port = far_port
        self.receive = receive
        self.far = far  # the far device (PFC frames go to it); None: a host
        self.index = index
        self.boundary = boundary
        self.outbox: list[Remote] | None = None
        # loss draws: a NIC's cable draws per direction, any other per cable
        self.rng = cable.rng_back if boundary and back else cable.rng
        self._us_per_byte = 8e6 / cable.rate_bps if cable.rate_bps else 0.0
        self._later = env.call_later
        self._key = index * FRAMES_PER_CHANNEL

    def transmit(self, frame: bytes) -> float:
        """Put ``frame`` on the wire now; returns its serialisation time (the port is
        busy that long)."""
        cable = self.cable
        counters = cable.counters
        busy = len(frame) * self._us_per_byte
        if not cable._up:  # the state itself: the property would cost a call per hop
            counters.dropped_down += 1
            return busy
        if cable.loss and self.rng.random() < cable.loss:
            counters.dropped_loss += 1
            return busy
        counters.frames += 1
        counters.bytes += len(frame)
        if self.boundary:
            self._place(busy + cable.delay_us, FRAME, frame)
        else:
            self._later(busy + cable.delay_us, self._arrive, frame)
        return busy

    def send_pfc(self, priority: int, pause: bool) -> None:
        """A PFC frame to the far device, after the cable's delay."""
        if self.boundary:
            self._place(self.cable.delay_us, PFC, (priority, pause))
        else:
            self._later(self.cable.delay_us, self._pfc, (priority, pause))

    def _place(self, delay_us: float, kind: int, payload: object) -> None:
        env = self.env
        number = self._key
        self._key = number + 1
        now = env.now
        key = env.arrival_key(number)
        if self.outbox is None:
            env.call_at(now + delay_us, now, key,
                        self._arrive if kind == FRAME else self._pfc, payload)
        else:
            self.outbox.append((now + delay_us, now, key, self.index, kind, payload))

    def deliver(self, at: float, sent: float, key: tuple[int, Any, int], kind: int,
                payload: object) -> None:
        """Schedule here what the sending process's copy of this channel sent."""
        self.env.call_at(at, sent, key, self._arrive if kind == FRAME else self._pfc, payload)

    def _arrive(self, frame: bytes) -> None:
        if not self.cable._up:
            self.cable.counters.dropped_down += 1
            return
        self.receive(self.far_port, frame)

    def _pfc(self, payload: tuple[int, bool]) -> None:
        self.far.pfc_frame(self.far_port, *payload)
