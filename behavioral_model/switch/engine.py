"""The v1model data path of one switch around the pure executor, without threads or
clocks: ingress -> traffic manager -> egress, with resubmission and recirculation.

    dp = Dataplane(TrafficManager())
    dp.set_program(program)
    dp.receive(1, frame, now)           # ingress; the packet waits in the TM
    t = dp.next_departure_time()        # when a queued packet can leave
    outputs = dp.service(t)             # egress of everything due: [OutputPacket]
    outputs = dp.process(1, frame, now) # receive + service(now): one packet through

A discrete-event network calls these in virtual time; the real-time switch
(:mod:`behavioral_model.switch.core`) runs each batch of arriving packets with
:meth:`process_batch` (one packet after the other, as :meth:`process` would) and calls
:meth:`service` when rate-limited queues are due, with a wall clock.
Each call takes ``now`` in microseconds; the device sees ``int(now)`` as its
timestamps, like simple_switch's microseconds since start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..pipeline.v1model import (
    DROP_PORT,
    MAX_RECIRCULATIONS,
    NORMAL,
    EgressJob,
    OutputPacket,
    V1ModelDevice,
)
from ..runtime.digests import DigestMessage
from ..runtime.state import DeviceState
from ..tm import TrafficManager
from .trace import Tracer, make_tracing_device

__all__ = ["Dataplane", "DataplaneStats", "OutputPacket"]

log = logging.getLogger("behavioral_model.switch")


@dataclass
class DataplaneStats:
    received: int = 0
    transmitted: int = 0
    ingress_drops: int = 0
    egress_drops: int = 0
    tm_drops: int = 0
    recirculation_drops: int = 0
    resubmitted: int = 0
    recirculated: int = 0


class Dataplane:
    """One device's pipeline plus its traffic manager (not thread-safe)."""

    def __init__(self, tm: TrafficManager | None = None, seed: int = 0) -> None:
        self.tm = tm if tm is not None else TrafficManager()
        self.seed = seed
        self.program: Any = None
        self.device: V1ModelDevice | None = None
        self.stats = DataplaneStats()
        self._tracer = Tracer()
        self._trace_device: V1ModelDevice | None = None
        self._trace_built = False
        self._packet_ids = 0
        # (packet id, passes through ingress) of queued jobs, by id(job)
        self._tags: dict[int, tuple[int, int]] = {}

    # -- program ------------------------------------------------------------------------
    def set_program(self, program: Any, state: DeviceState | None = None) -> int:
        """Run ``program`` from now on (with ``state`` or a fresh one). Packets queued
        for the old program are dropped; returns how many."""
        device = program.new_device(state, seed=self.seed)
        flushed = self.tm.clear()
        self._tags.clear()
        if flushed:
            log.info("pipeline replaced: %d queued packets dropped", len(flushed))
        self.program = program
        self.device = device
        self._trace_device = None  # built on first use, when debug logging is on
        self._trace_built = False
        return len(flushed)

    @property
    def state(self) -> DeviceState | None:
        return self.device.state if self.device is not None else None

    def _device(self, debug: bool) -> V1ModelDevice:
        assert self.device is not None
        if not debug:
            return self.device
        if not self._trace_built:
            self._trace_built = True
            self._trace_device = make_tracing_device(self.program, self.device.state,
                                                     self._tracer, self.seed)
        return self._trace_device or self.device

    def drain_digests(self) -> list[DigestMessage]:
        if self.device is None or not len(self.device.state.digests):
            return []
        return self.device.state.digests.drain()

    # -- ingress ------------------------------------------------------------------------
    def receive(self, port: int, data: bytes, now: float) -> None:
        """A packet arrives on ``port``: parser, ingress, into the traffic manager
        (resubmitted packets go round again at once)."""
        self._packet_ids += 1
        self.stats.received += 1
        if self.device is None:
            self._no_program(port, data)
            return
        self._ingress(self._packet_ids, 0, data, port, now, NORMAL, None, None)

    def process(self, port: int, data: bytes, now: float) -> list[OutputPacket]:
        """``receive(port, data, now)``, then ``service(now)`` until nothing is due at
        ``now`` any more (recirculated packets included); returns the outputs. The
        results, queueing metadata and counters are those of these calls, but when the
        packet's egress queue is empty and may send (the common case) it goes from
        ingress straight to egress, without the queue (:meth:`TrafficManager.pass_through`).
        A packet waits in the traffic manager if its port has packets queued, if a rate
        holds it back, or if some other packet is due at ``now`` (that one leaves first)."""
        out: list[OutputPacket] = []
        self.process_batch(((port, data),), now, out)
        return out

    def process_batch(self, frames: Iterable[tuple[int, bytes]], now: float,
                      out: list[OutputPacket]) -> None:
        """:meth:`process` for each ``(port, data)`` of ``frames`` in turn, all at
        ``now``; outputs appended to ``out``. An error in the pipeline drops that
        packet (logged) and the others go on."""
        device = self.device
        if device is None:
            for port, data in frames:
                self._packet_ids += 1
                self.stats.received += 1
                self._no_program(port, data)
            return
        stats = self.stats
        tm = self.tm
        pid = self._packet_ids
        debug = log.isEnabledFor(logging.DEBUG)  # traced packets take the general path
        t = int(now)
        run_ingress = device.run_ingress
        run_egress = device.run_egress
        admit = tm.admit
        for port, data in frames:
            pid += 1
            stats.received += 1
            try:
                if debug:
                    self._ingress(pid, 0, data, port, now, NORMAL, None, out)
                    continue
                ran = run_ingress(data, port, t)
                if ran is None:  # an assertion failed: dropped
                    stats.ingress_drops += 1
                    continue
                hdr, meta, sm, pk = ran
                espec = sm.egress_spec
                # the common case inline: one copy for egress, all queues empty
                if (pk.clone_spec is None and pk.resubmit is None and not sm.mcast_grp
                        and espec != DROP_PORT and not tm._size
                        and admit(espec, sm.priority, sm, now)):
                    pkts, recirc = run_egress(espec, 0, NORMAL, hdr, meta, sm, pk, t)
                    if recirc is not None:
                        self._egress_result(pkts, recirc, pid, 0, now, False, out)
                    elif pkts:
                        out += pkts
                        stats.transmitted += len(pkts)
                    else:
                        stats.egress_drops += 1
                else:
                    first = device.end_ingress(data, port, t, NORMAL, hdr, meta, sm, pk)
                    self._ingress(pid, 0, data, port, now, NORMAL, None, out, first)
            except Exception:  # a bug in the pipeline must not kill the switch
                log.exception("error in the data plane; packet dropped")
            finally:
                self._packet_ids = pid
                # packets queued earlier may be due (a recirculated one, one behind a rate)
                if tm._size:
                    self.serve_due(now, out)

    def serve_due(self, now: float, out: list[OutputPacket] | None = None
                  ) -> list[OutputPacket]:
        """:meth:`service` at ``now`` until no queued packet is due any more (packets
        recirculated meanwhile included); the outputs (appended to ``out`` if given)."""
        if out is None:
            out = []
        tm = self.tm
        while True:
            due = tm.next_departure_time()
            if due is None or due > now:
                return out
            served = tm.stats.dequeued
            out.extend(self.service(now))
            if tm.stats.dequeued == served:  # pragma: no cover - defensive
                return out

    def _no_program(self, port: int, data: bytes) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("[pkt %d] port %d, %d bytes: dropped, no P4 program loaded",
                      self._packet_ids, port, len(data))
        self.stats.ingress_drops += 1

    def _ingress(self, pid: int, rounds: int, data: bytes, port: int, now: float,
                 itype: int, meta: Any, out: list[OutputPacket] | None,
                 first: tuple[list[EgressJob], tuple | None] | None = None) -> None:
        """Ingress (and resubmissions) of one packet; each copy for egress is queued,
        or with ``out`` given, passed through to egress (outputs appended to ``out``)
        when the traffic manager allows it and nothing else is due at ``now``.
        ``first``: the result of the first ``device.ingress`` if already run."""
        debug = log.isEnabledFor(logging.DEBUG)
        device = self._device(debug)
        tm = self.tm
        while True:
            if debug:
                self._tracer.label = f"[pkt {pid}]" + (f".{rounds}" if rounds else "")
                self._tracer.debug("ingress: port %d, %d bytes, instance type %d",
                                   port, len(data), itype)
            if first is None:
                jobs, again = device.ingress(data, port, int(now), itype, meta)
            else:
                (jobs, again), first = first, None
            if debug:
                self._log_ingress_result(device, jobs, again)
            elif not jobs and again is None:
                self.stats.ingress_drops += 1
            if (out is not None and again is None and len(jobs) == 1
                    and (not tm._size or tm.next_departure_time() > now)  # type: ignore[operator]
                    and tm.pass_through(jobs[0], now)):
                job = jobs[0]
                if debug:
                    self._tracer.debug("tm: queued on port %d, priority %d (0 ahead)",
                                       job.port, job.priority)
                self._egress(job, pid, rounds, now, debug, device, out)
                return
            for job in jobs:
                self._enqueue(job, pid, rounds, now, debug)
            if again is None:
                return
            rounds += 1
            self.stats.resubmitted += 1
            if rounds > MAX_RECIRCULATIONS:
                self._too_many(pid, rounds)
                return
            data, port, itype, meta, _ = again

    def _log_ingress_result(self, device: V1ModelDevice, jobs: list[EgressJob],
                            again: tuple | None) -> None:
        sm = getattr(device, "last_sm", None)
        if again is not None:
            self._tracer.debug("ingress: resubmitted")
        if jobs:
            ports = ", ".join(f"{j.port}" + (f" (rid {j.rid})" if j.rid else "")
                              for j in jobs)
            self._tracer.debug("ingress: to egress port(s) %s", ports)
        elif again is None:
            self.stats.ingress_drops += 1
            if sm is None:
                reason = "dropped at the end of ingress"
            elif sm.mcast_grp:
                reason = f"dropped: multicast group {sm.mcast_grp} is empty or unknown"
            elif sm.egress_spec == DROP_PORT:
                reason = "dropped at the end of ingress (egress_spec = drop port 511)"
            else:
                reason = "dropped at the end of ingress"
            self._tracer.debug("%s", reason)

    def _enqueue(self, job: EgressJob, pid: int, rounds: int, now: float,
                 debug: bool) -> None:
        tm = self.tm
        if tm.enqueue(job, now):
            self._tags[id(job)] = (pid, rounds)
            if debug:
                self._tracer.debug("tm: queued on port %d, priority %d (%d ahead)",
                                   job.port, job.priority, job.sm.enq_qdepth)
            return
        self.stats.tm_drops += 1
        if job.priority >= tm.nb_priorities:
            log.warning("[pkt %d] priority %d out of range (%d priority queues): dropped",
                        pid, job.priority, tm.nb_priorities)
        elif debug:
            self._tracer.debug("tm: queue of port %d, priority %d full: tail drop",
                               job.port, job.priority)

    def _too_many(self, pid: int, rounds: int) -> None:
        self.stats.recirculation_drops += 1
        log.warning("[pkt %d] more than %d resubmissions/recirculations: dropped",
                    pid, MAX_RECIRCULATIONS)

    # -- egress -------------------------------------------------------------------------
    def next_departure_time(self) -> float | None:
        return self.tm.next_departure_time()

    def service(self, now: float, limit: int | None = None) -> list[OutputPacket]:
        """Egress for every packet the traffic manager releases at ``now`` (at most
        ``limit``); recirculated packets re-enter ingress at ``now``."""
        out: list[OutputPacket] = []
        if self.device is None:
            return out
        debug = log.isEnabledFor(logging.DEBUG)
        device = self._device(debug)
        tags = self._tags
        for job in self.tm.dequeue_ready(now, limit):
            pid, rounds = tags.pop(id(job), (0, 0))
            self._egress(job, pid, rounds, now, debug, device, out)
        return out

    def _egress(self, job: EgressJob, pid: int, rounds: int, now: float, debug: bool,
                device: V1ModelDevice, out: list[OutputPacket]) -> None:
        """Egress and deparser of one dequeued packet; outputs appended to ``out``; a
        recirculated packet re-enters ingress at ``now`` (and waits in the queues)."""
        if debug:
            self._tracer.label = f"[pkt {pid}]" + (f".{rounds}" if rounds else "")
            self._tracer.debug(
                "egress: port %d, queued %d us (%d left behind)", job.port,
                job.sm.deq_timedelta, job.sm.deq_qdepth)
        pkts, recirc = device.egress(job, int(now))
        self._egress_result(pkts, recirc, pid, rounds, now, debug, out)

    def _egress_result(self, pkts: list[OutputPacket], recirc: tuple | None, pid: int,
                       rounds: int, now: float, debug: bool, out: list[OutputPacket]) -> None:
        stats = self.stats
        if debug:
            for pkt in pkts:
                self._tracer.debug("out: port %d, %d bytes", pkt.port, len(pkt.data))
            if not pkts and recirc is None:
                self._tracer.debug("dropped at the end of egress")
        if pkts:
            out.extend(pkts)
            stats.transmitted += len(pkts)
        elif recirc is None:
            stats.egress_drops += 1
        if recirc is not None:
            stats.recirculated += 1
            if debug:
                self._tracer.debug("egress: recirculated")
            if rounds + 1 > MAX_RECIRCULATIONS:
                self._too_many(pid, rounds + 1)
                return
            data, port, itype, meta, _ = recirc
            self._ingress(pid, rounds + 1, data, port, now, itype, meta, None)

    def pending(self) -> int:
        """Packets waiting in the traffic manager."""
        return len(self.tm)
