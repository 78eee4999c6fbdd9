/* a_table_mixed: tables with mixed match kinds: exact + lpm (longest prefix among
 * entries with the same exact value) and exact + ternary + range (priorities).
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  vrf;
    bit<16> dst;
    bit<8>  proto;
    bit<16> port;
    bit<8>  r1;
    bit<8>  r2;
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
    action set1(bit<8> v) {
        hdr.h.r1 = v;
    }
    action set2(bit<8> v) {
        hdr.h.r2 = v;
    }
    table routes {
        key = {
            hdr.h.vrf : exact;
            hdr.h.dst : lpm;
        }
        actions = { set1; }
        default_action = set1(0);
    }
    table filter {
        key = {
            hdr.h.proto : exact;
            hdr.h.dst   : ternary;
            hdr.h.port  : range;
        }
        actions = { set2; }
        default_action = set2(0);
    }
    apply {
        routes.apply();
        filter.apply();
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
