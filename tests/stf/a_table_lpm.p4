/* a_table_lpm: a longest-prefix-match table: nested prefixes, a /0 default route,
 * a /9 next to a /8, and a /32 host route. The routing action decrements a TTL.
 */
#include <core.p4>
#include <v1model.p4>

header ip_t {
    bit<32> dst;
    bit<8>  ttl;
}

struct headers_t {
    ip_t ip;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ip);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    action route(bit<9> port) {
        std.egress_spec = port;
        hdr.ip.ttl = hdr.ip.ttl - 1;
    }
    action drop_it() {
        mark_to_drop(std);
    }
    table fib {
        key = { hdr.ip.dst : lpm; }
        actions = { route; drop_it; }
        default_action = drop_it();
    }
    apply {
        fib.apply();
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ip);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
