/* a_expr_wrap: unsigned bit<W> arithmetic is modulo 2^W: + - * and unary minus on
 * bit<8> and bit<4>, and a product computed at 16 bits after widening casts.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  sum;
    bit<8>  diff;
    bit<8>  prod;
    bit<8>  neg;
    bit<16> wprod;
    bit<4>  x;
    bit<4>  y;
    bit<4>  xs;
    bit<4>  xp;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

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
        hdr.h.sum = hdr.h.a + hdr.h.b;
        hdr.h.diff = hdr.h.a - hdr.h.b;
        hdr.h.prod = hdr.h.a * hdr.h.b;
        hdr.h.neg = -hdr.h.a;
        hdr.h.wprod = (bit<16>)hdr.h.a * (bit<16>)hdr.h.b;
        hdr.h.xs = hdr.h.x + hdr.h.y;
        hdr.h.xp = hdr.h.x * hdr.h.y;
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
