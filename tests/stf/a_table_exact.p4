/* a_table_exact: a table with one exact key, actions with parameters, a default
 * action changed at run time with setdefault.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> k;
    bit<8>  tag;
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
    action fwd(bit<9> port) {
        std.egress_spec = port;
    }
    action tag_it(bit<8> t, bit<9> port) {
        hdr.h.tag = t;
        std.egress_spec = port;
    }
    action on_miss() {
        hdr.h.tag = 0xEE;
        std.egress_spec = 7;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { fwd; tag_it; on_miss; }
        default_action = on_miss();
    }
    apply {
        t.apply();
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
