/* a_table_const_default: const default_action with action arguments, on a keyed
 * table and on a keyless table (which always runs its default action).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> m;
    bit<8> n;
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
    action set_port(bit<9> p, bit<8> mark) {
        std.egress_spec = p;
        hdr.h.m = mark;
    }
    action add_n(bit<8> d) {
        hdr.h.n = hdr.h.n + d;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { set_port; }
        const default_action = set_port(6, 0x66);
    }
    table always {
        actions = { add_n; }
        const default_action = add_n(3);
    }
    apply {
        t.apply();
        always.apply();
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
