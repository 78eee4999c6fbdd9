/* a_ctrl_constructor_control: control instances given to other controls as
 * constructor arguments (spec 15.2, a parameter of a control type). One instance
 * (`one`) is shared: applied twice through `twice` and once through `sh`, it keeps one
 * counter. An instance built in the argument itself (`Shift(Inc(...), 1) anon`) is
 * declared by p4c ahead of its user under a fresh name (`tmp`).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> x;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control step_t(inout bit<16> v);

control Inc(inout bit<16> v)(bit<16> delta) {
    counter(4, CounterType.packets) hits;
    apply {
        v = v + delta;
        hits.count(0);
    }
}

control Twice(inout bit<16> v)(step_t s) {
    apply {
        s.apply(v);
        s.apply(v);
    }
}

control Shift(inout bit<16> v)(step_t s, bit<4> n) {
    apply {
        v = v << n;
        s.apply(v);
    }
}

control Top(inout bit<16> v) {
    Inc(1) one;
    Twice(one) twice;
    Shift(one, 2) sh;
    Shift(Inc(16w0x100), 1) anon;
    apply {
        twice.apply(v);
        sh.apply(v);
        anon.apply(v);
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    Top() top;
    apply {
        top.apply(hdr.h.x);
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
