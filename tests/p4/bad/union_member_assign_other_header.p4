// expect: 28:19: type mismatch
// assigns a header of another type to a header-union member
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> a; }
header b_t { bit<16> b; }
header c_t { bit<8> c; }
header_union u_t {
    a_t a;
    b_t b;
}
struct headers_t {
    c_t c;
    u_t u;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.c); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.u.a = hdr.c;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
