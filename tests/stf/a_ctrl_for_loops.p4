// a_ctrl_for_loops: for loops (P4_16 1.2.5): C-style with two variables, for-in over a
// range, continue, break, and return from inside a loop in an action.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct H { h_t h; }
struct M { }
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) {
    state start { p.extract(h.h); transition accept; }
}
control V(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    action sum_to(in bit<8> n) {
        for (bit<8> i = 1; i <= n; i = i + 1) {
            if (i == 5) { continue; }
            h.h.b = h.h.b + i;
            if (h.h.b > 100) { return; }
        }
    }
    apply {
        for (bit<8> i = 0, bit<8> j = 2; i < 3; i = i + 1, j = j + 1) {
            h.h.a = h.h.a + j;
            if (h.h.a == 0xff) { break; }
        }
        for (bit<8> k in 1 .. 3) { h.h.a = h.h.a + k; }
        sum_to(h.h.b);
        s.egress_spec = 1;
    }
}
control E(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control C(inout H h, inout M m) { apply {} }
control D(packet_out p, in H h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
