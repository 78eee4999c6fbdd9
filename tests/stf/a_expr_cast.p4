/* a_expr_cast: explicit casts: bit<8> -> bit<4> (truncate), bit<4> -> bit<8>
 * (zero-extend), int<4> -> int<8> (sign-extend), int<8> -> int<16> -> bit<16>,
 * bit<16> -> bit<8>, bool <-> bit<1>, bit<8> -> int<8> (reinterpret).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<4>  t4;
    bit<4>  pad;
    bit<4>  n;
    int<4>  sn;
    bit<8>  z8;
    bit<8>  se8;
    int<8>  s;
    bit<16> sw16;
    bit<16> w;
    bit<8>  tr8;
    bit<1>  b1;
    bit<1>  bb;
    bit<6>  rsv;
    bit<8>  ashr;
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
        hdr.h.t4 = (bit<4>)hdr.h.a;
        hdr.h.z8 = (bit<8>)hdr.h.n;
        hdr.h.se8 = (bit<8>)(int<8>)hdr.h.sn;
        hdr.h.sw16 = (bit<16>)(int<16>)hdr.h.s;
        hdr.h.tr8 = (bit<8>)hdr.h.w;
        hdr.h.b1 = (bit<1>)(hdr.h.a > 8w0x10);
        hdr.h.bb = (bit<1>)(!(bool)hdr.h.bb);
        hdr.h.ashr = (bit<8>)((int<8>)hdr.h.a >> 1);
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
