/* recirculate_preserving_field_list. On its first egress pass a packet with op != 0
 * changes field a to 0x77, inserts a tag header after the probe, sets user metadata
 * and recirculates with field list 1. The parser extracts the tag when a == 0x77,
 * so on the second pass ingress sees the deparsed packet; it records
 * instance_type, the metadata and packet_length, bumps the tag and sends the
 * packet to port 2. First-pass packets are sent to port 1.
 *
 * op 1: recirculate
 * op 2: recirculate; mark_to_drop       (drop wins)
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  instance_type;
    bit<8>  x;
    bit<8>  lost;
    bit<32> packet_length;
}

header tag_t {
    bit<16> t;
}

struct headers_t {
    probe_t p;
    tag_t   tag;
}

struct meta_t {
    @field_list(1)
    bit<8> x;
    bit<8> lost;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.p);
        transition select(hdr.p.a) {
            0x77: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 4) {
            hdr.p.instance_type = (bit<8>)sm.instance_type;
            hdr.p.x = meta.x;
            hdr.p.lost = meta.lost;
            hdr.p.packet_length = sm.packet_length;
            if (hdr.tag.isValid()) {
                hdr.tag.t = hdr.tag.t + 1;
            }
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (hdr.p.op != 0 && meta.x == 0) {
            hdr.p.a = 0x77;
            hdr.tag.setValid();
            hdr.tag.t = 0x1000;
            meta.x = 0x5a;
            meta.lost = 0x66;
            recirculate_preserving_field_list(1);
            if (hdr.p.op == 2) {
                mark_to_drop(sm);
            }
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.p);
        pkt.emit(hdr.tag);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
