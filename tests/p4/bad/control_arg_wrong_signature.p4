// expect: 18: parameter 'v' of Other has type bit<8>, expected bit<16>
// a control instance given for a constructor parameter of a control type it does not match
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> x; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control step_t(inout bit<16> v);
control Other(inout bit<8> v) { apply { v = v + 1; } }
control Twice(inout bit<16> v)(step_t s) { apply { s.apply(v); s.apply(v); } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Other() o;
    Twice(o) t;
    apply { t.apply(hdr.h.x); }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
