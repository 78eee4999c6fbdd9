/* direct_counter on an exact table: each entry counts the packets and bytes that
 * hit it, whether or not its action calls count(); misses count nothing.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  key;
    bit<8>  data;
}

struct headers_t {
    probe_t p;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.p);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) fwd_hits;

    action set_port(bit<9> port) {
        sm.egress_spec = port;
        fwd_hits.count();
    }
    action to_port_3() {
        sm.egress_spec = 3;
    }
    action drop_it() {
        mark_to_drop(sm);
    }
    table fwd {
        key = { hdr.p.key : exact; }
        actions = { set_port; to_port_3; drop_it; }
        default_action = drop_it();
        counters = fwd_hits;
    }
    apply {
        fwd.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
