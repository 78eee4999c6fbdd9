/* a_expr_128bit: arithmetic on bit<128> (IPv6 addresses): +1 and -1 with carries
 * across 64-bit boundaries, a uSID-style shift (keep the top 32-bit block, shift
 * the rest left by 16), a prefix mask computed by shifting all-ones (shift amount
 * 128 gives 0) and a 128-bit product.
 */
#include <core.p4>
#include <v1model.p4>

const bit<128> BLOCK = 128w0xFFFFFFFF << 96;

header h_t {
    bit<8>   op;
    bit<8>   plen;
    bit<128> dst;
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
        bit<128> d = hdr.h.dst;
        if (hdr.h.op == 1) {
            hdr.h.dst = d + 1;
        } else if (hdr.h.op == 2) {
            hdr.h.dst = (d & BLOCK) | ((d << 16) & ~BLOCK);
        } else if (hdr.h.op == 3) {
            bit<128> mask = ~128w0 << (8w128 - hdr.h.plen);
            hdr.h.dst = d & mask;
        } else if (hdr.h.op == 4) {
            hdr.h.dst = d - 1;
        } else if (hdr.h.op == 5) {
            hdr.h.dst = d * 3;
        }
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
