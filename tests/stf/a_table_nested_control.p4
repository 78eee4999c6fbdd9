/* a_table_nested_control: a control with a table, instantiated twice inside ingress;
 * each instance has its own table (MyIngress.inst1.t, MyIngress.inst2.t) with its
 * own entries, and its own actions.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> tag;
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

control Stage(inout bit<8> val, inout bit<8> tag) {
    action set(bit<8> v) {
        val = v;
    }
    action mark(bit<8> t) {
        tag = tag | t;
    }
    table t {
        key = { val : exact; }
        actions = { set; mark; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    Stage() inst1;
    Stage() inst2;
    apply {
        inst1.apply(hdr.h.a, hdr.h.tag);
        inst2.apply(hdr.h.b, hdr.h.tag);
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
