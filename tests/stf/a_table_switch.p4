/* a_table_switch: switch (t.apply().action_run) with one label per action, an empty
 * label falling through to the next, and a default label; action_run also names
 * the default action on a miss.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> x;
    bit<8> r;
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

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    action a1() {
        hdr.h.x = 1;
    }
    action a2(bit<8> v) {
        hdr.h.r = v;
    }
    action a3() {
        hdr.h.x = 3;
    }
    action a4() {
        hdr.h.x = 4;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { a1; a2; a3; a4; NoAction; }
        default_action = NoAction();
    }
    apply {
        switch (t.apply().action_run) {
            a1: {
                hdr.h.r = 0x01;
                std.egress_spec = 1;
            }
            a2: {
                hdr.h.r = hdr.h.r + 0x20;
                std.egress_spec = 2;
            }
            a3:
            NoAction: {
                hdr.h.r = 0x33;
                std.egress_spec = 3;
            }
            default: {
                hdr.h.r = 0x44;
                std.egress_spec = 4;
            }
        }
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
