/* a_parser_extract: extract of fixed headers, including fields that are not
 * byte-aligned (3 + 5 + 12 + 4 + 8 bits), their modification, and emit. Bytes
 * that the parser did not extract are payload and follow the emitted headers.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header odd_t {
    bit<3>  a;
    bit<5>  b;
    bit<12> c;
    bit<4>  d;
    bit<8>  e;
}

struct headers_t {
    eth_t eth;
    odd_t odd;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x1234: parse_odd;
            default: accept;
        }
    }
    state parse_odd {
        pkt.extract(hdr.odd);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        bit<48> tmp = hdr.eth.dst;
        hdr.eth.dst = hdr.eth.src;
        hdr.eth.src = tmp;
        if (hdr.odd.isValid()) {
            hdr.odd.a = hdr.odd.a + 1;
            hdr.odd.c = hdr.odd.c ^ 12w0xFFF;
            std.egress_spec = 2;
        } else {
            std.egress_spec = 3;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.odd);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
