// A table size given by an outer control's constructor parameter: the front end accepts it,
// bm's loader cannot bind it (tests/test_cli.py: one line, no internal error).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct headers { h_t h; }
struct meta {}
parser P(packet_in pk, out headers h, inout meta m, inout standard_metadata_t s) {
    state start { pk.extract(h.h); transition accept; }
}
control Inner(inout headers h)(bit<32> n) {
    table t { key = { h.h.f : exact; } actions = { NoAction; } size = n; }
    apply { t.apply(); }
}
control Ing(inout headers h, inout meta m, inout standard_metadata_t s)(bit<32> m2) {
    Inner(m2) inner;
    apply { inner.apply(h); }
}
control Eg(inout headers h, inout meta m, inout standard_metadata_t s) { apply {} }
control Vc(inout headers h, inout meta m) { apply {} }
control Cc(inout headers h, inout meta m) { apply {} }
control D(packet_out pk, in headers h) { apply { pk.emit(h.h); } }
V1Switch(P(), Vc(), Ing(64), Eg(), Cc(), D()) main;
