/* Indexed counters (V1MODEL_VERSION 20200408 declarations): one packets-and-bytes
 * counter indexed by the ingress port, one packets counter indexed by a packet
 * field (index 8 is past its end and counts nothing). Packets go to port 1.
 */
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

header probe_t {
    bit<8>  idx;
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
    counter<bit<9>>(16, CounterType.packets_and_bytes) rx_port;
    counter<bit<8>>(8, CounterType.packets) by_idx;

    apply {
        rx_port.count(sm.ingress_port);
        by_idx.count(hdr.p.idx);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
