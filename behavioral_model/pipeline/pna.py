"""The PNA architecture around the compiled blocks, with BMv2 pna_nic semantics.

One pass per packet, as behavioral-model's targets/pna_nic runs it: the main parser
(`pna_main_parser_input_metadata_t.input_port` set), then the main control with
`pna_main_input_metadata_t` (input port, parser error, timestamp), then the main
deparser, whose output is the packet with its unparsed payload. bm also runs the
pre-control between the two when it has a body, on the main parser's headers (pna.p4
places it there; BMv2 pna_nic skips it). The packet's fate is the last forwarding
call (pna.p4): `send_to_port(p)` sends it out of p, `drop_packet()` drops it; with
neither it leaves on port 0, BMv2 pna_nic's default. There is no traffic manager in
PNA; `pna_main_output_metadata_t.class_of_service` becomes the packet's priority in
bm's queues. No multicast, mirroring or recirculation: BMv2 pna_nic implements none.

The device offers the same calls as :class:`V1ModelDevice` (``run_ingress``,
``end_ingress``, ``egress``, ``process``...), so the switch engine, the STF runner and
the P4Runtime server drive both alike: "ingress" is parser to main control, "egress"
the deparser after the queue.
"""

from __future__ import annotations

from typing import Any

from ..runtime.state import DeviceState
from .compiler import CompiledProgram
from .support import AssertionFailed
from .v1model import (
    DROP_PORT,
    NORMAL,
    CompiledDevice,
    EgressJob,
    OutputPacket,
    PacketContext,
    log,
)


class PnaFate:
    """What the switch engine and the traffic manager read and write of a packet
    (v1model's standard_metadata fields by the same names)."""

    __slots__ = ("ingress_port", "egress_spec", "egress_port", "priority", "packet_length",
                 "instance_type", "enq_timestamp", "enq_qdepth", "deq_timedelta",
                 "deq_qdepth")
    mcast_grp = 0  # PNA has no multicast

    def __init__(self, port: int, length: int) -> None:
        self.ingress_port = port
        self.egress_spec = self.egress_port = 0
        self.priority = 0
        self.packet_length = length
        self.instance_type = NORMAL
        self.enq_timestamp = self.enq_qdepth = self.deq_timedelta = self.deq_qdepth = 0

    def _copy(self) -> PnaFate:
        fate = PnaFate(self.ingress_port, self.packet_length)
        for slot in PnaFate.__slots__:
            setattr(fate, slot, getattr(self, slot))
        return fate


class PnaPacketContext(PacketContext):
    """`pk` of a PNA pass: the forwarding decision and the output metadata the
    deparser sees, besides what the v1model context carries."""

    dest = 0
    drop = False
    ostd: Any = None
    csums: dict[str, int] | None = None  # InternetChecksum sums by instance name

    def csum_state(self, name: str) -> int:
        return self.csums.get(name, 0) if self.csums is not None else 0

    def csum_set(self, name: str, value: int) -> None:
        if self.csums is None:
            self.csums = {}
        self.csums[name] = value & 0xFFFF

    def csum_add(self, name: str, fields: tuple, subtract: bool) -> None:
        """Add (or subtract: add the complement of) the 16-bit words of ``fields``,
        ``((value, width), ...)`` concatenated, with end-around carry (RFC 1071)."""
        value = width = 0
        for v, w in fields:
            value = (value << w) | (v & ((1 << w) - 1))
            width += w
        total = self.csum_state(name)
        for shift in range(width - 16, -16, -16):
            word = (value >> shift) & 0xFFFF if shift >= 0 else (value << -shift) & 0xFFFF
            total += (~word & 0xFFFF) if subtract else word
            total = (total & 0xFFFF) + (total >> 16)
        self.csum_set(name, total)


class PnaDevice(CompiledDevice):
    """One PNA device running a compiled program against its own state."""

    def __init__(self, compiled: CompiledProgram, state: DeviceState, seed: int = 0) -> None:
        super().__init__(compiled, state, seed)
        self.parser, self.pre_control, self.main_control, self.deparser = self._blocks(
            "parser", "pre_control", "main_control", "deparser")
        values = compiled.values
        types = compiled.arch_types
        self.new_parser_istd = values.class_for(types["parser_istd"])
        self.new_pre_istd = values.class_for(types["pre_istd"])
        self.new_pre_ostd = values.class_for(types["pre_ostd"])
        self.new_istd = values.class_for(types["main_istd"])
        self.new_ostd = values.class_for(types["main_ostd"])

    def process(self, data: bytes, port: int, now_us: int = 0) -> list[OutputPacket]:
        """One packet through the pass, without queueing: what leaves."""
        jobs, _ = self.ingress(data, port, now_us)
        out: list[OutputPacket] = []
        for job in jobs:
            out.extend(self.egress(job, now_us)[0])
        return out

    def run_ingress(self, data: bytes, port: int, now_us: int = 0, itype: int = NORMAL,
                    meta: Any | None = None, controls: bool = True
                    ) -> tuple[Any, Any, PnaFate, PnaPacketContext] | None:
        """Main parser, pre-control and main control: ``(hdr, meta, fate, pk)``, or
        None when an assertion failed (the packet is dropped)."""
        hdr = self.new_hdr()
        meta = self.new_meta() if meta is None else meta
        fate = PnaFate(port, len(data))
        pk = PnaPacketContext(self, fate, now_us)
        pistd = self.new_parser_istd()
        pistd.input_port = port
        pos = self.parser(data, hdr, meta, pistd, pk)
        pk.payload = data[pos >> 3:] if pk.parser_error else data[(pos + 7) >> 3:]
        pk.ostd = self.new_ostd()
        if not controls:
            return hdr, meta, fate, pk
        try:
            if self.pre_control is not None:
                pre_istd = self.new_pre_istd()
                pre_istd.input_port = port
                pre_istd.parser_error = pk.parser_error
                self.pre_control(hdr, meta, pre_istd, self.new_pre_ostd(), pk)
            istd = self.new_istd()
            istd.input_port = port
            istd.parser_error = pk.parser_error
            istd.timestamp = now_us
            if self.main_control is not None:
                self.main_control(hdr, meta, istd, pk.ostd, pk)
        except AssertionFailed as err:
            log.error("assertion failed at %s; packet dropped", err)
            return None
        fate.egress_spec = DROP_PORT if pk.drop else pk.dest
        fate.priority = pk.ostd.class_of_service
        return hdr, meta, fate, pk

    def end_ingress(self, data: bytes, port: int, now_us: int, itype: int, hdr: Any,
                    meta: Any, fate: PnaFate, pk: PnaPacketContext
                    ) -> tuple[list[EgressJob], tuple | None]:
        """The one copy that leaves, if not dropped (nothing is ever run again)."""
        if fate.egress_spec == DROP_PORT:
            return [], None
        return [EgressJob(fate.egress_spec, hdr, meta, fate, pk.payload, itype, 0,
                          fate.priority, pk)], None

    def egress(self, job: EgressJob, now_us: int = 0
               ) -> tuple[list[OutputPacket], tuple | None]:
        assert job.ctx is not None  # every job comes from end_ingress
        return self.run_egress(job.port, job.rid, job.instance_type, job.hdr, job.meta,
                               job.sm, job.ctx, now_us)

    def run_egress(self, port: int, rid: int, itype: int, hdr: Any, meta: Any, fate: Any,
                   pk: PnaPacketContext, now_us: int
                   ) -> tuple[list[OutputPacket], tuple | None]:
        """The main deparser once the packet leaves its queue."""
        fate.egress_port = port
        chunks: list[bytes] = []
        self.deparser(chunks, hdr, meta, pk.ostd, pk)
        chunks.append(pk.payload)
        return [OutputPacket(port, b"".join(chunks))], None

