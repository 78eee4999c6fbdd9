"""The scapy layers (``protocol/headers.py``) agree with ``p4src/include/headers.p4``, and
``protocol/constants.py`` agrees with ``p4src/include/constants.p4``.

Both P4 files are read with our own front end (the parse tree: header declarations and
``const`` declarations), so a field added, renamed or resized on one side only fails here.
Layer lengths are also checked against the numbers of docs/mrc-protocol.md section 3.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest
from scapy.fields import BitField, Field
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from behavioral_model.frontend import ast
from behavioral_model.frontend.parser import parse_file

REPO = Path(__file__).resolve().parents[1]
INCLUDE = REPO / "p4src" / "include"
# protocol/ is not part of the installed package (pyproject lists behavioral_model only).
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from protocol import constants as c  # noqa: E402
from protocol import headers as h  # noqa: E402

# One P4 field: (name, width in bits, signed).
P4Field = tuple[str, int, bool]

# ---- the P4 side ------------------------------------------------------------------------


def _int(expr: ast.Expression, consts: dict[str, int]) -> int:
    if isinstance(expr, ast.IntLiteral):
        return expr.value
    if isinstance(expr, ast.PathExpr) and expr.name in consts:
        return consts[expr.name]
    raise AssertionError(f"expected an integer literal, got {expr!r}")


@cache
def _decls(filename: str) -> tuple[ast.Node, ...]:
    return tuple(parse_file(INCLUDE / filename, include_dirs=[INCLUDE]).decls)


def _consts(filename: str) -> dict[str, tuple[int, int]]:
    """name -> (value, width) of every top-level ``const bit<W>`` of the file."""
    out: dict[str, tuple[int, int]] = {}
    for decl in _decls(filename):
        if isinstance(decl, ast.ConstDecl):
            assert isinstance(decl.type_ref, ast.BitTypeRef), decl.name
            width = _int(decl.type_ref.width, {})
            out[decl.name] = (_int(decl.value, {}), width)
    return out


def _width(type_ref: ast.TypeRef, typedefs: dict[str, ast.TypeRef]) -> tuple[int, bool]:
    while isinstance(type_ref, ast.NamedTypeRef):
        type_ref = typedefs[type_ref.name]
    assert isinstance(type_ref, ast.BitTypeRef), type_ref
    return _int(type_ref.width, {}), type_ref.signed


@cache
def p4_headers() -> dict[str, list[P4Field]]:
    decls = _decls("headers.p4")
    typedefs = {d.name: d.type_ref for d in decls if isinstance(d, ast.TypedefDecl)}
    return {
        d.name: [(f.name, *_width(f.type_ref, typedefs)) for f in d.fields]
        for d in decls if isinstance(d, ast.HeaderDecl)
    }


def p4_header_struct() -> dict[str, str]:
    """Member -> type name of ``struct headers_t`` (stacks as ``elem[size]``)."""
    (struct,) = [d for d in _decls("headers.p4")
                 if isinstance(d, ast.StructDecl) and d.name == "headers_t"]
    out = {}
    for f in struct.fields:
        t = f.type_ref
        if isinstance(t, ast.StackTypeRef):
            assert isinstance(t.elem, ast.NamedTypeRef)
            out[f.name] = f"{t.elem.name}[{_int(t.size, p4_constants())}]"
        else:
            assert isinstance(t, ast.NamedTypeRef)
            out[f.name] = t.name
    return out


def p4_constants() -> dict[str, int]:
    return {name: value for name, (value, _) in _consts("constants.p4").items()}


# ---- the scapy side ---------------------------------------------------------------------


def _field_bits(f: Field) -> int:
    return f.size if isinstance(f, BitField) else f.sz * 8


def _signed(f: Field) -> bool:
    return "Signed" in type(f).__name__


def scapy_fields(layer: type[Packet]) -> dict[str, Field]:
    return {f.name: f for f in layer.fields_desc}


# P4 header -> scapy layer.  Our own layers use the P4 field names one to one; scapy's
# layers get an explicit table of (P4 fields, scapy fields) groups of equal total width,
# in wire order.
OWN_LAYERS: dict[str, type[Packet]] = {
    "packet_out_t": h.CpuPacketOut,
    "packet_in_t": h.CpuPacketIn,
    "bth_t": h.BTH,
    "meth_t": h.METH,
    "reth_t": h.RETH,
    "immdt_t": h.ImmDt,
    "sack_t": h.MrcSack,
    "sack_cc_t": h.MrcSackCongestion,
    "nack_t": h.MrcNack,
    "probe_t": h.MrcProbe,
}

SCAPY_LAYERS: dict[str, tuple[type[Packet], list[tuple[tuple[str, ...], tuple[str, ...]]]]] = {
    "ethernet_t": (Ether, [
        (("dst_addr",), ("dst",)),
        (("src_addr",), ("src",)),
        (("ether_type",), ("type",)),
    ]),
    "ipv6_t": (IPv6, [
        (("version",), ("version",)),
        (("dscp", "ecn"), ("tc",)),
        (("flow_label",), ("fl",)),
        (("payload_len",), ("plen",)),
        (("next_hdr",), ("nh",)),
        (("hop_limit",), ("hlim",)),
        (("src_addr",), ("src",)),
        (("dst_addr",), ("dst",)),
    ]),
    # The fixed part; the segment list is srh_segment_t[] in P4, 'addresses' in scapy.
    "srh_t": (h.SRH, [
        (("next_hdr",), ("nh",)),
        (("hdr_ext_len",), ("len",)),
        (("routing_type",), ("type",)),
        (("segments_left",), ("segleft",)),
        (("last_entry",), ("lastentry",)),
        (("flags",), ("unused1", "protected", "oam", "alert", "hmac", "unused2")),
        (("tag",), ("tag",)),
    ]),
    "udp_t": (UDP, [
        (("src_port",), ("sport",)),
        (("dst_port",), ("dport",)),
        (("length",), ("len",)),
        (("checksum",), ("chksum",)),
    ]),
}

# Header -> its *_BYTES constant in headers.p4 and its length in docs/mrc-protocol.md.
LENGTHS: dict[str, tuple[str, int]] = {
    "packet_out_t": ("PACKET_OUT_BYTES", 2),
    "packet_in_t": ("PACKET_IN_BYTES", 3),
    "ethernet_t": ("ETHERNET_BYTES", 14),
    "ipv6_t": ("IPV6_BYTES", 40),
    "srh_t": ("SRH_FIXED_BYTES", 8),
    "srh_segment_t": ("SRH_SEGMENT_BYTES", 16),
    "udp_t": ("UDP_BYTES", 8),
    "bth_t": ("BTH_BYTES", 12),
    "meth_t": ("METH_BYTES", 4),
    "reth_t": ("RETH_BYTES", 16),
    "immdt_t": ("IMMDT_BYTES", 4),
    "sack_t": ("SACK_BYTES", 28),
    "sack_cc_t": ("SACK_CC_BYTES", 8),
    "nack_t": ("NACK_BYTES", 20),
    "probe_t": ("PROBE_BYTES", 16),
}


def _scapy_length(header: str) -> int:
    if header in OWN_LAYERS:
        return len(OWN_LAYERS[header]())
    if header == "srh_t":
        return len(h.SRH(addresses=["::1"])) - 16
    if header == "srh_segment_t":
        return len(h.SRH(addresses=["::1", "::2"])) - len(h.SRH(addresses=["::1"]))
    return len(SCAPY_LAYERS[header][0]())


# ---- headers ----------------------------------------------------------------------------


def test_every_p4_header_has_a_scapy_twin_and_a_length() -> None:
    covered = set(OWN_LAYERS) | set(SCAPY_LAYERS) | {"srh_segment_t"}
    assert set(p4_headers()) == covered
    assert set(LENGTHS) == covered


@pytest.mark.parametrize("header", sorted(OWN_LAYERS))
def test_own_layer_matches_p4_field_by_field(header: str) -> None:
    layer = OWN_LAYERS[header]
    p4 = p4_headers()[header]
    scapy = [(f.name, _field_bits(f), _signed(f)) for f in layer.fields_desc]
    assert scapy == p4, f"{layer.__name__} differs from {header}"


@pytest.mark.parametrize("header", sorted(SCAPY_LAYERS))
def test_scapy_layer_matches_p4_through_the_name_table(header: str) -> None:
    layer, groups = SCAPY_LAYERS[header]
    p4 = {name: width for name, width, _ in p4_headers()[header]}
    fields = scapy_fields(layer)
    assert [n for p4_names, _ in groups for n in p4_names] == list(p4), "P4 order/coverage"
    scapy_names = [n for _, names in groups for n in names]
    assert scapy_names == [f.name for f in layer.fields_desc][: len(scapy_names)]
    for p4_names, names in groups:
        p4_bits = sum(p4[n] for n in p4_names)
        scapy_bits = sum(_field_bits(fields[n]) for n in names)
        assert p4_bits == scapy_bits, f"{p4_names} vs {names}"


def test_srh_segment_is_one_ipv6_address() -> None:
    assert p4_headers()["srh_segment_t"] == [("sid", 128, False)]
    members = p4_header_struct()
    assert members["srh_segments"] == f"srh_segment_t[{c.SRH_MAX_SEGMENTS}]"


@pytest.mark.parametrize("header", sorted(LENGTHS))
def test_lengths_agree(header: str) -> None:
    const, documented = LENGTHS[header]
    p4_bits = sum(width for _, width, _ in p4_headers()[header])
    assert p4_bits % 8 == 0
    declared = _consts("headers.p4")[const][0]
    assert p4_bits // 8 == declared == _scapy_length(header) == documented


def test_headers_struct_holds_every_header() -> None:
    types = set(p4_header_struct().values())
    assert {t.split("[")[0] for t in types} == set(p4_headers())


# ---- constants --------------------------------------------------------------------------


def _python_constants() -> dict[str, int]:
    return {name: value for name, value in vars(c).items()
            if name.isupper() and type(value) is int}


def test_constants_agree_with_p4() -> None:
    p4 = p4_constants()
    py = _python_constants()
    assert sorted(set(p4) - set(py)) == [], "in constants.p4 only"
    assert sorted(set(py) - set(p4)) == [], "in constants.py only"
    assert {n: py[n] for n in p4 if py[n] != p4[n]} == {}


def test_p4_constants_fit_their_types() -> None:
    for name, (value, width) in _consts("constants.p4").items():
        assert 0 <= value < 1 << width, name


def test_derived_sets_use_the_constants() -> None:
    assert c.TRIMMABLE_DSCPS == {c.DSCP_TRIMMABLE, c.DSCP_TRIMMABLE_RETX}
    assert c.IMM_OPCODES <= c.WRITE_OPCODES
    assert len(c.WRITE_OPCODES) == 6


# ---- the layers in use ------------------------------------------------------------------


def _data_packet(opcode: int) -> Packet:
    return (Ether() / IPv6(dst=h.usid_carrier(c.USID_BLOCK_DEFAULT, [0x100, 0x200]))
            / IPv6(dst="2001:db8::2") / UDP(sport=0x1234)
            / h.BTH(opcode=opcode, psn=5) / h.METH() / h.RETH(dma_len=4)
            / (h.ImmDt(imm_data=1) if opcode in c.IMM_OPCODES else Raw())
            / Raw(b"data"))


@pytest.mark.parametrize("opcode", sorted(c.WRITE_OPCODES))
def test_write_packets_dissect(opcode: int) -> None:
    pkt = Ether(bytes(_data_packet(opcode)))
    assert pkt[UDP].dport == c.MRC_UDP_PORT
    assert pkt[h.BTH].opcode == opcode and pkt[h.BTH].psn == 5
    assert pkt.haslayer(h.METH) and pkt[h.RETH].dma_len == 4
    assert pkt.haslayer(h.ImmDt) == (opcode in c.IMM_OPCODES)
    assert pkt[Raw].load == b"data"


def test_control_packets_dissect() -> None:
    base = Ether() / IPv6() / UDP(dport=c.MRC_UDP_PORT)
    sack = Ether(bytes(base / h.BTH(opcode=c.OPCODE_SACK)
                       / h.MrcSack(mark=c.SACK_MARK_SKIP_ONCE, ack_psn_offset=-3,
                                   sack_bitmap=0x5)
                       / h.MrcSackCongestion(ooo_count=7)))
    assert sack[h.MrcSack].ack_psn_offset == -3
    assert sack[h.MrcSack].mark == c.SACK_MARK_SKIP_ONCE
    assert sack[h.MrcSackCongestion].ooo_count == 7
    nack = Ether(bytes(base / h.BTH(opcode=c.OPCODE_NACK)
                       / h.MrcNack(reason=c.NACK_TRIMMED_LASTHOP, nack_psn=9)))
    assert nack[h.MrcNack].reason == c.NACK_TRIMMED_LASTHOP and nack[h.MrcNack].nack_psn == 9
    probe = Ether(bytes(base / h.BTH(opcode=c.OPCODE_PROBE) / h.MrcProbe(probe_id=3)))
    assert probe[h.MrcProbe].probe_id == 3


def test_cpu_headers_carry_ethernet() -> None:
    pkt = h.CpuPacketIn(bytes(h.CpuPacketIn(ingress_port=4, reason=1) / Ether(type=0x86DD)))
    assert pkt.ingress_port == 4 and pkt[Ether].type == 0x86DD
    out = h.CpuPacketOut(bytes(h.CpuPacketOut(egress_port=3) / Ether()))
    assert out.egress_port == 3 and out.haslayer(Ether)


def test_usid_carrier() -> None:
    block = c.USID_BLOCK_DEFAULT
    assert h.usid_carrier(block, [0x100, 0x200, 0x300]) == "fcbb:bb00:100:200:300::"
    assert h.usid_carrier("fcbb:bb00::/32", [1, 2, 3, 4, 5, 6]) == "fcbb:bb00:1:2:3:4:5:6"
    assert h.usid_carrier(block, []) == "fcbb:bb00::"
    assert h.carrier_usids("fcbb:bb00:100:200::") == (block, [0x100, 0x200])
    with pytest.raises(ValueError):
        h.usid_carrier(block, [1] * 7)
    with pytest.raises(ValueError):
        h.usid_carrier(block, [0])
    with pytest.raises(ValueError):
        h.usid_carrier(1 << 32, [1])


def test_dscp_ecn_tc() -> None:
    assert h.dscp_ecn_tc(c.DSCP_CONTROL, c.ECN_ECT0) == 0xBA
    with pytest.raises(ValueError):
        h.dscp_ecn_tc(64)
