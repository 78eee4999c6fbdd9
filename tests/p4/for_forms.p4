/* for_forms: the loop forms of P4_16 1.2.5 that p4c's forloop*.p4 use: `@unroll`/`@no_unroll`
 * before `for` (p4c's hints; bm runs the loop as written), a for-in over a header stack
 * (each element in turn, as a copy: writing the loop variable leaves the stack as it was),
 * and a C-style loop declaring two variables and updating both. The struct field `s_t s_t`
 * is named like its type and hides nothing: the next field still names the type
 * (p4c's forloop12.p4).
 */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> n; bit<8> sum; bit<8> bits; }
header s_t { bit<8> x; }

struct headers_t { e_t e; s_t s_t; s_t[2] s; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.e);
        pkt.extract(hdr.s_t);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        @unroll
        for (s_t v in hdr.s) {
            hdr.e.sum = hdr.e.sum + v.x;
            v.x = 0;
        }
        hdr.e.sum = hdr.e.sum + hdr.s_t.x;
        @no_unroll
        for (bit<8> i = 0, bit<8> b = 1; i < hdr.e.n; i = i + 1, b = b << 1) {
            hdr.e.bits = hdr.e.bits | b;
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.e);
        pkt.emit(hdr.s_t);
        pkt.emit(hdr.s);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
