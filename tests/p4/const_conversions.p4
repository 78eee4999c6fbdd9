/* const_conversions: p4c's rules for known values (issue3287.p4, shift-int-const.p4,
 * issue3699.p4): a signed shift amount that is known and not negative; an untyped
 * integer shifted by a known bit<W> amount; `?:` over untyped integers with a known condition.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  i;
    bit<32> d;
    bit<8>  run;    // i << two
    bit<8>  known;  // (a << one) + (max == 0xf ? 1 : 2) = 10 + 1
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
        const int<6> two = 2;
        const int a = 5;
        const bit<4> one = 1;
        const bit<4> max = 0xf;
        hdr.h.run = hdr.h.i << two;
        hdr.h.known = (bit<8>)(a << one) + (bit<8>)(max == 0xf ? 1 : 2);
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
