/* a_parser_lookahead: lookahead<bit<N>>() in a select and in an assignment, and
 * lookahead of a header type. Lookahead reads bits without moving the cursor; a
 * lookahead past the end of the packet raises error.PacketTooShort.
 */
#include <core.p4>
#include <v1model.p4>

header v4_t {
    bit<4> ver;
    bit<4> x;
    bit<8> y;
}

header v6_t {
    bit<4>  ver;
    bit<12> x;
    bit<16> y;
}

header other_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

header peek_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    v4_t    v4;
    v6_t    v6;
    other_t other;
}

struct metadata_t {
    bit<16> next16;
    bit<8>  first;
    bit<8>  second;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        transition select(pkt.lookahead<bit<4>>()) {
            4: parse_v4;
            6: parse_v6;
            default: parse_other;
        }
    }
    state parse_v4 {
        pkt.extract(hdr.v4);
        meta.next16 = pkt.lookahead<bit<16>>();
        transition accept;
    }
    state parse_v6 {
        pkt.extract(hdr.v6);
        transition accept;
    }
    state parse_other {
        peek_t p = pkt.lookahead<peek_t>();
        meta.first = p.a;
        meta.second = p.b;
        pkt.extract(hdr.other);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (hdr.v4.isValid()) {
            hdr.v4.y = meta.next16[15:8] ^ meta.next16[7:0];
            if (std.parser_error == error.PacketTooShort) {
                std.egress_spec = 4;
            } else {
                std.egress_spec = 1;
            }
        } else if (hdr.v6.isValid()) {
            hdr.v6.y = (bit<16>)hdr.v6.x + 1;
            std.egress_spec = 2;
        } else {
            hdr.other.c = meta.first + meta.second;
            std.egress_spec = 3;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.v4);
        pkt.emit(hdr.v6);
        pkt.emit(hdr.other);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
