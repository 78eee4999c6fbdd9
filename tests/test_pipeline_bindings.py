"""Copy-in/copy-out (P4_16 spec 6.8) where the generated code binds a parameter to the
caller's variable itself (issue 17: ``aliasing.direct_bindings``), and the in-place
struct operations that replaced copies (``_clear``, one copy per assignment): what a
program computes must be what the spec's copies give, aliased arguments included."""

from __future__ import annotations

import pytest

from behavioral_model.program import load_program_text

PROGRAM = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<8> b; }
struct headers_t { eth_t eth; tag_t tag; tag_t spare; }
struct meta_t { bit<8> unused; }

control Bump(in bit<8> step, inout bit<8> v) { apply { v = v + step; } }
control Twice(inout bit<8> a, inout bit<8> b) { apply { a = a + 1; b = b + 10; } }
control InAndOut(in bit<8> a, inout bit<8> b) { apply { b = a + 1; b = b + a; } }
control Nested(inout bit<8> v) {
    Bump() inner;
    apply { inner.apply(2, v); inner.apply(v, v); }
}
bit<8> add_one(inout bit<8> v) { v = v + 1; return v; }
bit<8> add_both(in bit<8> a, inout bit<8> b) { b = b + a; return a; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.tag); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Bump() bump;
    Twice() twice;
    InAndOut() in_and_out;
    Nested() nested;
    apply {
        bit<8> x = hdr.eth.src[7:0];
        bump.apply(3, x);
        hdr.eth.dst[7:0] = x;
        bit<8> y = x;
        twice.apply(y, y);
        hdr.eth.dst[15:8] = y;
        bit<8> z = x;
        in_and_out.apply(z, z);
        hdr.eth.dst[23:16] = z;
        bit<8> w = x;
        bit<8> r = add_one(w);
        hdr.eth.dst[31:24] = w;
        hdr.eth.dst[39:32] = r;
        bit<8> u = x;
        bit<8> s = add_both(u, u);
        hdr.eth.dst[47:40] = u;
        hdr.eth.type[7:0] = s;
        bit<8> n = x;
        nested.apply(n);
        hdr.eth.type[15:8] = n;
        hdr.spare = hdr.tag;
        hdr.tag.setInvalid();
        hdr.tag.setValid();
        std.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); pkt.emit(hdr.spare); }
}
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


@pytest.mark.parametrize("x0", [0, 7, 200, 255])
def test_parameters_bound_to_caller_variables_keep_copy_in_copy_out(x0: int) -> None:
    device = load_program_text(PROGRAM, "bindings.p4").new_device()
    frame = bytes(6) + bytes(5) + bytes([x0]) + b"\x88\xb5" + bytes([0x11, 0x22])
    (out,) = device.process(frame, 0)
    x = (x0 + 3) & 0xFF  # bump: v += step
    w = (x + 1) & 0xFF  # add_one: v += 1, returns v
    n = (x + 2) & 0xFF  # nested: v += 2, then v += v (in and inout the same variable)
    n = (n + n) & 0xFF
    expected_dst = bytes([
        (x + x) & 0xFF,  # add_both(u, u): b = b + a, a the value copied in
        w,  # add_one's return value
        w,  # add_one's inout
        (2 * x + 1) & 0xFF,  # in_and_out(z, z): b = a + 1; b = b + a (a is a copy)
        (x + 10) & 0xFF,  # twice(y, y): copied out left to right, the last one wins
        x,
    ])
    assert out.data[0:6] == expected_dst
    assert out.data[12:14] == bytes([n, x])  # type: nested's n, add_both's return
    # tag: setInvalid then setValid zeroes its fields; spare kept the copy taken before
    assert out.data[14:18] == bytes([0, 0, 0x11, 0x22])


SHARED = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<8> b; }
struct inner_t { tag_t t; }
struct headers_t { eth_t eth; tag_t never; tag_t made; inner_t inner; }
struct meta_t { tag_t scratch; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control Touch(inout tag_t t) { apply { t.b = t.b + 2; } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Touch() touch;
    apply {
        // writes into headers no packet ever makes valid: each packet must start from
        // zero again, whatever the packet before it wrote
        hdr.never.a = hdr.never.a + 1;
        meta.scratch.b = meta.scratch.b + 3;
        hdr.inner.t.a = hdr.inner.t.a + 4;
        touch.apply(hdr.inner.t);
        headers_t copy = hdr;
        copy.never.b = 9;
        hdr.made = hdr.never;
        hdr.made.setValid();
        hdr.eth.type = hdr.never.a ++ meta.scratch.b;
        hdr.eth.src[15:0] = hdr.inner.t.a ++ hdr.inner.t.b;
        std.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.made); }
}
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


def _all_zero(header: object) -> bool:
    return all(not getattr(header, slot) for slot in type(header).__slots__)


def test_headers_of_structs_start_at_zero_in_every_packet() -> None:
    """A struct's header starts as its type's shared zero (values.py); writes into it,
    also through a copy of the struct or a control's parameter, go to a header of the
    struct's own, never into the zero the next packet starts from."""
    program = load_program_text(SHARED, "shared.p4")
    device = program.new_device()
    frame = bytes(14)
    for _ in range(3):
        (out,) = device.process(frame, 0)
        assert out.data[10:14] == bytes([4, 2, 1, 3])  # src[15:0], type: one write each
        assert out.data[14:16] == bytes([1, 0])  # made: a copy of never, then valid
    for cls in program.compiled.values.classes().values():
        zero = getattr(cls, "_zero", None)
        if zero is not None:
            assert _all_zero(zero), f"{cls.p4_type.name}'s shared zero was written"


def test_owned_gives_a_struct_its_own_header() -> None:
    from behavioral_model.pipeline.values import owned

    program = load_program_text(SHARED, "shared.p4")
    headers = program.compiled.values.class_for(program.compiled.headers_type)
    a, b = headers(), headers()
    assert a.never is b.never  # both the shared zero
    own = owned(a, "never")
    own.a = 7
    assert a.never is own and b.never.a == 0 and owned(a, "never") is own


FIELDS = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct sub_t { bit<8> a; bit<8> b; }
struct meta_t { bit<8> step; bit<8> v; bit<8> y; bit<8> z; bit<8> w; sub_t sub; }

control Bump(in bit<8> step, inout bit<8> v) { apply { v = v + step; } }
control Twice(inout bit<8> a, inout bit<8> b) { apply { a = a + 1; b = b + 10; } }
control InAndOut(in bit<8> a, inout bit<8> b) { apply { b = a + 1; b = b + a; } }
control FieldAndWhole(in bit<8> a, inout meta_t m) { apply { m.w = 5; m.w = m.w + a; } }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Bump() bump;
    Twice() twice;
    InAndOut() in_and_out;
    FieldAndWhole() field_and_whole;
    apply {
        bit<8> x = hdr.eth.src[7:0];
        meta.step = 3;
        meta.v = x;
        bump.apply(meta.step, meta.v);
        meta.y = x;
        twice.apply(meta.y, meta.y);
        meta.z = x;
        in_and_out.apply(meta.z, meta.z);
        meta.sub.a = x;
        meta.sub.b = 1;
        in_and_out.apply(meta.sub.a, meta.sub.b);
        meta.w = x;
        field_and_whole.apply(meta.w, meta);
        hdr.eth.dst = meta.v ++ meta.y ++ meta.z ++ meta.sub.a ++ meta.sub.b ++ meta.w;
        std.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


@pytest.mark.parametrize("x0", [0, 7, 200, 255])
def test_parameters_bound_to_struct_fields_keep_copy_in_copy_out(x0: int) -> None:
    """A scalar field of a struct passed to a control is the parameter itself
    (``aliasing.direct_field``) only where no other argument overlaps it: the same
    field twice, or the field and its whole struct, are still copied."""
    device = load_program_text(FIELDS, "fields.p4").new_device()
    frame = bytes(11) + bytes([x0]) + b"\x88\xb5"
    (out,) = device.process(frame, 0)
    assert out.data[0:6] == bytes([
        (x0 + 3) & 0xFF,  # bump(meta.step, meta.v)
        (x0 + 10) & 0xFF,  # twice(y, y): copied out left to right, the last one wins
        (2 * x0 + 1) & 0xFF,  # in_and_out(z, z): a is the value copied in
        x0,  # in_and_out(sub.a, sub.b): a untouched...
        (2 * x0 + 1) & 0xFF,  # ...b = a + 1 + a
        (5 + x0) & 0xFF,  # field_and_whole(w, meta): a is w as it was before the call
    ])


STACKS = r"""
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header seg_t { bit<8> v; }
struct headers_t { eth_t eth; seg_t[3] parsed; seg_t[3] pushed; seg_t[3] indexed;
                   seg_t[3] assigned; seg_t[3] never; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 1: seg; default: accept; }
    }
    state seg { pkt.extract(hdr.parsed.next); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control Touch(inout seg_t s) { apply { s.v = s.v + 1; } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Touch() touch;
    apply {
        bit<8> i = hdr.eth.src[7:0];
        hdr.pushed.push_front(1);
        hdr.pushed[0].setValid();
        hdr.pushed[0].v = 7;
        hdr.indexed[i].v = hdr.indexed[i].v + 5;  // a run-time index
        hdr.indexed[i].setValid();
        touch.apply(hdr.assigned[1]);
        headers_t copy = hdr;
        copy.never[0].setValid();
        copy.never[0].v = 9;
        hdr.assigned = copy.never;
        hdr.never[2].setInvalid();
        std.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}
V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
"""


@pytest.mark.parametrize("seg", [False, True])
def test_stacks_of_structs_start_at_zero_in_every_packet(seg: bool) -> None:
    """A struct's header stack starts as its type's shared zero stack (values.py):
    extract, push_front, a run-time index, binding by reference and assignment each
    write into a stack of the struct's own, never into the zero the next packet
    starts from."""
    program = load_program_text(STACKS, "stacks.p4")
    device = program.new_device()
    for i in (1, 2, 1):
        frame = bytes(11) + bytes([i]) + (b"\x00\x01\x2a" if seg else b"\x00\x02")
        (out,) = device.process(frame, 0)
        body = out.data[14:]
        parsed = b"\x2a" if seg else b""
        # pushed[0] = 7; indexed[i] = 5; assigned = copy.never (only [0] valid, 9)
        assert body == parsed + b"\x07" + b"\x05" + b"\x09", (i, body)
    zero_stacks = program.compiled.values._zero_stacks.values()
    assert zero_stacks
    for stack in zero_stacks:
        assert stack.next_index == 0 and all(_all_zero(e) for e in stack.elems)
