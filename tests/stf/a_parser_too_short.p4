/* a_parser_too_short: extract past the end of the packet raises
 * error.PacketTooShort. With v1model the packet continues into ingress; headers
 * extracted before stay valid, the failing one is invalid, and the bytes left
 * unparsed are payload.
 */
#include <core.p4>
#include <v1model.p4>

header h1_t {
    bit<16> a;
    bit<8>  code;
    bit<8>  valid_mask;
}

header h2_t {
    bit<32> b;
}

struct headers_t {
    h1_t h1;
    h2_t h2;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h1);
        pkt.extract(hdr.h2);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (std.parser_error == error.NoError) {
            hdr.h1.code = 0;
            std.egress_spec = 1;
        } else if (std.parser_error == error.PacketTooShort) {
            hdr.h1.code = 0xEE;
            std.egress_spec = 2;
        } else {
            hdr.h1.code = 0xFF;
            std.egress_spec = 3;
        }
        bit<8> m = 0;
        if (hdr.h1.isValid()) {
            m = m | 1;
        }
        if (hdr.h2.isValid()) {
            m = m | 2;
        }
        hdr.h1.valid_mask = m;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h1);
        pkt.emit(hdr.h2);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
