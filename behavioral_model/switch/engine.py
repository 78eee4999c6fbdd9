"""The v1model data path of one switch around the pure executor, without threads or
clocks: ingress -> traffic manager -> egress, with resubmission and recirculation.

    dp = Dataplane(TrafficManager())
    dp.set_program(program)
    dp.receive(1, frame, now)           # ingress; the packet waits in the TM
    t = dp.next_departure_time()        # when a queued packet can leave
    outputs = dp.service(t)             # egress of everything due: [OutputPacket]

The real-time switch (:mod:`behavioral_model.switch.core`) calls these from its data
plane thread with a wall clock; a discrete-event network calls them in virtual time.
Each call takes ``now`` in microseconds; the device sees ``int(now)`` as its
timestamps, like simple_switch's microseconds since start.
"""

from __future__ import annotations

import logging
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
            log.debug("[pkt %d] port %d, %d bytes: dropped, no P4 program loaded",
                      self._packet_ids, port, len(data))
            self.stats.ingress_drops += 1
            return
        self._ingress(self._packet_ids, 0, data, port, now, NORMAL, None)

    def _ingress(self, pid: int, rounds: int, data: bytes, port: int, now: float,
                 itype: int, meta: Any) -> None:
        debug = log.isEnabledFor(logging.DEBUG)
        device = self._device(debug)
        while True:
            if debug:
                self._tracer.label = f"[pkt {pid}]" + (f".{rounds}" if rounds else "")
                self._tracer.debug("ingress: port %d, %d bytes, instance type %d",
                                   port, len(data), itype)
            jobs, again = device.ingress(data, port, int(now), itype, meta)
            if debug:
                self._log_ingress_result(device, jobs, again)
            elif not jobs and again is None:
                self.stats.ingress_drops += 1
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
        stats = self.stats
        for job in self.tm.dequeue_ready(now, limit):
            pid, rounds = tags.pop(id(job), (0, 0))
            if debug:
                self._tracer.label = f"[pkt {pid}]" + (f".{rounds}" if rounds else "")
                self._tracer.debug(
                    "egress: port %d, queued %d us (%d left behind)", job.port,
                    job.sm.deq_timedelta, job.sm.deq_qdepth)
            pkts, recirc = device.egress(job, int(now))
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
                    continue
                data, port, itype, meta, _ = recirc
                self._ingress(pid, rounds + 1, data, port, now, itype, meta)
        return out

    def pending(self) -> int:
        """Packets waiting in the traffic manager."""
        return len(self.tm)
