// expect: 34:13: entry label has 2 elements, the key has 3
// a const entry with two key values for a three-field key
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
}
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action nop() { }
    action set_m(bit<8> v) { meta.m = v; }
    table t {
        key = {
            hdr.h.a : exact;
            hdr.h.b : exact;
            meta.m  : exact;
        }
        actions = { nop; }
        const entries = {
            (1, 2) : nop();
        }
    }
    apply {
        t.apply();
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
