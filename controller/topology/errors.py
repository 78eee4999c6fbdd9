"""Topology errors: each names the file, the place in it and what is wrong."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    where: str  # e.g. "planes[1].t1[0].usid"; "" for the file as a whole
    message: str


class TopologyError(Exception):
    """A topology file that cannot be planned; ``str()`` is one line per problem."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(
            f"{self.source}: {p.where}: {p.message}" if p.where else f"{self.source}: {p.message}"
            for p in self.problems)


def location(loc: Sequence[str | int]) -> str:
    """``('planes', 1, 't1', 0, 'usid')`` -> ``planes[1].t1[0].usid``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text
