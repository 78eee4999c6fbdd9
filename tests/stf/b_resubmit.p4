/* resubmit_preserving_field_list. On its first pass (instance_type 0) ingress
 * changes field a, sets user metadata, picks an output and resubmits with field
 * list 1; on the second pass it records what it sees and sends the packet to port 2.
 *
 * op 1: resubmit
 * op 2: resubmit; mark_to_drop       (resubmit wins over drop)
 * op 3: resubmit; mcast_grp = 1      (resubmit wins over multicast)
 * else: no resubmit, first pass goes to port 3
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  instance_type;
    bit<8>  count;
    bit<8>  lost;
    bit<16> egress_spec;
    bit<32> packet_length;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    @field_list(1)
    bit<8> count;
    bit<8> lost;
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
        if (sm.instance_type == 0) {
            hdr.p.a = 0xff;
            meta.count = 0x42;
            meta.lost = 0x99;
            sm.egress_spec = 3;
            if (hdr.p.op == 1) {
                resubmit_preserving_field_list(1);
            } else if (hdr.p.op == 2) {
                resubmit_preserving_field_list(1);
                mark_to_drop(sm);
            } else if (hdr.p.op == 3) {
                resubmit_preserving_field_list(1);
                sm.mcast_grp = 1;
            }
        } else {
            hdr.p.instance_type = (bit<8>)sm.instance_type;
            hdr.p.count = meta.count;
            hdr.p.lost = meta.lost;
            hdr.p.egress_spec = (bit<16>)sm.egress_spec;
            hdr.p.packet_length = sm.packet_length;
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
