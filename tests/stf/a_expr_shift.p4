/* a_expr_shift: << and >> on bit<8>, int<8> and bit<16>, with a run-time shift
 * amount (including amounts >= the width) and with constant amounts. >> on int<W> is
 * arithmetic (sign-extending).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  x;
    bit<8>  n;
    bit<8>  shl;
    bit<8>  shr;
    int<8>  s;
    int<8>  sshr;
    int<8>  sshl;
    bit<16> w;
    bit<16> wshl;
    bit<16> wshr;
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
        hdr.h.shl = hdr.h.x << hdr.h.n;
        hdr.h.shr = hdr.h.x >> hdr.h.n;
        hdr.h.sshr = hdr.h.s >> hdr.h.n;
        hdr.h.sshl = hdr.h.s << hdr.h.n;
        hdr.h.wshl = hdr.h.w << 4;
        hdr.h.wshr = hdr.h.w >> hdr.h.n;
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
