/* I2E clone to a mirroring session that points at a multicast group: every copy of
 * the clone reaches egress, which records instance_type, egress_rid, egress_port.
 * The original is unicast to port 1.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  a;
    bit<8>  instance_type;
    bit<16> egress_rid;
    bit<16> egress_port;
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
        clone(CloneType.I2E, 9);
        hdr.p.a = 0xff;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.egress_rid = sm.egress_rid;
        hdr.p.egress_port = (bit<16>)sm.egress_port;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
