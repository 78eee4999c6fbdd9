/* a_expr_literal_truncation: integer constants that do not fit the width they are
 * given. p4c accepts them with a warning ("value does not fit in 8 bits", "negative
 * value with unsigned type", "signed value does not fit") and truncates: an untyped
 * operand converted to its partner's width, an untyped expression folded first in
 * arbitrary precision and converted once, a width-typed literal (8w300), an explicit
 * cast of a constant, table entries and select labels wider than their key.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> sum;
    bit<8> half;
    bit<8> typed;
    bit<8> cast;
    bit<8> neg;
    bit<8> signed8;
    bit<8> entry;
    bit<8> label;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            0x1AB: is_ab;
            default: accept;
        }
    }
    state is_ab {
        hdr.h.label = 1;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.h.entry = v; }
    table t {
        key = { hdr.h.a : exact; }
        actions = { set; }
        const entries = {
            0x1FF : set(0x1EE);
        }
        default_action = set(0);
    }
    apply {
        hdr.h.sum = hdr.h.a + 300;
        hdr.h.half = 300 / 2;
        hdr.h.typed = 8w300;
        hdr.h.cast = (bit<8>) 0x1234;
        hdr.h.neg = -1;
        int<8> s = 200;
        hdr.h.signed8 = (bit<8>) s;
        t.apply();
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
