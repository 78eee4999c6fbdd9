/* mark_to_drop(standard_metadata) only assigns the drop port (511) to egress_spec
 * (and 0 to mcast_grp); the drop decision is taken at the end of ingress, so a later
 * assignment to egress_spec undoes it.
 *
 * op 0: forward to port 2
 * op 1: mark_to_drop                          -> dropped
 * op 2: mark_to_drop; egress_spec = 3         -> port 3
 * op 3: egress_spec = 3; mark_to_drop         -> dropped
 * op 4: table action calls mark_to_drop, then egress_spec = 4 if tag == 0xee
 */
#include <core.p4>
#include <v1model.p4>

header op_t {
    bit<8> op;
    bit<8> tag;
}

struct headers_t {
    op_t h;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action drop_it() {
        mark_to_drop(sm);
    }
    table by_op {
        key = { hdr.h.op : exact; }
        actions = { drop_it; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 2;
        if (hdr.h.op == 1) {
            mark_to_drop(sm);
        } else if (hdr.h.op == 2) {
            mark_to_drop(sm);
            sm.egress_spec = 3;
        } else if (hdr.h.op == 3) {
            sm.egress_spec = 3;
            mark_to_drop(sm);
        } else if (hdr.h.op == 4) {
            by_op.apply();
            if (hdr.h.tag == 0xee) {
                sm.egress_spec = 4;
            }
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
