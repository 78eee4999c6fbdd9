/* standard_metadata.priority: read in ingress (before and after ingress writes
 * it) and in egress. Ingress sets it back to 0 before the end so that the packet
 * uses the default single queue of simple_switch.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8> prio_in;      // priority as ingress first sees it
    bit<8> prio_set;     // after ingress assigns the value from the packet
    bit<8> prio_egress;  // priority seen in egress
    bit<8> value;        // the value to assign
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
        hdr.p.prio_in = (bit<8>)sm.priority;
        sm.priority = (bit<3>)hdr.p.value;
        hdr.p.prio_set = (bit<8>)sm.priority;
        sm.priority = 0;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.prio_egress = (bit<8>)sm.priority;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
