// expect: 28: type mismatch: expected Kind, got Other
// the mask of a serializable-enum key's entry is a member of another enum type
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { A = 0x12, B = 0x34 }
enum bit<8> Other { X = 0x0F }

header h_t {
    Kind   k;
    bit<8> r;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.r = v; }
    table t {
        key = { hdr.h.k : ternary; }
        actions = { set; }
        const entries = { Kind.A &&& Other.X : set(1); }
    }
    apply { t.apply(); }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
