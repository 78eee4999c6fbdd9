"""Generated header extractors and emitters (``pipeline/headercodec.py``) against a
reference written here from the spec's rule (fields in declaration order, most
significant bit first): for header layouts with sub-byte runs, wide fields, signed
fields and bools, extracting at a byte boundary (the struct fast path) and at other
bit offsets (the generic path) gives the same field values as slicing the packet's
bits by hand, emitting gives back the header's bits, and a packet too short is
PacketTooShort."""

from __future__ import annotations

import random

import pytest

from behavioral_model.pipeline.native import PURE_PYTHON_ENV
from behavioral_model.pipeline.support import ParserError
from behavioral_model.program import load_program_text

# (P4 type, width, kind) with kind "u" unsigned, "s" signed, "b" bool
FIELD_TYPES = [("bit<1>", 1, "u"), ("bit<3>", 3, "u"), ("bit<4>", 4, "u"),
               ("bit<7>", 7, "u"), ("bit<8>", 8, "u"), ("bit<12>", 12, "u"),
               ("bit<16>", 16, "u"), ("bit<20>", 20, "u"), ("bit<24>", 24, "u"),
               ("bit<32>", 32, "u"), ("bit<48>", 48, "u"), ("bit<64>", 64, "u"),
               ("bit<128>", 128, "u"), ("int<8>", 8, "s"), ("int<5>", 5, "s"),
               ("int<16>", 16, "s"), ("bool", 1, "b"), ("bit<63>", 63, "u"),
               ("int<64>", 64, "s"), ("bit<65>", 65, "u"), ("int<70>", 70, "s"),
               ("bit<100>", 100, "u"), ("bit<127>", 127, "u"), ("bit<136>", 136, "u")]

FIXED_LAYOUTS = [
    # IPv6's first word: a run of sub-byte fields that ends on a byte boundary
    [("bit<4>", 4, "u"), ("bit<8>", 8, "u"), ("bit<20>", 20, "u"), ("bit<16>", 16, "u"),
     ("bit<128>", 128, "u")],
    # a signed field and a bool inside a run; a 48-bit field (6 bytes, no struct code)
    [("int<5>", 5, "s"), ("bool", 1, "b"), ("bit<2>", 2, "u"), ("bit<48>", 48, "u"),
     ("int<16>", 16, "s")],
    # one field only
    [("bit<32>", 32, "u")],
    # a run that only ends with the header
    [("bit<3>", 3, "u"), ("bit<7>", 7, "u"), ("bit<12>", 12, "u"), ("bit<2>", 2, "u")],
]


def random_layout(rng: random.Random) -> list[tuple[str, int, str]]:
    fields = [rng.choice(FIELD_TYPES) for _ in range(rng.randint(1, 9))]
    pad = -sum(w for _, w, _ in fields) % 8
    if pad:
        fields.append((f"bit<{pad}>", pad, "u"))
    return fields


LAYOUTS = FIXED_LAYOUTS + [random_layout(random.Random(seed)) for seed in range(12)]


def program(fields: list[tuple[str, int, str]]) -> str:
    decls = "\n".join(f"    {t} f{i};" for i, (t, _, _) in enumerate(fields))
    return f"""
#include <core.p4>
#include <v1model.p4>
header h_t {{
{decls}
}}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t m) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{
    apply {{ sm.egress_spec = 1; }}
}}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t m) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def reference_fields(bits: int, total: int, fields: list[tuple[str, int, str]]) -> list:
    """Field values of a header whose ``total`` bits are ``bits``, by hand."""
    values = []
    offset = 0
    for _, width, kind in fields:
        raw = (bits >> (total - offset - width)) & ((1 << width) - 1)
        offset += width
        if kind == "s" and raw >> (width - 1):
            raw -= 1 << width
        values.append(bool(raw) if kind == "b" else raw)
    return values


@pytest.fixture(scope="module", params=range(len(LAYOUTS)), ids=lambda i: f"layout{i}")
def codec(request: pytest.FixtureRequest):
    fields = LAYOUTS[request.param]
    with pytest.MonkeyPatch.context() as mp:
        # the Python extractor and emitter (where the C codec is built, the pipeline
        # calls it instead: tests/test_native_codec.py)
        mp.setenv(PURE_PYTHON_ENV, "1")
        prog = load_program_text(program(fields), "codec.p4")
    ns = prog.compiled.bind({})
    extract = next(v for k, v in ns.items() if k.startswith("_extract_h_t"))
    emit = next(v for k, v in ns.items() if k.startswith("_emit_h_t"))
    new_h = prog.compiled.values.class_for(
        prog.compiled.headers_type.fields[0][1])  # type: ignore[union-attr]
    return fields, extract, emit, new_h


@pytest.mark.parametrize("offset", [0, 8, 3, 5, 16 + 7])
def test_extract_matches_the_bits_and_emit_gives_them_back(codec, offset: int) -> None:
    fields, extract, emit, new_h = codec
    total = sum(w for _, w, _ in fields)
    rng = random.Random(total * 31 + offset)
    for _ in range(20):
        bits = rng.getrandbits(total)
        tail = rng.getrandbits(13)
        # the header at bit ``offset``, random bits before it, 13 more bits after it
        stream = (rng.getrandbits(offset) << (total + 13)) | (bits << 13) | tail
        nbits = offset + total + 13
        buf = (stream << (-nbits % 8)).to_bytes((nbits + 7) // 8, "big")
        h = new_h()
        end = extract(buf, offset, len(buf) * 8, h)
        assert end == offset + total
        assert h._valid is True
        got = [getattr(h, f"f{i}") for i in range(len(fields))]
        assert got == reference_fields(bits, total, fields)
        assert emit(h) == bits.to_bytes(total // 8, "big")


def test_a_packet_too_short_is_packet_too_short(codec) -> None:
    fields, extract, _, new_h = codec
    total = sum(w for _, w, _ in fields)
    buf = bytes(total // 8)  # exactly long enough at offset 0
    extract(buf, 0, len(buf) * 8, new_h())
    for offset in (1, 8):  # one bit or one byte too few
        h = new_h()
        with pytest.raises(ParserError) as err:
            extract(buf, offset, len(buf) * 8, h)
        assert err.value.code == 1  # PacketTooShort, as declared in core.p4
        assert h._valid is False


def test_emit_wraps_signed_values_and_writes_bools_as_one_bit() -> None:
    fields = [("int<8>", 8, "s"), ("bool", 1, "b"), ("bit<7>", 7, "u")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(PURE_PYTHON_ENV, "1")
        prog = load_program_text(program(fields), "signed.p4")
    ns = prog.compiled.bind({})
    emit = next(v for k, v in ns.items() if k.startswith("_emit_h_t"))
    h = prog.compiled.values.class_for(prog.compiled.headers_type.fields[0][1])()
    h.f0, h.f1, h.f2 = -2, True, 0x55
    assert emit(h) == bytes([0xFE, 0x80 | 0x55])
