"""Idle-timeout notifications (spec, "Idle-timeout" and "Table Idle Timeout
Notification").

A daemon thread scans, every :data:`SWEEP_PERIOD_S` seconds, the entries of the tables
with ``support_timeout = true`` whose ``idle_timeout_ns`` (TTL) is not 0. While the
running pipeline has no such table the thread sleeps until the server swaps the pipeline
(:meth:`IdleTimeoutSweeper.pipeline_changed`): the fabric simulator runs hundreds of
devices in one process, and ten scans a second on each would take the interpreter from
the simulation that many times (docs/simulator-performance.md). An entry not
hit for at least its TTL (measured in the device clock, from its last hit or its
insertion: the pipeline stamps ``TableEntry.last_hit_ns``) is reported; all entries
found in one scan go out in a single ``IdleTimeoutNotification``, so none is held back
longer than one scan (the spec recommends at most one scanning interval).

After reporting an entry its idle timer is reset, as the spec requires: if it stays
idle, it is reported again one TTL later, not at every scan. The reset is kept here
rather than in ``last_hit_ns``, so a Read's ``time_since_last_hit`` still reports the
time since the entry was really hit (the spec's pseudo-code resets the hardware's
"time since last hit"; the spec's definition of that field is the time since the last
hit, which we keep). A MODIFY is not a hit and does not reset the timer; a new TTL
applies from the last hit (the spec only ties the timer to hits).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.tables import TableEntry

from .context import PipelineContext
from .tables import encode_entry
from .target import P4RuntimeTarget

__all__ = ["IdleTimeoutSweeper", "SWEEP_PERIOD_S"]

log = logging.getLogger("behavioral_model.p4runtime")

#: Seconds between two scans for idle entries (BMv2 scans every second by default;
#: the spec's example uses 10 ms).
SWEEP_PERIOD_S = 0.1

SendAll = Callable[[p4runtime_pb2.StreamMessageResponse], None]


class IdleTimeoutSweeper:
    """Finds idle entries of the running pipeline and sends notifications for them."""

    def __init__(self, target: P4RuntimeTarget,
                 get_context: Callable[[], PipelineContext | None], send_all: SendAll,
                 period_s: float = SWEEP_PERIOD_S) -> None:
        self._target = target
        self._get_context = get_context
        self._send_all = send_all
        self._period_s = period_s
        # entry -> device time of its last notification (entries compare by identity);
        # rebuilt at each scan, so deleted entries and old pipelines are forgotten
        self._notified: dict[TableEntry, int] = {}
        self._sweeping = threading.Lock()  # one scan at a time (thread, or a caller)
        self._stop = threading.Event()
        self._wake = threading.Event()  # set by stop() and pipeline_changed()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="p4rt-idle-timeout",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def pipeline_changed(self) -> None:
        """The server swapped the pipeline: scan it if it has tables with timeouts."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            ctx = self._get_context()
            timed = ctx is not None and any(info.supports_timeout
                                            for info in ctx.index.tables.values())
            self._wake.wait(self._period_s if timed else None)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.sweep()
            except Exception:  # noqa: BLE001 - a bug must not stop later scans
                log.exception("idle-timeout scan failed")

    def sweep(self) -> p4runtime_pb2.StreamMessageResponse | None:
        """One scan: send (and return) the notification for the entries that are idle
        now, if any (the spec forbids empty notifications)."""
        with self._sweeping:
            return self._sweep()

    def _sweep(self) -> p4runtime_pb2.StreamMessageResponse | None:
        ctx = self._get_context()
        if ctx is None:
            self._notified = {}
            return None
        msg = p4runtime_pb2.StreamMessageResponse()
        notification = msg.idle_timeout_notification
        notified: dict[TableEntry, int] = {}
        with self._target.lock:  # the data plane writes last_hit_ns under it
            now = self._target.now_ns()
            for info in ctx.index.tables.values():
                if not info.supports_timeout:
                    continue
                table = ctx.state.tables[info.name]
                for entry in table.entries():
                    ttl = entry.idle_timeout_ns
                    if ttl <= 0:
                        continue  # a TTL of 0 never expires
                    since = entry.last_hit_ns
                    last_notice = self._notified.get(entry)
                    if last_notice is not None and last_notice > since:
                        since = last_notice  # reported already: timer reset then
                    if now - since < ttl:
                        if last_notice is not None:
                            notified[entry] = last_notice
                        continue
                    notified[entry] = now
                    # Key fields, controller_metadata, metadata and idle_timeout_ns must
                    # be set; the action may be set too (spec, "Table Idle Timeout
                    # Notification").
                    encode_entry(ctx, info, table, entry,
                                 te=notification.table_entry.add())
        self._notified = notified
        if not notification.table_entry:
            return None
        # "nanoseconds since Epoch as per the server's local clock" (spec): wall time
        notification.timestamp = time.time_ns()
        self._send_all(msg)
        return msg
