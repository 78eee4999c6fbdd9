"""The controller's structured log: every event is one line, ``TIME EVENT key=value ...``
for people or one JSON object (``--json-log``) for programs, written from any thread.

Events: ``connected``, ``reconnected``, ``pushed`` (a pipeline), ``wrote`` (entries:
inserted, modified, deleted), ``in-sync`` (nothing to write), ``apply-failed``,
``unreachable``, ``another-primary``, ``device-lost``, ``digest`` (an EV event),
``top-up``, ``top-up-deferred`` (written at the next reconnection), ``no-backup-left``,
``probe-sent``, ``probe-failed``, ``probes-given-up``, ``restored``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TextIO

Listener = Callable[[dict[str, Any]], None]


class EventLog:
    """Writes events to ``out`` (None: nowhere) and keeps the last ``keep`` of them,
    for ``watch``'s table and for tests. ``listeners`` are called with each event."""

    def __init__(self, out: TextIO | None = sys.stderr, json_lines: bool = False,
                 keep: int = 1000) -> None:
        self.out = out
        self.json_lines = json_lines
        self.recent: deque[dict[str, Any]] = deque(maxlen=keep)
        self.listeners: list[Listener] = []
        self._lock = threading.Lock()

    def emit(self, event: str, **fields: Any) -> None:
        record = {"time": time.time(), "event": event, **fields}
        with self._lock:
            self.recent.append(record)
            if self.out is not None:
                self.out.write(self.format(record) + "\n")
                self.out.flush()
            listeners = list(self.listeners)
        for listener in listeners:
            listener(record)

    def format(self, record: dict[str, Any]) -> str:
        if self.json_lines:
            stamped = dict(record, time=datetime.fromtimestamp(record["time"], UTC)
                           .isoformat(timespec="milliseconds"))
            return json.dumps(stamped)
        return format_line(record)

    def count(self, event: str, **match: Any) -> int:
        """How many of the kept events are ``event`` with these fields."""
        with self._lock:
            return sum(1 for r in self.recent if r["event"] == event
                       and all(r.get(k) == v for k, v in match.items()))


def format_line(record: dict[str, Any]) -> str:
    stamp = datetime.fromtimestamp(record["time"]).strftime("%H:%M:%S.%f")[:-3]
    fields = " ".join(f"{k}={_text(v)}" for k, v in record.items()
                      if k not in ("time", "event"))
    return f"{stamp} {record['event']:<16} {fields}".rstrip()


def _text(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if not text or " " in text else text
