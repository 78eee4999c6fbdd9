/* a_expr_slice_concat: bit slices as r-values (x[hi:lo]), slice assignment (only
 * the sliced bits change), and concatenation ++ (the left operand supplies the high
 * bits; the width is the sum).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> x;
    bit<8>  hi;
    bit<8>  mid;
    bit<4>  nib;
    bit<4>  pad;
    bit<16> cat;
    bit<16> y;
    bit<32> cc;
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
        hdr.h.hi = hdr.h.x[15:8];
        hdr.h.mid = hdr.h.x[11:4];
        hdr.h.nib = hdr.h.x[3:0];
        hdr.h.cat = hdr.h.x[7:0] ++ hdr.h.x[15:8];
        hdr.h.y[11:4] = hdr.h.hi;
        hdr.h.y[0:0] = 1w1;
        hdr.h.cc = hdr.h.nib ++ hdr.h.x[15:4] ++ 16w0xBEEF;
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
