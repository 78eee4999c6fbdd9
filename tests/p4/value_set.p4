// A parser value_set (spec 12.11): ether types added by the control plane select the
// "tagged" state; everything else is accepted untagged.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<16> etype; }
header tag_t { bit<8> v; }
struct H { eth_t eth; tag_t tag; }
struct M { }
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) {
    value_set<bit<16>>(4) tagged_types;
    state start {
        p.extract(h.eth);
        transition select(h.eth.etype) {
            tagged_types: tagged;
            default: accept;
        }
    }
    state tagged { p.extract(h.tag); transition accept; }
}
control V(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    apply {
        s.egress_spec = 1;
        if (h.tag.isValid()) { h.tag.v = h.tag.v + 1; }
    }
}
control E(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control C(inout H h, inout M m) { apply {} }
control D(packet_out p, in H h) { apply { p.emit(h.eth); p.emit(h.tag); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
