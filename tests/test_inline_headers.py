"""Parsers extract, and deparsers emit, a whole-byte header in place (issue 17: no call
per header): at a byte boundary with the bytes there the struct unpack is inlined,
otherwise the extractor runs (unaligned bits, a packet too short). Either way the
packet that leaves is what the P4 program says (spec 12.8.1 extract, 15.3 emit)."""

from __future__ import annotations

import pytest

from behavioral_model.pipeline import native
from behavioral_model.pipeline.native import PURE_PYTHON_ENV
from behavioral_model.program import load_program_text

# A 4-bit header (when port 1) puts the 24-bit header h off the byte boundary; the
# program swaps h's two fields and sends everything out of port 2.
PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header nib_t { bit<4> n; }
header h_t { bit<8> a; bit<16> b; }
struct headers_t { nib_t nib; h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m,
         inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) { 1: nib; default: h; }
    }
    state nib { pkt.extract(hdr.nib); transition h; }
    state h { pkt.extract(hdr.h); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = sm.parser_error == error.NoError ? 9w2 : 9w3;
        bit<8> a = hdr.h.a;
        hdr.h.a = hdr.h.b[7:0];
        hdr.h.b = (bit<16>)a;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control NoCompute(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.nib); pkt.emit(hdr.h); }
}
V1Switch(P(), NoVerify(), I(), E(), NoCompute(), D()) main;
"""


MODES = ["python", "c codec"] if native.built() else ["python"]


@pytest.fixture(scope="module", params=MODES)
def program(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(PURE_PYTHON_ENV, "1" if request.param == "python" else "0")
        return load_program_text(PROGRAM, "inline.p4")


def test_the_generated_code_inlines_the_whole_byte_header(  # type: ignore[no-untyped-def]
        program, request: pytest.FixtureRequest) -> None:
    source = program.compiled.source
    parser = source[source.index("def block_parser"):].split("def block_ingress")[0]
    deparser = source[source.index("def block_deparser"):]
    if "c codec" in request.node.callspec.id:  # pipeline/native.py: one call per header
        assert "(buf, pos >> 3)" in parser and "out.append(_e_h_t" in deparser
        assert ".unpack_from(" not in parser
    else:
        assert ".unpack_from(buf, pos >> 3)" in parser
        assert "out.append(_P_emit_h_t" in deparser


def test_aligned_header(program) -> None:  # type: ignore[no-untyped-def]
    out = program.new_device().process(bytes([0x11, 0x22, 0x33, 0x44]), 0)
    # a = 0x11, b = 0x2233 -> a = 0x33, b = 0x0011; the payload 0x44 follows
    assert [(p.port, p.data) for p in out] == [(2, bytes([0x33, 0x00, 0x11, 0x44]))]


def test_unaligned_header(program) -> None:  # type: ignore[no-untyped-def]
    out = program.new_device().process(bytes([0xA1, 0x12, 0x23, 0x34]), 1)
    # n = 0xA, h = 0x112233 read across byte boundaries (a = 0x11, b = 0x2233), then 4
    # bits left, which the payload (from the next whole byte) leaves out; bm emits a
    # header that is not whole bytes padded with zero bits: 0xA0, then h swapped
    assert [(p.port, p.data) for p in out] == [(2, bytes([0xA0, 0x33, 0x00, 0x11]))]


def test_packet_too_short_for_the_header(program) -> None:  # type: ignore[no-untyped-def]
    out = program.new_device().process(bytes([0x11, 0x22]), 0)
    # PacketTooShort: h stays invalid, nothing is emitted but the packet's bytes
    assert [(p.port, p.data) for p in out] == [(3, bytes([0x11, 0x22]))]
