/* a_table_const_entries: const entries with ternary and range keys, `_` and
 * `default` keysets; entries listed earlier take precedence (no explicit priorities).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> res;
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
    table t {
        key = {
            hdr.h.a : ternary;
            hdr.h.b : range;
        }
        actions = { set; }
        const entries = {
            (0x01, _) : set(1);
            (0x10 &&& 0xF0, 5 .. 10) : set(2);
            (0x10 &&& 0xF0, _) : set(3);
            (_, 0 .. 3) : set(4);
            (0xF0 &&& 0xF0, default) : set(5);
        }
        default_action = set(0xEE);
    }
    apply {
        t.apply();
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
