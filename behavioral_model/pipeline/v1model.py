"""The v1model architecture around the compiled blocks, with BMv2 simple_switch semantics.

The order of events follows behavioral-model's docs/simple_switch.md ("pseudocode for what
happens at the end of ingress and egress processing"): after ingress an I2E clone is made
first, then resubmit wins over everything else, then a non-zero mcast_grp replicates,
then egress_spec 511 drops, else the packet goes to egress_spec. After egress an E2E clone
is made, then egress_spec 511 drops, then recirculate re-enters ingress, else the packet
leaves on egress_port. `process` is a pure function of (device state, packet, port, time):
queues, sockets and clocks live outside it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..runtime.digests import DigestMessage
from ..runtime.state import DeviceState
from .compiler import CompiledProgram
from .support import AssertionFailed
from .values import flatten_fields, owned

log = logging.getLogger("behavioral_model.pipeline")

DROP_PORT = 511
MAX_RECIRCULATIONS = 16

# standard_metadata.instance_type values (BMv2 simple_switch).
NORMAL, INGRESS_CLONE, EGRESS_CLONE, RECIRC, REPLICATION, RESUBMIT = 0, 1, 2, 4, 5, 6


@dataclass(slots=True)
class OutputPacket:
    port: int
    data: bytes


@dataclass(slots=True)
class EgressJob:
    """A packet between ingress and egress: what the traffic manager queues."""

    port: int
    hdr: Any
    meta: Any
    sm: Any
    payload: bytes
    instance_type: int
    rid: int = 0
    priority: int = 0
    # The packet's context from ingress: flags BMv2 keeps on the packet until it leaves
    # (recirculate, truncate) ride along; None for clones, which start afresh.
    ctx: PacketContext | None = None


class PacketContext:
    """Per-packet state the generated code reaches as `pk`. Rarely-set flags live as
    class-level defaults so that making a context per packet stays cheap."""

    payload = b""
    parser_error = 0
    resubmit: int | None = None
    recirculate: int | None = None
    clone_spec: tuple[int, int, int | None] | None = None
    truncate: int | None = None
    meter_color = 0

    def __init__(self, device: CompiledDevice, sm: Any, now_us: int) -> None:
        self.device = device
        self.sm = sm
        self.now_us = now_us

    @property
    def rng(self) -> random.Random:
        return self.device.rng

    def table_hit(self, table: Any, entry: Any) -> None:
        res = self.device.direct_by_table.get(table.name)
        if res is None:
            return
        if res[0]:
            cell = entry.direct_counter
            cell.packets += 1
            cell.bytes += self.sm.packet_length
        if res[1] and entry.direct_meter is not None:
            units = self.sm.packet_length if res[1] == "bytes" else 1
            self.meter_color = entry.direct_meter.execute(units, self.now_us)

    def for_copy(self, sm: Any) -> PacketContext:
        """The context of a multicast copy: the flags that stay with the packet."""
        pk = PacketContext(self.device, sm, self.now_us)
        pk.payload = self.payload
        pk.truncate = self.truncate
        pk.recirculate = self.recirculate
        return pk

    def set_truncate(self, length: int) -> None:
        # BMv2 keeps the smallest length asked for during the packet's life and cuts the
        # packet when it leaves (bm_sim/packet.h: truncate).
        self.truncate = length if self.truncate is None else min(self.truncate, length)

    def random(self, lo: int, hi: int) -> int:
        return self.device.rng.randint(lo, hi) if lo <= hi else lo

    def digest(self, name: str, values: tuple) -> None:
        self.device.state.digests.push(DigestMessage(name, values, self.now_us))

    def clone(self, kind: int, session: int, field_list: int | None) -> None:
        self.clone_spec = (kind, session, field_list)

    def log(self, fmt: str, data: tuple) -> None:
        text = fmt
        for value in data:
            text = text.replace("{}", str(value), 1)
        log.info("log_msg: %s", text)
        self.device.log_messages.append(text)

    def execute_meter(self, meter: Any, index: int) -> int:
        units = self.sm.packet_length if meter.kind == "bytes" else 1
        return meter.execute(index, units, self.now_us)

    def stack_error(self) -> None:
        log.warning("header stack index out of bounds")


class CompiledDevice:
    """What a device of any architecture holds: the compiled program bound to its own
    state, the header and metadata struct makers, and which tables count or colour on
    hits through a direct counter or meter. Subclasses add their blocks and
    ``run_ingress`` / ``end_ingress``."""

    def __init__(self, compiled: CompiledProgram, state: DeviceState, seed: int = 0) -> None:
        self.compiled = compiled
        self.state = state
        self.rng = random.Random(seed)
        self.log_messages: list[str] = []
        self._bound = compiled.bind(
            {b.pyname: _state_object(state, b.kind, b.name) for b in compiled.bindings})
        values = compiled.values
        self.new_hdr = values.constructor(compiled.headers_type)
        self.new_meta = values.constructor(compiled.metadata_type)
        self.direct_by_table: dict[str, tuple[str | None, str | None]] = {}
        for res in state.direct_counters.values():
            prev = self.direct_by_table.get(res.table, (None, None))
            self.direct_by_table[res.table] = (res.kind, prev[1])
        for res in state.direct_meters.values():
            prev = self.direct_by_table.get(res.table, (None, None))
            self.direct_by_table[res.table] = (prev[0], res.kind)

    def _blocks(self, *names: str) -> list[Any]:
        """The program's blocks by their architecture names (``"parser"`` is the
        generated ``block_parser``); None for a block the program leaves out."""
        return [self._bound[f"block_{name}"] for name in names]

    def ingress(self, data: bytes, port: int, now_us: int = 0, itype: int = NORMAL,
                meta: Any | None = None) -> tuple[list[EgressJob], tuple | None]:
        """Ingress on one packet; returns the egress jobs and a packet to run through
        ingress again (resubmit), if any."""
        ran = self.run_ingress(data, port, now_us, itype, meta)
        if ran is None:
            return [], None
        return self.end_ingress(data, port, now_us, itype, *ran)


class V1ModelDevice(CompiledDevice):
    """One device running a compiled program against its own state."""

    def __init__(self, compiled: CompiledProgram, state: DeviceState, seed: int = 0) -> None:
        super().__init__(compiled, state, seed)
        (self.parser, self.verify, self.ingress_block, self.egress_block, self.compute,
         self.deparser, self.deparse_frame) = self._blocks(
            "parser", "verify_checksum", "ingress", "egress", "compute_checksum",
            "deparser", "deparser_frame")
        self.new_sm = compiled.values.constructor(compiled.std_meta_type)

    # -- whole pipeline ---------------------------------------------------------------
    def process(self, data: bytes, port: int, now_us: int = 0) -> list[OutputPacket]:
        """Run one packet through ingress and egress (no queueing); all outputs."""
        ran = self.run_ingress(data, port, now_us)
        if ran is None:
            return []
        hdr, meta, sm, pk = ran
        if pk.clone_spec is None and pk.resubmit is None and not sm.mcast_grp:
            # Nearly every packet: one unicast copy or a drop. What end_ingress and
            # egress do with it, without an EgressJob between them.
            out_port = sm.egress_spec
            if out_port == DROP_PORT:
                return []
            sm.enq_timestamp = now_us & 0xFFFFFFFF
            pkts, recirc = self.run_egress(out_port, 0, NORMAL, hdr, meta, sm, pk, now_us)
            if recirc is None:
                return pkts
            return pkts + self._process_slow([recirc], [], now_us)
        if pk.clone_spec is None and pk.resubmit is None:
            # A multicast packet (a NIC's SACK goes to its host and the fabric): what
            # end_ingress and egress do with each copy in turn, without EgressJobs.
            out: list[OutputPacket] = []
            enq = now_us & 0xFFFFFFFF
            for r, r_hdr, r_meta, r_sm, r_pk in self._replicas(hdr, meta, sm, pk):
                r_sm.enq_timestamp = enq
                pkts, recirc = self.run_egress(r.egress_port, r.rid, REPLICATION, r_hdr,
                                               r_meta, r_sm, r_pk, now_us)
                out += pkts
                if recirc is not None:
                    out += self._process_slow([recirc], [], now_us)
            return out
        jobs, again = self.end_ingress(data, port, now_us, NORMAL, hdr, meta, sm, pk)
        for job in jobs:
            # No traffic manager here: each copy is enqueued and dequeued at once.
            job.sm.enq_timestamp = now_us & 0xFFFFFFFF
        if again is None and len(jobs) == 1:
            pkts, recirc = self.egress(jobs[0], now_us)
            if recirc is None:
                return pkts
            return pkts + self._process_slow([recirc], [], now_us)
        out: list[OutputPacket] = []
        for job in jobs:
            pkts, recirc = self.egress(job, now_us)
            out.extend(pkts)
            if recirc is not None:
                out.extend(self._process_slow([recirc], [], now_us))
        if again is not None:
            out.extend(self._process_slow([again], [], now_us))
        return out

    def _process_slow(self, pending: list[tuple], out: list[OutputPacket],
                      now_us: int) -> list[OutputPacket]:
        """Resubmitted and recirculated packets, with a bound on the number of passes."""
        rounds = 0
        while pending:
            data, port, itype, meta_keep, _ = pending.pop(0)
            rounds += 1
            if rounds > MAX_RECIRCULATIONS:
                log.warning("too many resubmissions/recirculations; packet dropped")
                break
            jobs, again = self.ingress(data, port, now_us, itype, meta_keep)
            if again is not None:
                pending.append(again)
            for job in jobs:
                job.sm.enq_timestamp = now_us & 0xFFFFFFFF
            for job in jobs:
                pkts, recirc = self.egress(job, now_us)
                out.extend(pkts)
                if recirc is not None:
                    pending.append(recirc)
        return out

    # -- ingress ------------------------------------------------------------------------
    def run_ingress(self, data: bytes, port: int, now_us: int = 0, itype: int = NORMAL,
                    meta: Any | None = None, controls: bool = True
                    ) -> tuple[Any, Any, Any, PacketContext] | None:
        """Parser, checksum verification and the ingress control on one packet (with
        ``controls`` False, the parser only): ``(hdr, meta, sm, pk)`` for
        :meth:`end_ingress`, or None when an assertion failed (the packet is dropped)."""
        hdr = self.new_hdr()
        if meta is None:
            meta = self.new_meta()
        sm = self.new_sm()
        sm.ingress_port = port
        sm.packet_length = len(data)
        sm.instance_type = itype
        sm.ingress_global_timestamp = now_us
        pk = PacketContext(self, sm, now_us)
        pos = self.parser(data, hdr, meta, sm, pk)
        error = pk.parser_error
        if error:
            sm.parser_error = error
            pk.payload = data[pos >> 3:]
        else:
            pk.payload = data[(pos + 7) >> 3:]
        if controls:
            try:
                if self.verify is not None:
                    self.verify(hdr, meta, pk)
                if self.ingress_block is not None:
                    self.ingress_block(hdr, meta, sm, pk)
            except AssertionFailed as err:
                log.error("assertion failed at %s; packet dropped", err)
                return None
        return hdr, meta, sm, pk

    def end_ingress(self, data: bytes, port: int, now_us: int, itype: int, hdr: Any,
                    meta: Any, sm: Any, pk: PacketContext
                    ) -> tuple[list[EgressJob], tuple | None]:
        """What happens at the end of ingress (simple_switch's order: I2E clone,
        resubmit, multicast, drop, unicast): the egress jobs, and the packet to run
        through ingress again if it was resubmitted. The fabric simulator's hop
        (``fabric.sim.device.SimDevice.receive``) takes the last two cases itself for
        a packet with none of the first three: a change to them belongs there too."""
        jobs: list[EgressJob] = []
        if pk.clone_spec is not None and pk.clone_spec[0] == 0:
            jobs.extend(self._i2e_clones(data, port, now_us, meta, pk.clone_spec))
        if pk.resubmit is not None:
            kept = self._preserved(meta, pk.resubmit)
            return jobs, (data, port, RESUBMIT, kept, None)
        if sm.mcast_grp:
            priority = sm.priority
            for r, r_hdr, r_meta, r_sm, r_pk in self._replicas(hdr, meta, sm, pk):
                jobs.append(EgressJob(r.egress_port, r_hdr, r_meta, r_sm, pk.payload,
                                      REPLICATION, r.rid, priority, r_pk))
        elif sm.egress_spec == DROP_PORT:
            pass
        else:
            # The ingress clone request has been served; egress may make its own.
            pk.clone_spec = None
            jobs.append(EgressJob(sm.egress_spec, hdr, meta, sm, pk.payload, itype, 0,
                                  sm.priority, pk))
        return jobs, None

    def _replicas(self, hdr: Any, meta: Any, sm: Any, pk: PacketContext
                  ) -> Iterator[tuple[Any, Any, Any, Any, PacketContext]]:
        """The copies of a packet for its multicast group: ``(replica, hdr, meta, sm,
        pk)`` each."""
        replicas = self.state.pre.get_group(sm.mcast_grp) or ()
        last = len(replicas) - 1
        copy_meta = self.compiled.egress_writes_meta
        for i, r in enumerate(replicas):
            # Every replica but the last gets copies; the last takes the packet's
            # own structs, which nothing uses after ingress (one copy fewer). The
            # metadata, if egress cannot write it, is one struct for all.
            if i == last:
                r_hdr, r_meta, r_sm = hdr, meta, sm
            else:
                r_hdr, r_meta, r_sm = (hdr._copy(), meta._copy() if copy_meta else meta,
                                       sm._copy())
            yield r, r_hdr, r_meta, r_sm, pk.for_copy(r_sm)

    def _i2e_clones(self, data: bytes, port: int, now_us: int, meta: Any,
                    spec: tuple[int, int, int | None]) -> list[EgressJob]:
        _, session_id, field_list = spec
        session = self.state.pre.get_clone_session(session_id)
        if session is None:
            log.warning("clone to unconfigured session %d ignored", session_id)
            return []
        kept = self._preserved(meta, field_list)
        parsed = self.run_ingress(data, port, now_us, INGRESS_CLONE, kept, controls=False)
        assert parsed is not None  # the parser alone asserts nothing
        hdr, cmeta, sm, pk = parsed
        out = []
        for r in self._session_replicas(session):
            out.append(EgressJob(r.egress_port, hdr._copy(), cmeta._copy(), sm._copy(),
                                 pk.payload[:], INGRESS_CLONE, r.rid))
            if session.packet_length_bytes:
                out[-1].sm.packet_length = min(sm.packet_length, session.packet_length_bytes)
        return out

    def _session_replicas(self, session: Any) -> tuple:
        dests = session.destinations()
        if dests:
            return dests
        return self.state.pre.get_group(session.multicast_group_id) or ()

    def _preserved(self, meta: Any, field_list: int | None) -> Any:
        """A fresh metadata struct keeping only the fields of `@field_list(field_list)`."""
        fresh = self.new_meta()
        if field_list is None:
            return fresh
        for path in self.compiled.field_lists.get(field_list, []):
            *parents, leaf = path.split(".")
            src, dst = meta, fresh
            for p in parents:
                src, dst = getattr(src, p), owned(dst, p)
            value = getattr(src, leaf)
            setattr(dst, leaf, value._copy() if hasattr(value, "_copy") else value)
        return fresh

    # -- egress -------------------------------------------------------------------------
    def egress(self, job: EgressJob, now_us: int = 0
               ) -> tuple[list[OutputPacket], tuple | None]:
        """Egress, checksum update and deparser for one queued packet."""
        pk = job.ctx
        if pk is None:
            pk = PacketContext(self, job.sm, now_us)
            pk.payload = job.payload
        return self.run_egress(job.port, job.rid, job.instance_type, job.hdr, job.meta,
                               job.sm, pk, now_us)

    def run_egress(self, port: int, rid: int, itype: int, hdr: Any, meta: Any, sm: Any,
                   pk: PacketContext, now_us: int
                   ) -> tuple[list[OutputPacket], tuple | None]:
        """:meth:`egress` of a packet given by parts (``pk.payload`` is its payload):
        the packets that leave, and the packet to run through ingress again if it was
        recirculated."""
        sm.egress_port = port
        sm.egress_spec = port
        sm.egress_rid = rid
        sm.instance_type = itype
        sm.egress_global_timestamp = now_us
        pk.now_us = now_us
        try:
            if self.egress_block is not None:
                self.egress_block(hdr, meta, sm, pk)
        except AssertionFailed as err:
            log.error("assertion failed at %s; packet dropped", err)
            return [], None
        out: list[OutputPacket] = []
        clone_jobs = None
        if pk.clone_spec is not None and pk.clone_spec[0] == 1:
            clone_jobs = self._e2e_clones(hdr, meta, sm, pk)
        recirc = None
        if sm.egress_spec != DROP_PORT:
            if self.compute is not None:
                self.compute(hdr, meta, pk)
            if self.deparse_frame is not None:  # headers and payload in one piece
                data = self.deparse_frame(hdr, pk.payload)
            else:
                chunks: list[bytes] = []
                if self.deparser is not None:
                    self.deparser(chunks, hdr, pk)
                chunks.append(pk.payload)
                data = b"".join(chunks)
            if pk.recirculate is not None:
                recirc = (data, sm.ingress_port, RECIRC,
                          self._preserved(meta, pk.recirculate), None)
            else:
                if pk.truncate is not None:
                    data = data[:pk.truncate]
                out.append(OutputPacket(port, data))
        if clone_jobs:
            for cj in clone_jobs:
                pkts, _ = self.egress(cj, now_us)
                out.extend(pkts)
        return out, recirc

    def _e2e_clones(self, hdr: Any, meta: Any, sm: Any, pk: PacketContext
                    ) -> list[EgressJob]:
        _, session_id, field_list = pk.clone_spec  # type: ignore[misc]
        session = self.state.pre.get_clone_session(session_id)
        if session is None:
            log.warning("clone to unconfigured session %d ignored", session_id)
            return []
        kept = self._preserved(meta, field_list)
        jobs = []
        for r in self._session_replicas(session):
            clone_sm = self.new_sm()
            clone_sm.ingress_port = sm.ingress_port
            clone_sm.packet_length = sm.packet_length
            jobs.append(EgressJob(r.egress_port, hdr._copy(), kept._copy(), clone_sm,
                                  pk.payload, EGRESS_CLONE, r.rid))
        return jobs


def _state_object(state: DeviceState, kind: str, name: str) -> Any:
    if kind == "table":
        return state.tables[name]
    if kind == "register":
        return state.registers[name]
    if kind == "counter":
        return state.counters[name]
    if kind == "meter":
        return state.meters[name]
    if kind == "action_profile":
        return state.action_profiles[name]
    if kind == "value_set":
        return state.value_sets.setdefault(name, [])
    raise KeyError(f"unknown state object kind {kind}")


def digest_fields(t: Any) -> list[str]:
    return [path for path, _ in flatten_fields(t)]
