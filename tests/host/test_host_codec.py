"""host/codec.py against the scapy layers of protocol/headers.py, byte for byte, in both
directions, for every frame kind the host encodes or decodes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from host.codec import (
    FrameError,
    NackPacket,
    ProbePacket,
    Route,
    SackPacket,
    WritePacket,
    decode_frame,
    encode_nack,
    encode_probe,
    encode_sack,
    encode_write,
    with_retransmit,
)
from protocol.constants import (
    IMM_OPCODES,
    NACK_HOST_LOSS_REPORT,
    NACK_TRIMMED_LASTHOP,
    OPCODE_PROBE,
    OPCODE_WRITE_ONLY,
    SACK_MARK_SKIP_ONCE,
    SACK_PR_PROBE,
    WRITE_OPCODES,
)
from protocol.headers import BTH, METH, RETH, ImmDt, MrcNack, MrcProbe, MrcSack, MrcSackCongestion

SRC = "2001:db8::1"
DST = "2001:db8::2"
ROUTE = Route(eth_dst=bytes.fromhex("020000000002"), eth_src=bytes.fromhex("020000000001"),
              src=bytes.fromhex("20010db8000000000000000000000001"),
              dst=bytes.fromhex("20010db8000000000000000000000002"),
              traffic_class=0x12, flow_label=0xABCDE, hop_limit=64, sport=0xBEEF)


def outer(bth: BTH) -> Packet:
    """The scapy Ethernet / IPv6 / UDP of ROUTE around ``bth`` (checksum 0, as posted)."""
    return (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
            / IPv6(src=SRC, dst=DST, tc=0x12, fl=0xABCDE, hlim=64)
            / UDP(sport=0xBEEF, dport=4791, chksum=0) / bth)


def check_route(packet: WritePacket | SackPacket | NackPacket | ProbePacket) -> None:
    assert (packet.eth_dst, packet.eth_src, packet.src, packet.dst) == (
        ROUTE.eth_dst, ROUTE.eth_src, ROUTE.src, ROUTE.dst)
    assert (packet.traffic_class, packet.flow_label, packet.hop_limit, packet.sport) == (
        0x12, 0xABCDE, 64, 0xBEEF)


@pytest.mark.parametrize("opcode", sorted(WRITE_OPCODES))
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_write_matches_scapy(opcode: int, flags: tuple[bool, bool]) -> None:
    ack_req, retransmit = flags
    payload = bytes(range(200))
    imm = 0xCAFEF00D if opcode in IMM_OPCODES else None
    ours = encode_write(ROUTE, opcode=opcode, dest_qp=0xABCDEF, psn=0x123456,
                        msg_seq=0x4321, virtual_addr=0x1122334455667788, rkey=0x99AABBCC,
                        payload=payload, imm=imm, ack_req=ack_req, retransmit=retransmit,
                        req_msg_seq=0x0102)
    transport = (BTH(opcode=opcode, dest_qp=0xABCDEF, psn=0x123456, ack_req=int(ack_req),
                     retransmit=int(retransmit))
                 / METH(req_msg_seq=0x0102, msg_seq=0x4321)
                 / RETH(virtual_addr=0x1122334455667788, rkey=0x99AABBCC, dma_len=200))
    if imm is not None:
        transport = transport / ImmDt(imm_data=imm)
    theirs = outer(transport / Raw(payload))
    assert ours == bytes(theirs)

    packet = decode_frame(bytes(theirs))
    assert isinstance(packet, WritePacket)
    check_route(packet)
    parsed = Ether(bytes(theirs))
    assert (packet.opcode, packet.dest_qp, packet.psn) == (
        parsed[BTH].opcode, parsed[BTH].dest_qp, parsed[BTH].psn)
    assert (packet.ack_req, packet.retransmit) == (ack_req, retransmit)
    assert (packet.req_msg_seq, packet.msg_seq) == (parsed[METH].req_msg_seq,
                                                    parsed[METH].msg_seq)
    assert (packet.virtual_addr, packet.rkey, packet.dma_len) == (
        parsed[RETH].virtual_addr, parsed[RETH].rkey, parsed[RETH].dma_len)
    assert packet.imm == (parsed[ImmDt].imm_data if imm is not None else None)
    assert packet.payload == payload


def test_sack_matches_scapy() -> None:
    fields = dict(mark=SACK_MARK_SKIP_ONCE, pr=SACK_PR_PROBE, ack_psn_offset=-3,
                  echoed_ev=0x20010007, src_conn_id=0x1234, dst_conn_id=0x5678,
                  cumulative_psn=0xFFFFFF, mpr=2, sack_offset=1,
                  sack_bitmap=0x8000000000000005)
    congestion = dict(echoed_tx_timestamp=0x4455, ooo_count=0x7FFE, rc=1,
                      rcv_window_penalty=0x55, received_bytes=0xABCDEF)
    ours = encode_sack(ROUTE, dest_qp=77, psn=0x10, **fields, **congestion)
    theirs = outer(BTH(opcode=0xDC, dest_qp=77, psn=0x10) / MrcSack(**fields)
                   / MrcSackCongestion(**congestion))
    assert ours == bytes(theirs)

    packet = decode_frame(bytes(theirs))
    assert isinstance(packet, SackPacket)
    check_route(packet)
    assert (packet.dest_qp, packet.psn) == (77, 0x10)
    for name, value in {**fields, **congestion}.items():
        assert getattr(packet, name) == value, name


@pytest.mark.parametrize("reason", [NACK_TRIMMED_LASTHOP, NACK_HOST_LOSS_REPORT])
def test_nack_matches_scapy(reason: int) -> None:
    fields = dict(reason=reason, vendor=3, echoed_ev=0xE0000105, src_conn_id=9,
                  dst_conn_id=10, nack_psn=0xFEDCBA, tx_timestamp=0x0BAD)
    ours = encode_nack(ROUTE, dest_qp=0x10000, psn=0xFEDCBA, **fields)
    theirs = outer(BTH(opcode=0xDD, dest_qp=0x10000, psn=0xFEDCBA) / MrcNack(**fields))
    assert ours == bytes(theirs)

    packet = decode_frame(bytes(theirs))
    assert isinstance(packet, NackPacket)
    check_route(packet)
    for name, value in fields.items():
        assert getattr(packet, name) == value, name


def test_probe_matches_scapy() -> None:
    fields = dict(vendor=1, probe_id=0x7777, src_conn_id=5, dst_conn_id=6,
                  tx_timestamp=0x1234, flags=0x8001)
    ours = encode_probe(ROUTE, dest_qp=5, psn=3, **fields)
    theirs = outer(BTH(opcode=OPCODE_PROBE, dest_qp=5, psn=3) / MrcProbe(**fields))
    assert ours == bytes(theirs)

    packet = decode_frame(bytes(theirs))
    assert isinstance(packet, ProbePacket)
    check_route(packet)
    for name, value in fields.items():
        assert getattr(packet, name) == value, name


def test_with_retransmit_sets_only_the_flag() -> None:
    frame = encode_write(ROUTE, opcode=OPCODE_WRITE_ONLY, dest_qp=1, psn=2, msg_seq=0,
                         virtual_addr=0, rkey=0, payload=b"x", ack_req=True)
    again = with_retransmit(frame)
    parsed = Ether(again)
    assert parsed[BTH].retransmit == 1 and parsed[BTH].ack_req == 1
    parsed[BTH].retransmit = 0
    assert bytes(parsed) == frame


def good_frame() -> bytes:
    return encode_write(ROUTE, opcode=OPCODE_WRITE_ONLY, dest_qp=1, psn=0, msg_seq=0,
                        virtual_addr=0, rkey=0, payload=b"abcd")


@pytest.mark.parametrize("mangle", [
    lambda f: f[:40],                                  # shorter than the headers
    lambda f: f[:12] + b"\x08\x00" + f[14:],           # IPv4 ethertype
    lambda f: f[:20] + b"\x06" + f[21:],               # IPv6 next header TCP
    lambda f: f[:56] + b"\x12\xb8" + f[58:],           # UDP port 4792
    lambda f: f[:18] + b"\x00\xff" + f[20:],           # IPv6 payload length too long
    lambda f: f[:18] + b"\x00\x10" + f[20:],           # IPv6 payload length too short
    lambda f: f[:-1],                                  # payload shorter than DMA length
    lambda f: f[:18] + (len(f) - 53).to_bytes(2, "big") + f[20:] + b"!",  # > DMA length
    lambda f: f[:62] + b"\x64" + f[63:],               # an opcode the host port lacks
], ids=["short", "ipv4", "tcp", "port", "plen-long", "plen-short", "cut", "extra",
        "opcode"])
def test_malformed_frames_raise_frame_error(mangle: Callable[[bytes], bytes]) -> None:
    frame = mangle(good_frame())
    with pytest.raises(FrameError):
        decode_frame(frame)


def test_ethernet_padding_after_the_ipv6_payload_is_ignored() -> None:
    packet = decode_frame(good_frame() + bytes(8))
    assert isinstance(packet, WritePacket) and packet.payload == b"abcd"


def test_truncated_transport_headers() -> None:
    for frame in (encode_sack(ROUTE, dest_qp=1, psn=0, cumulative_psn=0),
                  encode_nack(ROUTE, dest_qp=1, psn=0, reason=1, nack_psn=0),
                  encode_probe(ROUTE, dest_qp=1, psn=0, probe_id=0)):
        cut = bytearray(frame[:-2])
        cut[18:20] = (len(cut) - 54).to_bytes(2, "big")  # a consistent IPv6 length
        with pytest.raises(FrameError):
            decode_frame(bytes(cut))
