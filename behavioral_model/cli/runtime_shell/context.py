"""What every command group works with: the P4Runtime session, the P4Info helper,
where output goes, and the error a command raises for bad input."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from p4.v1 import p4runtime_pb2

from p4rt_client import P4InfoHelper, P4RuntimeSession, update

__all__ = ["Command", "CommandError", "ShellContext", "expect_args", "INSERT", "MODIFY", "DELETE"]

INSERT = p4runtime_pb2.Update.INSERT
MODIFY = p4runtime_pb2.Update.MODIFY
DELETE = p4runtime_pb2.Update.DELETE


class CommandError(Exception):
    """Bad input to a command (printed as one ``Error:`` line)."""


@dataclass(frozen=True)
class Command:
    """One command: ``usage`` is its argument synopsis, ``run`` gets the words."""

    name: str
    usage: str
    summary: str
    run: Callable[[list[str]], None]


@dataclass
class ShellContext:
    session: P4RuntimeSession
    helper: P4InfoHelper
    out: Callable[[str], None] = print

    def write(self, kind: int, *entities: Any) -> None:
        """One WriteRequest of ``kind`` updates (P4RuntimeWriteError on failure)."""
        self.session.write([update(kind, e) for e in entities])

    def write_updates(self, updates: Iterable[p4runtime_pb2.Update]) -> None:
        batch = list(updates)
        if batch:
            self.session.write(batch)

    def read(self, *entities: Any) -> list[p4runtime_pb2.Entity]:
        return self.session.read(entities)


def expect_args(words: list[str], low: int, high: int | None, usage: str) -> None:
    """CommandError unless ``low <= len(words) <= high`` (None: no upper bound)."""
    if len(words) < low or (high is not None and len(words) > high):
        raise CommandError(f"usage: {usage}")
