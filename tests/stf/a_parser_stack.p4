/* a_parser_stack: a header stack filled in a parser loop with .next, the loop
 * condition reading .last, and lastIndex recorded in metadata. Ingress reads
 * elements by constant index.
 */
#include <core.p4>
#include <v1model.p4>

header info_t {
    bit<8> depth;
    bit<8> last_v;
    bit<8> first_v;
}

header lbl_t {
    bit<7> v;
    bit<1> bos;
}

struct headers_t {
    info_t   info;
    lbl_t[4] lbl;
}

struct metadata_t {
    bit<32> last_idx;
    bit<8>  last_v;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.info);
        transition parse_lbl;
    }
    state parse_lbl {
        pkt.extract(hdr.lbl.next);
        meta.last_idx = hdr.lbl.lastIndex;
        transition select(hdr.lbl.last.bos) {
            1: done;
            default: parse_lbl;
        }
    }
    state done {
        meta.last_v = (bit<8>)hdr.lbl.last.v;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        hdr.info.depth = (bit<8>)meta.last_idx + 1;
        hdr.info.last_v = meta.last_v;
        hdr.info.first_v = (bit<8>)hdr.lbl[0].v;
        if (hdr.lbl[2].isValid()) {
            std.egress_spec = 3;
        } else {
            std.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.info);
        pkt.emit(hdr.lbl);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
