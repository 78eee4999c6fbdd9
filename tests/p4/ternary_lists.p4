/* ternary_lists: a list in a branch of ?: takes the header type of the assignment
 * (p4c's issue2487.p4, issue3806.p4), and makes the header valid, as assigning the list
 * itself does (spec 8.12).
 */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> a; bit<16> b; }
header o_t { bit<8> v; }  // not in the packet: valid once assigned

struct headers_t { e_t e; o_t o; }
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
        hdr.o = hdr.e.a == 1 ? { 8w5 } : { 8w6 };
        hdr.e = hdr.e.a == 1 ? { 8w0x11, 16w0x2222 } : { 0x33, 0x4444 };
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.e);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
