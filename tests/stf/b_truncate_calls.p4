/* truncate(length) called from ingress, and several calls in any order. BMv2 keeps
 * one truncation length per packet, the smallest ever requested, and applies it
 * when the packet is transmitted.
 *
 * ingress, op 1: truncate(8)
 * egress,  op 2: truncate(4); truncate(10)
 * ingress, op 3: truncate(6), and egress: truncate(12)
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  mark;
    bit<16> data;
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
        sm.egress_spec = 1;
        if (hdr.p.op == 1) {
            truncate(8);
        } else if (hdr.p.op == 3) {
            truncate(6);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.mark = 0xee;
        if (hdr.p.op == 2) {
            truncate(4);
            truncate(10);
        } else if (hdr.p.op == 3) {
            truncate(12);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
