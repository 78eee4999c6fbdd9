/* A multicast packet that is also cloned: ingress sets mcast_grp 1 and clones I2E
 * to session 4; in egress, the replica on port 3 is cloned E2E to session 7.
 * Egress records instance_type, egress_rid and egress_port; field mark is written
 * only by the pass that makes the E2E clone.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  instance_type;
    bit<8>  egress_rid;
    bit<8>  egress_port;
    bit<8>  mark;
}

struct headers_t {
    probe_t p;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.p);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.mcast_grp = 1;
        clone(CloneType.I2E, 4);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.egress_rid = (bit<8>)sm.egress_rid;
        hdr.p.egress_port = (bit<8>)sm.egress_port;
        if (sm.instance_type == 5 && sm.egress_port == 3) {
            hdr.p.mark = 0x33;
            clone(CloneType.E2E, 7);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
