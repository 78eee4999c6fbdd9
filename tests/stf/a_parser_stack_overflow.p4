/* a_parser_stack_overflow: extract(hs.next) on a full stack raises
 * error.StackOutOfBounds. Ingress observes the error through parser_error.
 */
#include <core.p4>
#include <v1model.p4>

header hd_t {
    bit<8> code;
}

header item_t {
    bit<7> v;
    bit<1> bos;
}

struct headers_t {
    hd_t      hd;
    item_t[2] items;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.hd);
        transition parse_item;
    }
    state parse_item {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.bos) {
            0: parse_item;
            1: accept;
        }
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (std.parser_error == error.NoError) {
            hdr.hd.code = 0;
            std.egress_spec = 1;
        } else if (std.parser_error == error.StackOutOfBounds) {
            hdr.hd.code = 0x5B;
            std.egress_spec = 2;
        } else if (std.parser_error == error.PacketTooShort) {
            hdr.hd.code = 0x57;
            std.egress_spec = 3;
        } else {
            hdr.hd.code = 0xFF;
            std.egress_spec = 4;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.hd);
        pkt.emit(hdr.items);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
