/* Repeated resubmission: ingress resubmits while the preserved counter meta.n is
 * below the limit carried by the packet, adding 1 each time. Only the last pass's
 * changes to the packet survive (resubmit restarts from the original packet).
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  limit;
    bit<8>  n;
    bit<8>  instance_type;
    bit<8>  touched;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    @field_list(1)
    bit<8> n;
}

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
        hdr.p.n = meta.n;
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        if (meta.n < hdr.p.limit) {
            hdr.p.touched = 0xee;
            meta.n = meta.n + 1;
            resubmit_preserving_field_list(1);
        }
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
