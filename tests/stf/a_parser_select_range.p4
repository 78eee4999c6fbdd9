/* a_parser_select_range: select with range keysets (lo .. hi, both ends included),
 * overlapping ranges (first case wins) and default.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> path;
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
            0 .. 9: s1;
            5 .. 20: s2;
            21 .. 0x7F: s3;
            default: s4;
        }
    }
    state s1 { meta.path = 1; transition accept; }
    state s2 { meta.path = 2; transition accept; }
    state s3 { meta.path = 3; transition accept; }
    state s4 { meta.path = 4; transition accept; }
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
