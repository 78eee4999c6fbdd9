"""The controller's log events counted as they happen, for the ``_total`` counters: the
log itself keeps only its latest events, and a counter must never go down."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from controller.events import EventLog


class EventCounts:
    """Listens to ``log`` from now on: every event by (event, device), and the NICs' EV
    digests by (NIC, QP index, reason). Thread-safe."""

    def __init__(self, log: EventLog) -> None:
        self._lock = threading.Lock()
        self._events: Counter[tuple[str, str]] = Counter()
        self._digests: Counter[tuple[str, int, str]] = Counter()
        log.listeners.append(self._on_event)

    def _on_event(self, record: dict[str, Any]) -> None:
        event, device = str(record["event"]), str(record.get("device", ""))
        with self._lock:
            self._events[event, device] += 1
            if event == "digest":
                self._digests[device, int(record["qp_index"]), str(record["reason"])] += 1

    def events(self) -> dict[tuple[str, str], int]:
        """``{(event, device): count}``."""
        with self._lock:
            return dict(self._events)

    def digests(self) -> dict[tuple[str, int, str], int]:
        """``{(nic, qp_index, reason): count}``."""
        with self._lock:
            return dict(self._digests)
