/* a_expr_saturating: saturating |+| and |-| on bit<8> (clamp to 0..255) and int<8>
 * (clamp to -128..127).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> ua;
    bit<8> ub;
    bit<8> uadd;
    bit<8> usub;
    int<8> sa;
    int<8> sb;
    int<8> sadd;
    int<8> ssub;
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
        hdr.h.uadd = hdr.h.ua |+| hdr.h.ub;
        hdr.h.usub = hdr.h.ua |-| hdr.h.ub;
        hdr.h.sadd = hdr.h.sa |+| hdr.h.sb;
        hdr.h.ssub = hdr.h.sa |-| hdr.h.sb;
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
