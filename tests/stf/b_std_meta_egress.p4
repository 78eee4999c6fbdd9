/* standard_metadata seen by egress for a unicast packet: egress_port, egress_rid,
 * instance_type, packet_length. Ingress picks the output port from the packet.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<16> out_port;       // set by the sender: where ingress sends the packet
    bit<16> egress_port;
    bit<16> egress_rid;
    bit<32> instance_type;
    bit<32> packet_length;
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
        sm.egress_spec = (bit<9>)hdr.p.out_port;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.egress_port = (bit<16>)sm.egress_port;
        hdr.p.egress_rid = sm.egress_rid;
        hdr.p.instance_type = sm.instance_type;
        hdr.p.packet_length = sm.packet_length;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
