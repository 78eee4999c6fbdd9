"""The per-packet fast paths of issue 17: generated code indexes register and counter
cells and calls a table's bound lookup directly, so those objects must only ever change
in place; register cells are typed arrays; parsers with a header stack loop are
straight-line code."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.program import load_program
from behavioral_model.runtime.externs import CounterArray, CounterKind, RegisterArray
from behavioral_model.runtime.matches import Exact, KeyField, Lpm, MatchKind
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("width", "typecode"), [(1, "B"), (8, "B"), (9, "H"), (19, "I"),
                                                  (48, "Q"), (64, "Q")])
def test_register_cells_are_the_narrowest_typed_array(width: int, typecode: str) -> None:
    reg = RegisterArray("r", 4, width)
    assert reg.values.typecode == typecode  # type: ignore[union-attr]
    reg.write(1, (1 << (width + 3)) - 1)  # wider than the register: truncated
    assert reg.read(1) == (1 << width) - 1
    assert reg.read(4) == 0 and reg.read(-1) == 0  # out of range reads 0


def test_wide_registers_keep_python_ints() -> None:
    reg = RegisterArray("r", 2, 128)
    reg.write(0, 1 << 127)
    assert isinstance(reg.values, list) and reg.read(0) == 1 << 127


def test_reset_changes_cells_in_place() -> None:
    reg = RegisterArray("r", 3, 16)
    cells = reg.values
    reg.write(2, 7)
    reg.reset()
    assert reg.values is cells and list(cells) == [0, 0, 0]
    ctr = CounterArray("c", 2, CounterKind.PACKETS)
    packets, nbytes = ctr.packet_counts, ctr.byte_counts
    ctr.count(1, 100)
    ctr.reset()
    assert ctr.packet_counts is packets and ctr.byte_counts is nbytes
    assert ctr.read(1) == (0, 0)


def test_lookup_fn_follows_the_entries_of_exact_and_lpm_tables() -> None:
    exact = Table("t", [KeyField("k", MatchKind.EXACT, 16)], ["fwd"], ActionCall("fwd", (0,)))
    fn = exact.lookup_fn
    assert fn((5,)) is None
    entry = exact.insert(TableEntry((Exact(5),), ActionCall("fwd", (1,))))
    assert exact.lookup_fn is fn and fn((5,)) is entry
    lpm = Table("l", [KeyField("a", MatchKind.LPM, 32)], ["fwd"], ActionCall("fwd", (0,)))
    fn = lpm.lookup_fn
    assert fn((0x0A000001,)) is None  # the miss is cached...
    entry = lpm.insert(TableEntry((Lpm(0x0A000000, 8),), ActionCall("fwd", (2,))))
    assert fn((0x0A000001,)) is entry  # ...and forgotten when the entries change
    lpm.delete(entry.matches)
    assert fn((0x0A000001,)) is None


def test_a_parser_with_a_stack_loop_is_straight_line_code() -> None:
    source = load_program(ROOT / "p4src" / "srv6_switch.p4").compiled.source
    parser = source[source.index("def block_parser"):source.index("block_verify_checksum")]
    # the SRH segment list loops on its own state; no state is dispatched by elif
    assert parser.count("while ") == 1 and "elif _sub" not in parser


INLINE_STATES = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header one_t { bit<8> v; }
header two_t { bit<8> a; bit<16> b; bit<24> c; }
struct headers_t { eth_t eth; one_t first; one_t second; one_t last; two_t data; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 1: first; 2: second; default: accept; }
    }
    state first { pkt.extract(hdr.first); transition last; }
    state second { pkt.extract(hdr.second); transition select(hdr.second.v) {
        0: reject; default: last; } }
    state last { pkt.extract(hdr.last); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set(bit<8> a, bit<16> b, bit<24> c) {
        hdr.data.setValid();
        hdr.data.a = a;
        hdr.data.b = b;
        hdr.data.c = c;
    }
    table t { key = { hdr.eth.type: exact; } actions = { set; NoAction; }
              default_action = NoAction(); }
    apply {
        t.apply();
        std.egress_spec = std.parser_error == error.NoError ? 9w1 : 9w2;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


def test_states_one_transition_leads_to_run_in_its_place() -> None:
    """``first`` and ``second`` (one transition each leads to them) run in place of
    that transition; ``last`` (two lead to it) keeps its test of the state variable."""
    from behavioral_model.program import load_program_text

    program = load_program_text(INLINE_STATES, "inline_states.p4")
    source = program.compiled.source
    parser = source[source.index("def block_parser"):source.index("block_verify_checksum")]
    assert parser.count("if st == ") == 2  # `last`, and the final reject check
    device = program.new_device()
    eth = bytes(12)
    for kind, rest, port in ((1, b"\x07\x08", 1), (2, b"\x05\x09", 1), (3, b"\x05\x09", 1),
                             (2, b"\x00\x09", 2)):  # the last one rejected
        frame = eth + kind.to_bytes(2, "big") + rest
        (got,) = device.process(frame, 0)
        assert (got.port, got.data) == (port, frame)


def test_values_out_of_a_fields_range_are_cut_to_its_width_when_emitted() -> None:
    """The deparser packs a field that is a word of its own unmasked and falls back on
    the masked form when a value is out of range (here action data wider than the
    field it is stored in)."""
    from behavioral_model.program import load_program_text

    device = load_program_text(INLINE_STATES, "inline_states.p4").new_device()
    device.state.table("MyIngress.t").insert(TableEntry(
        (Exact(3),), ActionCall("MyIngress.set", (0x1AB, 0x1CDEF, 0x1234567))))
    (out,) = device.process(bytes(12) + b"\x00\x03", 0)
    assert out.data[14:] == bytes([0xAB, 0xCD, 0xEF, 0x23, 0x45, 0x67])


NIBBLE = r"""
#include <core.p4>
#include <v1model.p4>

header nibble_t { bit<4> v; }
header pad_t { bit<4> v; }
header word_t { bit<16> v; }
struct headers_t { nibble_t nibble; word_t word; pad_t pad; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.nibble); pkt.extract(hdr.word); pkt.extract(hdr.pad);
                  transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { hdr.word.v = hdr.word.v + 1; std.egress_spec = 1; }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


def _parser_source(program: object) -> str:
    source = program.compiled.source  # type: ignore[attr-defined]
    return source[source.index("def block_parser"):source.index("block_verify_checksum")]


def test_byte_boundary_tests_only_where_a_parser_may_leave_one() -> None:
    """A program whose parsers move by whole bytes only extracts in place without
    testing the cursor's alignment; one with a 4-bit header keeps the test, and a
    16-bit header after it is read from the middle of a byte."""
    from behavioral_model.program import load_program_text

    assert "not pos & 7" not in _parser_source(load_program(ROOT / "p4src" / "mrc_nic.p4"))
    program = load_program_text(NIBBLE, "nibble.p4")
    assert "not pos & 7" in _parser_source(program)
    (out,) = program.new_device().process(bytes([0xA1, 0x23, 0x4B]), 0)
    # word 0x1234 + 1 read between the nibbles (each emitted padded to a byte)
    assert out.data == bytes([0xA0, 0x12, 0x35, 0xB0])


MULTICAST = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tail_t { bit<8> a; bit<8> b; }
struct headers_t { eth_t eth; tail_t tail; }
struct meta_t { bit<8> x; bit<8> y; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { meta.x = 5; hdr.tail.setValid(); std.mcast_grp = 1; }
}
control Bump(inout meta_t m) { apply { m.x = m.x + 1; } }
control Peek(inout headers_t h, in meta_t m) { apply { h.tail.b = m.x; } }
control Outer(inout headers_t h, in meta_t m) { Peek() p; apply { p.apply(h, m); } }
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Bump() bump;
    Outer() outer;
    Peek() peek;
    action set(out bit<8> v) { v = 9; }
    apply {
        EGRESS
        hdr.tail.a = meta.x;
    }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


@pytest.mark.parametrize(("egress", "writes", "a", "b"), [
    ("peek.apply(hdr, meta);", False, 5, 5),
    ("meta.y = 1;", True, 5, 0),
    ("meta.x = meta.x + 1;", True, 6, 0),
    ("bump.apply(meta);", True, 6, 0),
    ("outer.apply(hdr, meta);", False, 5, 5),
    ("set(meta.x);", True, 9, 0),
])
def test_multicast_copies_share_the_metadata_only_if_egress_cannot_write_it(
        egress: str, writes: bool, a: int, b: int) -> None:
    """The compiler proves when egress cannot write the metadata struct (then the
    copies of a multicast packet share it); every copy sees the metadata ingress left,
    as when each has a copy of its own (forced here), and ``process`` (which runs the
    copies' egress without EgressJobs) gives what end_ingress and egress give."""
    from behavioral_model.pipeline.v1model import NORMAL
    from behavioral_model.program import load_program_text
    from behavioral_model.runtime.pre import Replica

    program = load_program_text(MULTICAST.replace("EGRESS", egress), "multicast.p4")
    assert program.compiled.egress_writes_meta is writes
    frame = bytes(12) + b"\x08\x00"
    outputs = []
    for copy_meta in (program.compiled.egress_writes_meta, True):
        program.compiled.egress_writes_meta = copy_meta
        device = program.new_device()
        device.state.pre.create_group(1, [Replica(1, 0), Replica(2, 1), Replica(3, 2)])
        outputs.append([(o.port, o.data) for o in device.process(frame, 0)])
        jobs, _ = device.end_ingress(frame, 0, 0, NORMAL, *device.run_ingress(frame, 0))
        outputs.append([(o.port, o.data) for job in jobs for o in device.egress(job)[0]])
    expected = [(p, frame + bytes([a, b])) for p in (1, 2, 3)]
    assert outputs == [expected] * 4


DECAP = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header one_t { bit<8> v; }
struct headers_t { eth_t eth; one_t a; one_t b; }
struct meta_t { bit<8> x; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.a);
                  transition select(hdr.eth.type) { 1: b; default: accept; } }
    state b { pkt.extract(hdr.b); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { std.egress_spec = 1; INGRESS }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


@pytest.mark.parametrize(("ingress", "with_b", "without_b"), [
    # a move of b's header into a, and b the shared zero
    ("hdr.a = hdr.b; hdr.b.setInvalid();", "09", ""),
    ("hdr.a = hdr.b; hdr.b.setInvalid(); hdr.b.v = 7; hdr.b.setValid();", "0907", "07"),
    ("hdr.a = hdr.b; hdr.b.setInvalid(); hdr.a.v = hdr.a.v + 1;", "0a", ""),
    # b written first (its own header): a copy and a clear in place, as before
    ("hdr.b.v = hdr.b.v + 1; hdr.a = hdr.b; hdr.b.setInvalid();", "0a", ""),
    ("hdr.b.setInvalid(); hdr.b.v = 3; hdr.b.setValid();", "0503", "0303"),
    ("@unroll for (bit<8> i = 0; i < 2; i = i + 1) "
     "{ hdr.b.v = hdr.b.v + 2; hdr.a = hdr.b; hdr.b.setInvalid(); }", "", ""),
    ("@no_unroll for (bit<8> i = 0; i < 2; i = i + 1) "
     "{ hdr.b.setInvalid(); hdr.b.v = hdr.b.v + 2; hdr.b.setValid(); }", "0502", "0302"),
    ("hdr.b.v = 1; @no_unroll for (bit<8> i = 0; i < 2; i = i + 1) "
     "{ hdr.b.v = hdr.b.v + 2; hdr.b.setInvalid(); } hdr.b.setValid();", "0500", "0300"),
])
def test_set_invalid_stores_the_shared_zero_and_never_writes_it(
        ingress: str, with_b: str, without_b: str) -> None:
    """``setInvalid`` of a struct's header not claimed by code above stores the
    shared zero, and ``a = b; b.setInvalid();`` moves b's header into a: what is
    emitted is what copies and clears gave, later writes to the header get one of its
    own (in a loop too), and the shared zero stays zero and invalid."""
    from behavioral_model.program import load_program_text

    program = load_program_text(DECAP.replace("INGRESS", ingress), "decap.p4")
    device = program.new_device()
    eth = bytes(12)
    for kind, tail, expect in ((1, b"\x05\x09", with_b), (2, b"\x03", without_b),
                               (1, b"\x05\x09", with_b)):
        (out,) = device.process(eth + kind.to_bytes(2, "big") + tail, 0)
        assert out.data[14:].hex() == expect, ingress
    zero = program.compiled.values.class_for(
        program.compiled.headers_type.fields[1][1])._zero
    assert (zero.v, zero._valid) == (0, False)
