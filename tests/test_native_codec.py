"""The C header codec (``pipeline/_native.c``, ``pipeline/native.py``): against the
spec's rule written here (fields in declaration order, most significant bit first), on
random layouts with sub-byte runs, signed and bool fields and fields wider than 64 bits
at any bit position; its handling of bad values and short buffers; and whole programs
(a fabric of the switch and the NIC) compiled with and without it give the same
run, figure for figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from behavioral_model.pipeline import native
from behavioral_model.pipeline.headercodec import native_fields
from behavioral_model.pipeline.native import PURE_PYTHON_ENV
from behavioral_model.program import load_program, load_program_text
from fabric.runner import RunResult, run_scenario
from fabric.scenario import load_scenario
from tests.test_headercodec import FIELD_TYPES, program, reference_fields

pytestmark = pytest.mark.skipif(
    not native.built(), reason="the C header codec is not built (no C compiler (gcc) "
    "where the package was installed)")

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"u": 0, "s": 1, "b": 2}

layouts = st.lists(st.sampled_from(FIELD_TYPES), min_size=1, max_size=9).map(
    lambda fs: fs + [(f"bit<{-sum(w for _, w, _ in fs) % 8}>", -sum(w for _, w, _ in fs) % 8,
                      "u")] if sum(w for _, w, _ in fs) % 8 else fs)


def header_class(fields: list[tuple[str, int, str]]) -> type:
    """A class shaped as values.py makes a header's: one slot per field, ``_valid``."""
    slots = tuple(f"f{i}" for i in range(len(fields))) + ("_valid",)
    return type("h_t", (), {"__slots__": slots})


def codec_for(fields: list[tuple[str, int, str]]):
    cls = header_class(fields)
    spec = [(f"f{i}", w, KINDS[k]) for i, (_, w, k) in enumerate(fields)]
    return native.codec_class()(cls, spec), cls


@settings(max_examples=150, deadline=None)
@given(layout=layouts, data=st.data())
def test_extract_reads_the_bits_and_emit_gives_them_back(layout, data) -> None:
    codec, cls = codec_for(layout)
    total = sum(w for _, w, _ in layout)
    assert codec.nbytes == total // 8
    bits = data.draw(st.integers(0, (1 << total) - 1), "bits")
    before = data.draw(st.binary(max_size=5), "bytes before")
    after = data.draw(st.binary(max_size=5), "bytes after")
    buf = before + bits.to_bytes(total // 8, "big") + after
    h = codec.extract(buf, len(before))
    assert type(h) is cls and h._valid is True
    got = [getattr(h, f"f{i}") for i in range(len(layout))]
    assert got == reference_fields(bits, total, layout)
    assert [type(v) for v in got] == [bool if k == "b" else int for _, _, k in layout]
    assert codec.emit(h) == bits.to_bytes(total // 8, "big")
    # into an existing object, and into an object of another class (by attribute)
    other = type("other_t", (), {})()
    for target in (cls(), other):
        assert codec.extract_into(buf, len(before), target) is None
        assert [getattr(target, f"f{i}") for i in range(len(layout))] == got
        assert target._valid is True
        assert codec.emit(target) == bits.to_bytes(total // 8, "big")


@settings(max_examples=100, deadline=None)
@given(layout=layouts, data=st.data())
def test_emit_cuts_values_to_their_width_as_the_python_emitter_does(layout, data) -> None:
    """Out-of-range and negative values wrap (``value & mask``), a bool field is one
    bit of its truth: the bits the Python emitter gives, written by hand here."""
    codec, cls = codec_for(layout)
    h = cls()
    expected = 0
    for i, (_, w, k) in enumerate(layout):
        if k == "b":
            value = data.draw(st.sampled_from([True, False, 0, 1, 7]), f"f{i}")
            bits = 1 if value else 0
        else:
            value = data.draw(st.integers(-(1 << (w + 3)), 1 << (w + 3)), f"f{i}")
            bits = value & ((1 << w) - 1)
        setattr(h, f"f{i}", value)
        expected = (expected << w) | bits
    total = sum(w for _, w, _ in layout)
    assert codec.emit(h) == expected.to_bytes(total // 8, "big")


def test_bad_values_and_short_buffers_raise_errors_not_crashes() -> None:
    codec, cls = codec_for([("bit<16>", 16, "u"), ("bit<128>", 128, "u")])
    with pytest.raises(ValueError, match="past the end"):
        codec.extract(bytes(17), 0)
    with pytest.raises(ValueError, match="past the end"):
        codec.extract(bytes(20), 3)
    with pytest.raises(ValueError, match="past the end"):
        codec.extract(bytes(20), -1)
    with pytest.raises(TypeError):
        codec.extract("not bytes", 0)
    assert codec.extract(bytearray(range(18)), 0).f0 == 1  # any buffer
    h = cls()
    h.f0 = 1
    with pytest.raises(AttributeError):  # f1 was never set
        codec.emit(h)
    h.f1 = "x"
    with pytest.raises(TypeError, match="must be an int"):
        codec.emit(h)
    with pytest.raises(TypeError, match="not a writable slot"):
        native.codec_class()(type("x", (), {"__slots__": ("_valid",)}), [("f0", 8, 0)])
    with pytest.raises(ValueError, match="whole number of bytes"):
        native.codec_class()(cls, [("f0", 3, 0)])
    with pytest.raises(ValueError, match="bad width"):
        native.codec_class()(cls, [("f0", 0, 0)])
    with pytest.raises(ValueError, match="bad width"):
        native.codec_class()(cls, [("f0", 8, 2)])  # a bool is one bit


def test_native_fields_takes_flat_whole_byte_headers_only() -> None:
    prog = load_program_text(program([("bit<4>", 4, "u"), ("int<4>", 4, "s"),
                                      ("bool", 1, "b"), ("bit<7>", 7, "u")]), "n.p4")
    h_t = prog.compiled.headers_type.fields[0][1]  # type: ignore[union-attr]
    assert native_fields(h_t) == [("f0", 4, 0), ("f1", 4, 1), ("f2", 1, 2), ("f3", 7, 0)]
    odd = load_program_text(program([("bit<4>", 4, "u")]).replace(
        "header h_t {\n    bit<4> f0;", "header h_t {\n    bit<4> f0; bit<3> g;"), "o.p4")
    assert native_fields(odd.compiled.headers_type.fields[0][1]) is None  # type: ignore


def _generated_calls(prog) -> set[str]:
    """The kinds of codec call the program's generated code binds."""
    return {name.split("_")[1] for name in prog.compiled.constants
            if name.startswith(("_x_", "_xi_", "_e_"))}


@pytest.mark.parametrize("p4", ["p4src/srv6_switch.p4", "p4src/mrc_nic.p4"])
def test_the_fabric_programs_use_the_codec_unless_switched_off(
        p4: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _generated_calls(load_program(ROOT / p4)) == {"x", "xi", "e"}
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    assert not _generated_calls(load_program(ROOT / p4))


def test_a_fabric_run_is_the_same_with_and_without_the_codec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The incast scenario (trimming at the last hop, NACKs, ECN marks, SACKs, a
    victim flow; every header type of the two programs) in one process: the same
    report, figure for figure, with both compilations of the switch and the NIC."""
    incast = load_scenario(ROOT / "fabric/scenarios/incast.yaml").scaled(0.125)
    runs = []
    for pure in ("1", "0"):
        monkeypatch.setenv(PURE_PYTHON_ENV, pure)
        runs.append(run_scenario(incast, "mrc"))
    pure_python, with_codec = (figures(run) for run in runs)
    assert with_codec == pure_python
    assert with_codec["trimmed"] and with_codec["packet_hops"] > 1000


def figures(run: RunResult) -> dict[str, Any]:
    """What a run measured (not how long it took)."""
    return {"end_us": run.end_us, "intact": run.intact, "network": run.network,
            "writes": [(w.qp, w.completed_us, w.ok) for w in run.writes],
            "packet_hops": run.packet_hops, "qp_stats": run.qp_stats,
            "trimmed": run.metrics.trimmed, "ce_marks": run.metrics.ce_marks,
            "qps": {qp: repr(vars(m)) for qp, m in run.metrics.qps.items()}}


def test_prototypes_build_the_zero_structs_the_classes_build() -> None:
    """The NIC's headers, metadata (a nested struct among its fields) and standard
    metadata: ``new()`` equals the class's zero value, field for field, and each gets
    nested structs of its own, so writing one packet's leaves the next one's zero."""
    compiled = load_program(ROOT / "p4src/mrc_nic.p4").compiled
    values = compiled.values
    for t in (compiled.headers_type, compiled.metadata_type, compiled.std_meta_type):
        new = values.constructor(t)
        cls = values.class_for(t)
        assert new is not cls  # every field's zero is immutable or such a struct
        a, b = new(), new()
        assert type(a) is cls and a == cls() and b == cls()
        assert {s: repr(getattr(a, s)) for s in cls.__slots__} == \
            {s: repr(getattr(cls(), s)) for s in cls.__slots__}
    meta_new = values.constructor(compiled.metadata_type)
    a, b = meta_new(), meta_new()
    assert a.event is not b.event
    a.event.reason = 3
    a.drop_reason = 9
    assert meta_new() == values.class_for(compiled.metadata_type)()


def test_structs_holding_unions_or_stacks_keep_their_class() -> None:
    prog = load_program_text("""
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; }
header_union u_t { a_t a; }
struct with_union_t { u_t u; }
struct with_stack_t { a_t[2] s; bit<8> y; }
struct headers_t { a_t a; }
struct meta_t { with_union_t wu; with_stack_t ws; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition accept; }
}
control V(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { m.ws.s[0] = hdr.a; }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.a); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
""", "u.p4")
    compiled = prog.compiled
    meta_t = compiled.metadata_type
    wu_t, ws_t = (ft for _, ft in meta_t.fields)  # type: ignore[union-attr]
    # a union, or a stack of a struct's struct (a shared zero only directly in a struct,
    # which this is): the union's struct and the metadata keep their classes
    assert compiled.values.constructor(wu_t) is compiled.values.class_for(wu_t)
    assert compiled.values.constructor(meta_t) is compiled.values.class_for(meta_t)
    assert compiled.values.constructor(ws_t) is not compiled.values.class_for(ws_t)


def test_bad_prototypes_are_refused() -> None:
    prototype = native.prototype_class()
    cls = type("s_t", (), {"__slots__": ("a", "b")})
    zero = cls()
    zero.a, zero.b = 0, False
    with pytest.raises(TypeError, match="not a writable slot"):
        prototype(zero, ["a", "c"])
    with pytest.raises(TypeError, match="strings"):
        prototype(zero, [1])
    with pytest.raises(TypeError, match="Prototypes"):
        prototype(zero, ["a"], {"b": object()})
    made = prototype(zero, ["a"]).new()
    assert made.a == 0 and not hasattr(made, "b")  # a slot not named stays unset


def test_a_deparser_emits_the_valid_headers_and_stack_elements_in_order() -> None:
    codec, cls = codec_for([("bit<8>", 8, "u"), ("bit<16>", 16, "u")])
    stack = type("stack_t", (), {"__slots__": ("elems", "next_index")})
    hdrs = type("headers_t", (), {"__slots__": ("a", "s", "b")})

    def header(x: int, valid: bool):
        h = cls()
        h.f0, h.f1, h._valid = x, x * 257, valid
        return h

    hdr = hdrs()
    hdr.a, hdr.b, hdr.s = header(1, True), header(2, False), stack()
    hdr.s.elems = [header(3, True), header(4, False), header(5, True)]
    steps = [("a", codec, False), ("s", codec, True), ("b", codec, False)]
    emit = native.deparser_class()(steps, hdrs).emit  # fields read from their slots
    expected = b"".join(codec.emit(header(x, True)) for x in (1, 3, 5))
    assert emit(hdr) == expected
    other = type("other_t", (), {})()  # another class: fields read by attribute
    other.a, other.s, other.b = hdr.a, hdr.s, hdr.b
    assert emit(other) == expected
    assert native.deparser_class()(steps).emit(hdr) == expected
    # the packet that leaves: the headers, then the payload, in one piece
    frame = native.deparser_class()(steps, hdrs).frame
    assert frame(hdr, b"payload") == expected + b"payload"
    assert frame(hdr, memoryview(b"--payload")[2:]) == expected + b"payload"
    assert frame(hdr, b"") == expected
    with pytest.raises(TypeError):
        frame(hdr, "not bytes")
    with pytest.raises(TypeError):
        frame(hdr)
    hdr.a._valid = hdr.s.elems[0]._valid = hdr.s.elems[2]._valid = False
    assert emit(hdr) == b""
    # more valid headers than the deparser's first buffer holds
    hdr.s.elems = [header(x & 0xFF, True) for x in range(100)]
    assert emit(hdr) == b"".join(codec.emit(h) for h in hdr.s.elems)
    with pytest.raises(TypeError):
        native.deparser_class()([("a", object(), False)])
    with pytest.raises(TypeError, match="not a writable slot"):
        native.deparser_class()([("c", codec, False)], hdrs)
    del hdr.b
    with pytest.raises(AttributeError):
        emit(hdr)
    with pytest.raises(AttributeError):
        native.deparser_class()([("missing", codec, False)]).emit(hdr)


DEPARSERS = {
    "fused": "pkt.emit(hdr.a); pkt.emit(hdr.s); pkt.emit(hdr.b);",
    "whole struct": "pkt.emit(hdr);",
    "with a condition": "pkt.emit(hdr.a); if (hdr.a.x == 7) { pkt.emit(hdr.b); } "
                        "pkt.emit(hdr.s);",
    "stack elements": "pkt.emit(hdr.a); pkt.emit(hdr.s[0]); pkt.emit(hdr.s[1]); "
                      "pkt.emit(hdr.s[2]); pkt.emit(hdr.b);",
}
ONE_BY_ONE = ("with a condition", "stack elements")  # not one Deparser call


@pytest.mark.parametrize("body", DEPARSERS, ids=list(DEPARSERS))
def test_deparsers_of_emits_only_are_one_call_and_emit_the_same_bytes(
        body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; bit<8> y; }
header b_t { bit<4> p; bit<12> q; }
struct headers_t { a_t a; a_t[3] s; b_t b; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); transition select(hdr.a.x) { 7: more; default: accept; } }
    state more { pkt.extract(hdr.s.next); pkt.extract(hdr.b); transition accept; }
}
control V(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; if (hdr.b.isValid()) { hdr.b.q = hdr.b.q + 1; } }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { BODY } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
""".replace("BODY", DEPARSERS[body])
    with_codec = load_program_text(source, "d.p4")
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    without = load_program_text(source, "d.p4")
    fused = "_deparse_" in with_codec.compiled.source
    assert fused == (body not in ONE_BY_ONE)
    assert ("_deparse_frame" in with_codec.compiled.source) == fused
    assert "_deparse_" not in without.compiled.source
    a, b = with_codec.new_device(), without.new_device()
    packets = [bytes([7, 1, 9, 9, 0x12, 0x34]) + b"payload", bytes([7, 2, 9, 9, 0xFF, 0xFF]),
               bytes([6, 1]) + b"rest", bytes([7, 1, 9])]
    expected = [bytes([7, 1, 9, 9, 0x12, 0x35]) + b"payload",
                bytes([7, 2, 9, 9, 0xF0, 0x00]), bytes([6, 1]) + b"rest", None]
    for packet, want in zip(packets, expected, strict=True):
        got = [o.data for o in a.process(packet, 0)]
        assert got == [o.data for o in b.process(packet, 0)]
        if want is not None and body != "with a condition":
            assert got == [want]


def test_benchmarks_say_whether_the_extension_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    assert native.describe() == "C extension on"
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    assert native.describe() == f"C extension off ({PURE_PYTHON_ENV}=1)"
    assert native.codec_class() is None and native.deparser_class() is None
    assert native.prototype_class() is None
