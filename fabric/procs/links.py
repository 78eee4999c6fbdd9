"""Failure injection on the patch panel's links: each link can be down, or drop a
fraction of its frames chosen by its own seeded random stream, and counts what it
carried and dropped in each direction."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class DirectionCounters:
    forwarded: int = 0
    dropped_down: int = 0
    dropped_loss: int = 0


@dataclass
class LinkState:
    """One link of the panel: a cable between two device ports, or a device port and
    its host socket. ``ends`` are the two sides as text (``dev:port`` or ``host``);
    ``counters[i]`` counts frames sent from ``ends[i]``."""

    name: str
    ends: tuple[str, str]
    seed: int
    up: bool = True
    loss: float = 0.0
    counters: tuple[DirectionCounters, DirectionCounters] = field(
        default_factory=lambda: (DirectionCounters(), DirectionCounters()))
    _rngs: tuple[random.Random, random.Random] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # A stream per direction: the two directions of a host link are served by
        # different threads, and a shared stream would make the drops depend on timing.
        # A string seed is hashed with SHA-512: the same stream in every run and process.
        self._rngs = (random.Random(f"{self.seed}/{self.name}/0"),
                      random.Random(f"{self.seed}/{self.name}/1"))

    def set_loss(self, probability: float) -> None:
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"loss probability {probability} is not between 0 and 1")
        self.loss = probability

    def admit(self, direction: int, frames: list[bytes]) -> list[bytes]:
        """The ``frames`` sent from ``ends[direction]`` that get through, in order; all
        of them are counted."""
        counters = self.counters[direction]
        if not self.up:
            counters.dropped_down += len(frames)
            return []
        if self.loss:
            rand, loss = self._rngs[direction].random, self.loss
            kept = [frame for frame in frames if rand() >= loss]
            counters.dropped_loss += len(frames) - len(kept)
            frames = kept
        counters.forwarded += len(frames)
        return frames

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "ends": list(self.ends), "up": self.up, "loss": self.loss,
                "counters": [vars(c).copy() for c in self.counters]}
