// expect: 23: multiple varbit fields
// a header with two varbit fields, extracted (p4c reports it when the header is
// extracted and shows both fields; bm points at the extract)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
}
header v_t {
    bit<8> len;
    varbit<64> opt1;
    varbit<64> opt2;
}
struct headers_t { h_t h; v_t v; }
struct meta_t { bit<8> m; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.v, 32w16);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
