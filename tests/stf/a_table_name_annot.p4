/* a_table_name_annot: @name annotations rename a table (absolute name with a
 * leading dot, and a local one), a key field and an action; control-plane
 * names are the annotated ones.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> k2;
    bit<8> r;
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
    @name("send") action fwd(bit<9> port) {
        std.egress_spec = port;
    }
    action mark(bit<8> v) {
        hdr.h.r = v;
    }
    @name(".global_fwd") table t {
        key = { hdr.h.k : exact @name("dst_key"); }
        actions = { fwd; NoAction; }
        default_action = NoAction();
    }
    @name("local_marks") table t2 {
        key = { hdr.h.k2 : exact @name("second"); }
        actions = { mark; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        t.apply();
        t2.apply();
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
