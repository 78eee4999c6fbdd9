/* a_table_range: a table with a range key (v1model match_kind range); overlapping
 * ranges are decided by priority.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> port;
    bit<8>  res;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    action set(bit<8> v) {
        hdr.h.res = v;
    }
    table ports {
        key = { hdr.h.port : range; }
        actions = { set; }
        default_action = set(0);
    }
    apply {
        ports.apply();
        std.egress_spec = 1;
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
