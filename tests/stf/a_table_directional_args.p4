/* a_table_directional_args: actions with directional (inout/in/out) parameters bound
 * in the table's actions list, plus directionless parameters supplied by the control
 * plane (or by default_action).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> x;
    bit<8> y;
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
    action add_to(inout bit<8> dst, bit<8> v) {
        dst = dst + v;
    }
    action set_sum(out bit<8> o, in bit<8> i, bit<8> v) {
        o = i + v;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = {
            add_to(hdr.h.x);
            set_sum(hdr.h.y, hdr.h.x);
        }
        default_action = add_to(hdr.h.x, 1);
    }
    apply {
        t.apply();
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
