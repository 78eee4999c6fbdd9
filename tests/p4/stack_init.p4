/* stack_init: a header stack built from a list (spec 8.18; p4c's stack-init.p4,
 * header-stack-cast-init.p4): each element from a header value, a list made a valid
 * header, or the invalid header {#}.
 */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> a; bit<8> b; }
header s_t { bit<8> x; bit<8> y; }

struct headers_t { e_t e; s_t[3] s; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.e);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        s_t first = { hdr.e.a, hdr.e.b };
        if (hdr.e.a == 1) {
            hdr.s = (s_t[3]){ first, { 8w2, 8w3 }, (s_t){#} };
        } else {
            s_t[3] local = { (s_t){#}, first, { hdr.e.b, hdr.e.a } };
            hdr.s = local;
        }
        first.x = 0xFF;  // the stack holds copies
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.e);
        pkt.emit(hdr.s);  // only the valid elements
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
