/* a_parser_advance: packet_in.advance by a constant and by a value computed from a
 * header field. Skipped bits are neither extracted nor payload, so they are absent
 * from the deparsed packet.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> skip_bytes;
    bit<8> mode;
}

header t_t {
    bit<16> x;
}

struct headers_t {
    h_t h;
    t_t t;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.mode) {
            0: skip_const;
            default: skip_var;
        }
    }
    state skip_const {
        pkt.advance(16);
        transition parse_t;
    }
    state skip_var {
        pkt.advance((bit<32>)hdr.h.skip_bytes * 8);
        transition parse_t;
    }
    state parse_t {
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        hdr.t.x = hdr.t.x + 1;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
