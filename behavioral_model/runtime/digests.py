"""Digest messages produced by the data plane (``digest<T>(receiver, data)``) and
waiting for the control plane.

The executor pushes one :class:`DigestMessage` per ``digest()`` call; the P4Runtime
server drains them and batches per digest using :class:`DigestConfig`
(P4Runtime ``DigestEntry.Config``). Batching here is deliberately simple: a bounded
FIFO, with :meth:`DigestQueue.drain_batch` taking up to ``max_list_size`` messages
of one digest.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

__all__ = ["DigestMessage", "DigestConfig", "DigestQueue"]


@dataclass(frozen=True, slots=True)
class DigestMessage:
    """One digest: its (P4Info) name, field values in declaration order, and the
    time it was generated in microseconds."""

    name: str
    values: tuple[int, ...]
    timestamp_us: int


@dataclass(frozen=True, slots=True)
class DigestConfig:
    """P4Runtime ``DigestEntry.Config``: at most ``max_list_size`` messages per list
    (0 = no limit), sent after at most ``max_timeout_ns``; ``ack_timeout_ns`` is how
    long the same data is suppressed while a list is unacknowledged."""

    max_list_size: int = 1
    max_timeout_ns: int = 0
    ack_timeout_ns: int = 0


class DigestQueue:
    """Bounded FIFO of digest messages; when full, new messages are dropped and
    counted in ``dropped`` (the data plane never blocks)."""

    def __init__(self, capacity: int = 65536) -> None:
        self.capacity = capacity
        self.dropped = 0
        self._messages: deque[DigestMessage] = deque()
        self._configs: dict[str, DigestConfig] = {}

    def __len__(self) -> int:
        return len(self._messages)

    def push(self, message: DigestMessage) -> bool:
        """Queue ``message``; False (and ``dropped`` += 1) if the queue is full."""
        if len(self._messages) >= self.capacity:
            self.dropped += 1
            return False
        self._messages.append(message)
        return True

    def drain(self, max: int | None = None) -> list[DigestMessage]:
        """Remove and return up to ``max`` of the oldest messages (all if None)."""
        messages = self._messages
        count = len(messages) if max is None else min(max, len(messages))
        return [messages.popleft() for _ in range(count)]

    def drain_batch(self, name: str) -> list[DigestMessage]:
        """Remove and return the oldest messages of digest ``name``, at most its
        configured ``max_list_size`` (all of them when the limit is 0)."""
        limit = self.config(name).max_list_size
        batch: list[DigestMessage] = []
        kept: deque[DigestMessage] = deque()
        for message in self._messages:
            if message.name == name and (limit == 0 or len(batch) < limit):
                batch.append(message)
            else:
                kept.append(message)
        self._messages = kept
        return batch

    def configure(self, name: str, config: DigestConfig) -> None:
        self._configs[name] = config

    def unconfigure(self, name: str) -> None:
        self._configs.pop(name, None)

    def config(self, name: str) -> DigestConfig:
        """The configuration of digest ``name`` (defaults if never configured)."""
        return self._configs.get(name, DigestConfig())

    def is_configured(self, name: str) -> bool:
        return name in self._configs

    def clear(self) -> None:
        """Drop queued messages and configurations."""
        self._messages.clear()
        self._configs.clear()
        self.dropped = 0
