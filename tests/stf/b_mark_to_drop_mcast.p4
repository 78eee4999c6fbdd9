/* mark_to_drop also clears mcast_grp, and the multicast check comes before the
 * egress_spec == 511 check at the end of ingress.
 *
 * op 1: mcast_grp = 1; mark_to_drop          -> dropped (mcast_grp is 0 again)
 * op 2: mark_to_drop; mcast_grp = 1          -> replicated to group 1
 * op 3: egress_spec = 4; mcast_grp = 1       -> replicated only (no unicast copy)
 * op 4: mark_to_drop; mcast_grp = 2 (empty)  -> nothing
 * else: egress_spec = 4
 */
#include <core.p4>
#include <v1model.p4>

header op_t {
    bit<8> op;
    bit<8> seq;
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
    apply {
        if (hdr.h.op == 1) {
            sm.mcast_grp = 1;
            mark_to_drop(sm);
        } else if (hdr.h.op == 2) {
            mark_to_drop(sm);
            sm.mcast_grp = 1;
        } else if (hdr.h.op == 3) {
            sm.egress_spec = 4;
            sm.mcast_grp = 1;
        } else if (hdr.h.op == 4) {
            mark_to_drop(sm);
            sm.mcast_grp = 2;
        } else {
            sm.egress_spec = 4;
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
