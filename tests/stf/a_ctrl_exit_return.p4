/* a_ctrl_exit_return: exit inside an action (called directly and as a table's default
 * action) or inside a nested control ends the ingress control; the packet still goes
 * through egress. return in a nested control's apply block ends only that control,
 * return in an action only that action; the caller continues.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> s1;
    bit<8> s2;
    bit<8> m1;
    bit<8> m2;
    bit<8> m3;
    bit<8> eg;
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

control Sub(inout h_t h) {
    apply {
        h.s1 = 1;
        if (h.op == 2) {
            return;
        }
        if (h.op == 5) {
            exit;
        }
        h.s2 = 1;
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    Sub() sub;

    action stop() {
        hdr.h.m1 = 0xA1;
        std.egress_spec = 2;
        exit;
    }

    action half() {
        hdr.h.m1 = 0x61;
        if (hdr.h.op == 6) {
            return;
        }
        hdr.h.m1 = 0x62;
    }

    table t {
        actions = { stop; }
        default_action = stop();
    }

    apply {
        std.egress_spec = 1;
        sub.apply(hdr.h);
        if (hdr.h.op == 1) {
            stop();
        } else if (hdr.h.op == 4) {
            t.apply();
        } else if (hdr.h.op == 6 || hdr.h.op == 7) {
            half();
        }
        hdr.h.m2 = 0xB2;
        if (hdr.h.op == 3) {
            return;
        }
        hdr.h.m3 = 0xC3;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    apply {
        hdr.h.eg = 0xE0;
    }
}

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
