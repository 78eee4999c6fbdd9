// a_ctrl_direct_invocation: a control applied by its type name (spec 15.1).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { }
control Inc(inout bit<8> x) {
    action bump() { x = x + 1; }
    table t { actions = { bump; } default_action = bump(); }
    apply { t.apply(); }
}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) {
    state start { p.extract(h.h); transition accept; }
}
control V(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    apply { Inc.apply(h.h.a); s.egress_spec = 1; }
}
control E(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control C(inout H h, inout M m) { apply {} }
control D(packet_out p, in H h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
