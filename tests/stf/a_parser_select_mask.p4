/* a_parser_select_mask: select with masked keysets (value &&& mask). Case order
 * decides between overlapping keysets. The parser state reached is recorded in
 * metadata and written into the header by ingress.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  kind;
    bit<16> sub;
    bit<8>  path;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<8> path;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            0x80 &&& 0x80: high;
            0x0A &&& 0x0F: low_a;
            default: check_sub;
        }
    }
    state high {
        meta.path = 1;
        transition accept;
    }
    state low_a {
        meta.path = 2;
        transition accept;
    }
    state check_sub {
        transition select(hdr.h.sub) {
            0x1200 &&& 0xFF00: sub12;
            0x0000 &&& 0x0000: other;
        }
    }
    state sub12 {
        meta.path = 3;
        transition accept;
    }
    state other {
        meta.path = 4;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        hdr.h.path = meta.path;
        std.egress_spec = (bit<9>)meta.path;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
