// expect: 24:21: extract needs a header, got u_t
// extracts into a whole header union instead of one of its members
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> a; }
header b_t { bit<16> b; }
header_union u_t {
    a_t a;
    b_t b;
}
struct headers_t {
    u_t[2] s;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        transition parse_u;
    }
    state parse_u {
        // p4c: extract's argument must be a header
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
