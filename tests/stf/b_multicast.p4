/* Multicast: ingress copies the group number from the packet into mcast_grp (and
 * also sets egress_spec, which multicast must ignore); egress records each copy's
 * egress_port, egress_rid and instance_type in the probe header.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<16> grp;
    bit<16> egress_port;
    bit<16> egress_rid;
    bit<32> instance_type;
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
        sm.egress_spec = 9;
        sm.mcast_grp = hdr.p.grp;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.egress_port = (bit<16>)sm.egress_port;
        hdr.p.egress_rid = sm.egress_rid;
        hdr.p.instance_type = sm.instance_type;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
