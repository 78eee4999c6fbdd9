"""The fields the metrics read from frames without parsing them (fabric/sim/frames.py),
against the same frames built field by field with the protocol's scapy layers: the
flag bits beside DestQP and PSN must not leak into them, the EV is the UDP source port
over the outer flow label's low 16 bits, and anything but a write reads as None."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether as scapy_ether
from scapy.packet import Raw

from fabric.sim.frames import fabric_write, host_write, outer_dscp
from protocol import constants as c
from protocol.headers import BTH, METH, RETH, ImmDt, MrcSack, MrcSackCongestion

NIC, PEER = "2001:db8:0:1::7", "2001:db8:0:2::9"
CARRIER = "fc00:0:101:201:301:e000::"


def Ether() -> Any:  # noqa: N802 - scapy's layer, with both addresses given (no lookup)
    return scapy_ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def _data(opcode: int, payload: int, imm: bool = False) -> BTH:
    packet = BTH(opcode=opcode, dest_qp=0xABCDEF, psn=0x123456, ack_req=1, retransmit=1,
                 reserved0=0xFF) / METH() / RETH(dma_len=payload)
    return (packet / ImmDt(imm_data=1) if imm else packet) / Raw(b"d" * payload)


@pytest.mark.parametrize("opcode", sorted(c.WRITE_OPCODES))
def test_a_write_on_the_fabric_gives_its_sender_qp_psn_and_ev(opcode: int) -> None:
    frame = bytes(Ether() / IPv6(src=NIC, dst=CARRIER, nh=41, fl=0xF5A5A, tc=0x10 << 2)
                  / IPv6(src=NIC, dst=PEER) / UDP(sport=0x4321, dport=c.MRC_UDP_PORT)
                  / _data(opcode, 64, opcode in c.IMM_OPCODES))
    assert fabric_write(frame) == (ipaddress.IPv6Address(NIC).packed, 0xABCDEF, 0x123456,
                                   0x4321 << 16 | 0x5A5A)
    assert outer_dscp(frame) == 0x10


@pytest.mark.parametrize("imm", [False, True])
def test_a_write_at_the_host_gives_its_sender_qp_psn_and_payload(imm: bool) -> None:
    opcode = c.OPCODE_WRITE_ONLY_IMM if imm else c.OPCODE_WRITE_ONLY
    frame = bytes(Ether() / IPv6(src=NIC, dst=PEER) / UDP(dport=c.MRC_UDP_PORT)
                  / _data(opcode, 100, imm))
    assert host_write(frame) == (ipaddress.IPv6Address(NIC).packed, 0xABCDEF, 0x123456,
                                 100)


def test_anything_but_a_write_reads_as_none() -> None:
    sack = bytes(Ether() / IPv6(src=NIC, dst=CARRIER, nh=41) / IPv6(src=NIC, dst=PEER)
                 / UDP(dport=c.MRC_UDP_PORT) / BTH(opcode=c.OPCODE_SACK) / MrcSack()
                 / MrcSackCongestion())
    assert fabric_write(sack) is None
    host_sack = bytes(Ether() / IPv6(src=NIC, dst=PEER) / UDP(dport=c.MRC_UDP_PORT)
                      / BTH(opcode=c.OPCODE_SACK) / MrcSack())
    assert host_write(host_sack) is None
    write = bytes(Ether() / IPv6(src=NIC, dst=CARRIER, nh=41) / IPv6(src=NIC, dst=PEER)
                  / UDP(dport=c.MRC_UDP_PORT) / _data(c.OPCODE_WRITE_ONLY, 8))
    cut = len(Ether() / IPv6() / IPv6() / UDP()) + 11  # one byte short of the BTH's end
    assert fabric_write(write[:cut]) is None and fabric_write(write[:cut + 1]) is not None
    assert host_write(b"") is None and fabric_write(b"") is None
