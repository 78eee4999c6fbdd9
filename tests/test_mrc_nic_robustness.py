"""Robustness of p4src/mrc_nic.p4, and of the same NIC for PNA (p4src/pna/mrc_nic.p4):
100,000 random, truncated and mutated frames into every kind of NIC port (host, plane
ports, a port no plane uses, the CPU port).

No frame may raise, and each must meet the fate docs/mrc-nic.md gives it: a reference
classifier written here from the spec (the parse graph of p4src/include/parser.p4 and the
classification of sections 3 and 4) predicts, for every frame, the drop reason or that
the NIC takes it; the NIC's drop_counter must move by one at exactly that reason (or not
at all), dropped frames must produce nothing, and what the NIC sends must leave on the
ports the spec allows. The NIC has an EV and a path on every plane, so a frame it takes
is never dropped later for want of a path.

``NIC_ROBUSTNESS_FRAMES=N`` runs another number of frames, e.g. a few thousand while
iterating.
"""

from __future__ import annotations

import ipaddress
import os
import random
import struct
from collections import Counter
from dataclasses import dataclass

import pytest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from behavioral_model.program import load_program
from fabric.back_to_back import BackToBack, NicPairConfig, NicSide
from protocol import constants as c
from protocol import headers as h

SEED = 0x41C_F022
N_FRAMES = int(os.environ.get("NIC_ROBUSTNESS_FRAMES", "100000"))
CONFIG = NicPairConfig(planes=8, evs_per_plane=1, backups_per_plane=1)
FABRIC_PORTS = (1, 2, 8, 9)   # plane ports, and a port no plane uses
PORTS = (c.NIC_HOST_PORT, *FABRIC_PORTS, c.CPU_PORT)

TAKEN = 0   # the NIC takes the frame (delivers, answers, sends or consumes it)
FORWARDED_AS_IS = -1   # packet-out to a port

_WRITE_BYTES = {op: 4 + 16 + (4 if op in c.IMM_OPCODES else 0) for op in c.WRITE_OPCODES}
_AFTER_BTH = {**_WRITE_BYTES, c.OPCODE_SACK: 28 + 8, c.OPCODE_NACK: 20, c.OPCODE_PROBE: 16}


class _Short(Exception):
    """The parser ran out of bytes (error.PacketTooShort)."""


class _Overflow(Exception):
    """More SRH segments than the stack holds (error.StackOutOfBounds)."""


@dataclass
class _Parsed:
    packet_out: int | None = None
    ether_ok: bool = False
    ipv6: bytes | None = None
    srh: bool = False
    inner: bytes | None = None
    udp: bool = False
    bth: bytes | None = None
    after_bth: bytes = b""


def _parse(frame: bytes, port: int) -> tuple[_Parsed, type[Exception] | None]:
    """parser.p4's graph over ``frame``: what was extracted before it stopped."""
    p = _Parsed()
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(frame):
            raise _Short
        pos += n
        return frame[pos - n:pos]

    try:
        if port == c.CPU_PORT:
            p.packet_out = struct.unpack("!H", take(2))[0]
        ether = take(14)
        p.ether_ok = True
        if ether[12:14] != b"\x86\xdd":
            return p, None
        p.ipv6 = take(40)
        next_hdr = p.ipv6[6]
        if next_hdr == c.IP_PROTO_ROUTING:
            srh = take(8)
            p.srh = True
            segments = (srh[4] + 1) & 0xFF
            extra = (srh[1] - (segments << 1)) & 0xFF
            if srh[2] != c.SRH_ROUTING_TYPE:
                return p, None
            # The parser extracts one segment at a time until its 8-bit counter reaches
            # 0 (a count of 0 wraps: 256 segments): bytes or the stack run out first.
            for index in range(segments or 256):
                if index == c.SRH_MAX_SEGMENTS:
                    raise _Overflow
                take(16)
            if extra != 0 or srh[0] not in (c.IP_PROTO_IPV6, c.IP_PROTO_UDP):
                return p, None
            next_hdr = srh[0]
        if next_hdr == c.IP_PROTO_IPV6:
            p.inner = take(40)
            if p.inner[6] != c.IP_PROTO_UDP:
                return p, None
        elif next_hdr != c.IP_PROTO_UDP:
            return p, None
        udp = take(8)
        p.udp = True
        if struct.unpack("!H", udp[2:4])[0] != c.MRC_UDP_PORT:
            return p, None
        p.bth = take(12)
        extra = _AFTER_BTH.get(p.bth[0])
        if extra is not None:
            p.after_bth = take(extra)
    except _Short:
        return p, _Short
    except _Overflow:
        return p, _Overflow
    return p, None


def expected_fate(frame: bytes, port: int, side: NicSide, pna: bool = False) -> int:
    """NIC_DROP_* for a frame the NIC must drop, TAKEN or FORWARDED_AS_IS otherwise.
    ``pna``: the PNA NIC, which names packet-out ports as constants and so sends only
    to the host port and ports 1..NIC_MAX_PLANES (p4src/pna/mrc_nic.p4)."""
    p, error = _parse(frame, port)
    from_host = port == c.NIC_HOST_PORT
    if p.packet_out is not None:
        if p.packet_out == c.PACKET_OUT_TRANSMIT:
            from_host = True
        elif p.packet_out >= 512 or p.packet_out in (c.CPU_PORT, c.DROP_PORT):
            return c.NIC_DROP_BAD_PACKET_OUT
        elif pna and p.packet_out > c.NIC_MAX_PLANES:
            return c.NIC_DROP_BAD_PACKET_OUT
        else:
            return FORWARDED_AS_IS
    if error is _Short:
        return c.NIC_DROP_TRUNCATED
    if error is not None:
        return c.NIC_DROP_PARSER_ERROR
    if p.ipv6 is None or not p.udp or p.bth is None or p.srh:
        return c.NIC_DROP_NOT_MRC
    opcode = p.bth[0]
    if from_host:
        if p.inner is not None:
            return c.NIC_DROP_NOT_MRC
        if not (opcode in c.WRITE_OPCODES or opcode == c.OPCODE_PROBE
                or (opcode == c.OPCODE_NACK and p.after_bth[2] == c.NACK_HOST_LOSS_REPORT)):
            return c.NIC_DROP_BAD_OPCODE
    else:
        if p.inner is None:
            return c.NIC_DROP_NOT_ENCAPSULATED
        if opcode not in c.WRITE_OPCODES and opcode not in (
                c.OPCODE_PROBE, c.OPCODE_SACK, c.OPCODE_NACK):
            return c.NIC_DROP_BAD_OPCODE
        if p.inner[24:40] != ipaddress.IPv6Address(side.address).packed:
            return c.NIC_DROP_NOT_LOCAL
    if int.from_bytes(p.bth[5:8], "big") != side.qpn:
        return c.NIC_DROP_UNKNOWN_QP
    return TAKEN


# ---- frames -----------------------------------------------------------------------------

def _templates(side: NicSide, peer: str) -> list[tuple[int, bytes]]:
    """Valid frames of every kind, with the port they belong on."""
    me, qpn = side.address, side.qpn
    ev = c.ev_value(CONFIG.slot_t1(3), 3)
    carrier = h.usid_carrier(c.USID_BLOCK_DEFAULT, [0x10, ev >> 16, 0x11, 0x21])
    ether = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    host = ether / IPv6(src=me, dst=peer) / UDP(sport=0, dport=c.MRC_UDP_PORT)
    fabric = (ether / IPv6(src=peer, dst=carrier, tc=h.dscp_ecn_tc(4, c.ECN_ECT0),
                             fl=ev & 0xFFFF)
              / IPv6(src=peer, dst=me, fl=ev & 0xFFFF) / UDP(sport=ev >> 16, dport=c.MRC_UDP_PORT))
    write = h.BTH(opcode=c.OPCODE_WRITE_ONLY, dest_qp=qpn) / h.METH() / h.RETH(dma_len=64)
    frames: list[tuple[int, Packet]] = [
        (c.NIC_HOST_PORT, host / write / Raw(bytes(64))),
        (c.NIC_HOST_PORT, host / h.BTH(opcode=c.OPCODE_WRITE_FIRST, dest_qp=qpn, retransmit=1,
                                       psn=9) / h.METH() / h.RETH() / Raw(bytes(32))),
        (c.NIC_HOST_PORT, host / h.BTH(opcode=c.OPCODE_WRITE_ONLY_IMM, dest_qp=qpn) / h.METH()
         / h.RETH() / h.ImmDt() / Raw(bytes(8))),
        (c.NIC_HOST_PORT, host / h.BTH(opcode=c.OPCODE_PROBE, dest_qp=qpn) / h.MrcProbe()),
        (c.NIC_HOST_PORT, host / h.BTH(opcode=c.OPCODE_NACK, dest_qp=qpn)
         / h.MrcNack(reason=c.NACK_HOST_LOSS_REPORT, nack_psn=1)),
        (c.NIC_HOST_PORT, host / h.BTH(opcode=c.OPCODE_SACK, dest_qp=qpn) / h.MrcSack()
         / h.MrcSackCongestion()),
        (1, fabric / write / Raw(bytes(64))),
        (2, fabric / h.BTH(opcode=c.OPCODE_WRITE_MIDDLE, dest_qp=qpn, psn=70) / h.METH()
         / h.RETH() / Raw(bytes(16))),
        (1, fabric / h.BTH(opcode=c.OPCODE_SACK, dest_qp=qpn)
         / h.MrcSack(echoed_ev=ev, mark=c.SACK_MARK_SKIP_ONCE) / h.MrcSackCongestion()),
        (1, fabric / h.BTH(opcode=c.OPCODE_SACK, dest_qp=qpn)
         / h.MrcSack(echoed_ev=ev, mark=c.SACK_MARK_ALWAYS_SKIP) / h.MrcSackCongestion()),
        (2, fabric / h.BTH(opcode=c.OPCODE_NACK, dest_qp=qpn)
         / h.MrcNack(echoed_ev=ev, reason=c.NACK_TRIMMED, nack_psn=2)),
        (8, fabric / h.BTH(opcode=c.OPCODE_PROBE, dest_qp=qpn) / h.MrcProbe(probe_id=4)),
        (9, fabric / h.BTH(opcode=c.OPCODE_ACK, dest_qp=qpn) / Raw(bytes(8))),
        (1, ether / IPv6(src=peer, dst=carrier, nh=c.IP_PROTO_ROUTING)
         / h.SRH(addresses=[me], segleft=0) / UDP(dport=c.MRC_UDP_PORT) / write),
    ]
    out = [(port, bytes(pkt)) for port, pkt in frames]
    out += [(c.CPU_PORT, bytes(h.CpuPacketOut(egress_port=c.PACKET_OUT_TRANSMIT)) + frame)
            for port, frame in out if port == c.NIC_HOST_PORT]
    out.append((c.CPU_PORT, bytes(h.CpuPacketOut(egress_port=2)) + out[6][1]))
    return out


def _mutate(rng: random.Random, frame: bytes) -> bytes:
    data = bytearray(frame)
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(data))
        data[position] = rng.randrange(256)
    return bytes(data)


def _frames(rng: random.Random, templates: list[tuple[int, bytes]], count: int):
    for _ in range(count):
        port, frame = rng.choice(templates)
        kind = rng.random()
        if kind < 0.1:
            frame = rng.randbytes(rng.randrange(0, 200))
            port = rng.choice(PORTS)
        elif kind < 0.35:
            frame = frame[:rng.randrange(0, len(frame) + 1)]
        elif kind < 0.85:
            frame = _mutate(rng, frame)
        elif kind < 0.92:
            port = rng.choice(PORTS)
        yield port, frame


@pytest.mark.parametrize("program", ["p4src/mrc_nic.p4", "p4src/pna/mrc_nic.p4"])
def test_nic_fuzz(program: str) -> None:
    pair = BackToBack(load_program(program), CONFIG)
    side = pair.a
    drops = side.state.counter("drop_counter")
    reasons = range(c.NIC_DROP_REASON_COUNT)
    before = [drops.read(r)[0] for r in reasons]
    plane_ports = set(range(1, CONFIG.planes + 1))
    rng = random.Random(SEED)
    fates: Counter[int] = Counter()
    for port, frame in _frames(rng, _templates(side, pair.b.address), N_FRAMES):
        fate = expected_fate(frame, port, side, pna=program.startswith("p4src/pna/"))
        fates[fate] += 1
        outputs = side.device.process(frame, port=port)
        after = [drops.read(r)[0] for r in reasons]
        moved = {r: after[r] - before[r] for r in reasons if after[r] != before[r]}
        before = after
        where = f"port {port} frame {frame.hex()}"
        if fate > 0:
            assert moved == {fate: 1}, where
            assert outputs == [], where
        elif fate == FORWARDED_AS_IS:
            assert moved == {}, where
            assert [(o.port, o.data) for o in outputs] == [
                (int.from_bytes(frame[:2], "big"), frame[2:])], where
        else:
            assert moved == {}, where
            assert {o.port for o in outputs} <= plane_ports | {c.NIC_HOST_PORT}, where
        side.state.digests.drain()
    # The generator reached every fate it is meant to exercise.
    assert {TAKEN, FORWARDED_AS_IS, c.NIC_DROP_TRUNCATED, c.NIC_DROP_NOT_MRC,
            c.NIC_DROP_UNKNOWN_QP, c.NIC_DROP_BAD_OPCODE, c.NIC_DROP_NOT_LOCAL,
            c.NIC_DROP_NOT_ENCAPSULATED, c.NIC_DROP_BAD_PACKET_OUT} <= set(fates), fates
