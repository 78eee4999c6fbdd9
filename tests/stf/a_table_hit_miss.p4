/* a_table_hit_miss: t.apply().hit and t.apply().miss, including a hit whose action
 * is NoAction and a miss whose default action does something.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> v;
    bit<8> f;
    bit<8> w;
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
        hdr.h.v = v;
    }
    action set2(bit<8> w) {
        hdr.h.w = w;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    table t2 {
        key = { hdr.h.k : exact; }
        actions = { set2; }
        default_action = set2(0x77);
    }
    apply {
        if (t.apply().hit) {
            hdr.h.f = hdr.h.f | 0x01;
        } else {
            hdr.h.f = hdr.h.f | 0x02;
        }
        if (t2.apply().miss) {
            hdr.h.f = hdr.h.f | 0x10;
        }
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
