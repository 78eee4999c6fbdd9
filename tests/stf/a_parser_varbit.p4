/* a_parser_varbit: a header with a varbit field, extracted with the two-argument
 * extract whose size comes from a preceding length field, and emitted again with
 * its actual length. A fixed header after it must be found at the right offset.
 */
#include <core.p4>
#include <v1model.p4>

header opt_hdr_t {
    bit<8> kind;
    bit<8> len;    // bytes of opt_data.data
}

header opt_data_t {
    bit<8>     pre;
    varbit<64> data;
}

header tail_t {
    bit<16> x;
}

struct headers_t {
    opt_hdr_t  oh;
    opt_data_t od;
    tail_t     tail;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.oh);
        pkt.extract(hdr.od, (bit<32>)hdr.oh.len * 8);
        pkt.extract(hdr.tail);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        hdr.oh.kind = hdr.oh.kind + 1;
        hdr.od.pre = 0xEE;
        hdr.tail.x = hdr.tail.x ^ 0xFFFF;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.oh);
        pkt.emit(hdr.od);
        pkt.emit(hdr.tail);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
