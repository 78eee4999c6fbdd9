/* a_expr_shortcircuit: && and || evaluate their right operand only when needed, and
 * ?: evaluates only the selected branch. The operands are calls of functions with
 * an inout argument, so an evaluation is visible as a side effect.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> cnt;
    bit<1> r1;
    bit<1> r2;
    bit<6> pad;
    bit<8> t;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

bool bump(inout bit<8> c) {
    c = c + 1;
    return true;
}

bool bump_false(inout bit<8> c) {
    c = c + 0x10;
    return false;
}

bit<8> add_k(inout bit<8> x, in bit<8> k) {
    x = x + k;
    return x;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        bit<8> c = 0;
        bool r1 = (hdr.h.a == 1) && bump(c);
        bool r2 = (hdr.h.a == 1) || bump_false(c);
        hdr.h.cnt = c;
        hdr.h.r1 = (bit<1>)r1;
        hdr.h.r2 = (bit<1>)r2;
        bit<8> d = 0;
        hdr.h.t = (hdr.h.a == 2) ? add_k(d, 5) : add_k(d, 7);
        hdr.h.d = d;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
