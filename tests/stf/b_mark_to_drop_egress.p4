/* mark_to_drop in egress. In egress, simple_switch drops the packet when
 * egress_spec == 511 at the end of the egress control; assigning egress_spec in
 * egress does not change the output port (egress_port is fixed by ingress).
 *
 * Ingress sends every packet to port 2.
 * egress, op 1: mark_to_drop                 -> dropped
 * egress, op 2: egress_spec = 5              -> still leaves on port 2
 * egress, op 3: mark_to_drop; egress_spec = 5 -> not dropped, port 2
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
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (hdr.h.op == 1) {
            mark_to_drop(sm);
        } else if (hdr.h.op == 2) {
            sm.egress_spec = 5;
        } else if (hdr.h.op == 3) {
            mark_to_drop(sm);
            sm.egress_spec = 5;
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
