/* a_parser_select_exact: select on exact values with a default case. Each parser
 * path extracts a different second header; ingress shows which one is valid.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> v;
}

header a_t {
    bit<16> x;
}

header b_t {
    bit<8> y;
}

struct headers_t {
    h_t h;
    a_t a;
    b_t b;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            1: parse_a;
            2: parse_b;
            0x81: parse_b;
            default: accept;
        }
    }
    state parse_a {
        pkt.extract(hdr.a);
        transition accept;
    }
    state parse_b {
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (hdr.a.isValid()) {
            hdr.a.x = hdr.a.x + 1;
            hdr.h.v = 1;
            std.egress_spec = 1;
        } else if (hdr.b.isValid()) {
            hdr.b.y = ~hdr.b.y;
            hdr.h.v = 2;
            std.egress_spec = 2;
        } else {
            hdr.h.v = 0x0F;
            std.egress_spec = 3;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
