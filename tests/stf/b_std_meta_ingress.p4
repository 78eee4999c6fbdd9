/* standard_metadata seen by ingress: ingress_port, packet_length, instance_type are
 * copied into the probe header, which leaves on port 1.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<16> ingress_port;
    bit<32> packet_length;
    bit<32> instance_type;
    bit<16> egress_spec;    // egress_spec as ingress first sees it
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
        hdr.p.ingress_port = (bit<16>)sm.ingress_port;
        hdr.p.packet_length = sm.packet_length;
        hdr.p.instance_type = sm.instance_type;
        hdr.p.egress_spec = (bit<16>)sm.egress_spec;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
