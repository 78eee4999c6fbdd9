"""What the P4Runtime server needs from the device it controls.

The switch process (``behavioral_model.switch.SwitchCore``) and the in-memory
:class:`~behavioral_model.p4runtime.local_target.LocalTarget` both implement this
protocol; the server only ever talks to a target through it.

Contract
--------
* ``lock`` guards the device state and the pipeline: the server holds it while it reads
  or writes ``state``; the target holds it while it processes a packet and while it
  swaps the pipeline. It is re-entrant, so the server may call ``set_pipeline`` while
  holding it (it does so for RECONCILE_AND_COMMIT, to copy state without a gap).
* ``set_pipeline`` atomically replaces the program, its P4Info and cookie, and gives
  the device a *fresh* state (``program.new_state()``).
* ``packet_out`` injects a controller packet: ``metadata`` maps the names of the
  P4Info ``packet_out`` controller-header fields to values (already range-checked);
  the target serializes that header in front of ``data`` (see ``packet_io``) and feeds
  the result to ingress on its CPU port, as BMv2 does.
* ``now_ns`` is the device clock in nanoseconds, the clock the pipeline stamps table
  hits with (``TableEntry.last_hit_ns``); idle timeouts are measured in it, so a virtual
  clock gives virtual idle times.
* Listeners are called *without* ``lock`` held, from whatever thread produced the
  event: a packet-in with the ``packet_in`` header already removed and its fields
  decoded into ``metadata`` (name -> value), or one digest message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from p4.config.v1 import p4info_pb2

from behavioral_model.program import P4Program
from behavioral_model.runtime.digests import DigestMessage
from behavioral_model.runtime.state import DeviceState

__all__ = ["P4RuntimeTarget", "PacketInListener", "DigestListener"]

PacketInListener = Callable[[bytes, dict[str, int]], None]
DigestListener = Callable[[DigestMessage], None]


class P4RuntimeTarget(Protocol):
    device_id: int
    lock: threading.RLock

    def set_pipeline(self, program: P4Program, p4info: p4info_pb2.P4Info,
                     cookie: int) -> None:
        """Atomically swap in ``program`` with a fresh device state."""
        ...

    def pipeline(self) -> tuple[P4Program, p4info_pb2.P4Info, int] | None:
        """The running program, its P4Info and cookie; None before any is set."""
        ...

    @property
    def state(self) -> DeviceState | None:
        """The running device state (None before a pipeline is set)."""
        ...

    def now_ns(self) -> int:
        """The device clock, in nanoseconds (the data plane's ``now_us`` * 1000)."""
        ...

    def packet_out(self, data: bytes, metadata: dict[str, int]) -> None:
        ...

    def add_packet_in_listener(self, fn: PacketInListener) -> None:
        ...

    def add_digest_listener(self, fn: DigestListener) -> None:
        ...
