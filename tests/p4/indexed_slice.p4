/* indexed_slice: `x[lo +: w]` (P4_16 spec 8.6), `w` bits of `x` from bit `lo` up.
 * A compile-time `lo` is a plain slice (`d[8 +: 4]` is `d[11:8]`); a run-time `lo`
 * (`d[h.i +: 8]`) shifts `d` right by `lo` and keeps `w` bits.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  i;
    bit<32> d;
    bit<8>  run;    // d[i +: 8]
    bit<8>  known;  // d[8 +: 4], zero-extended
}

struct headers_t { h_t h; }
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
        hdr.h.run = hdr.h.d[hdr.h.i +: 8];
        hdr.h.known = (bit<8>)hdr.h.d[8 +: 4];
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
