/* log_msg() with and without data, in ingress and egress: only logs, the packet
 * is forwarded unchanged to port 2.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  a;
    bit<16> b;
    bit<32> c;
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
    apply {
        log_msg("ingress: a packet arrived");
        log_msg("ingress: a={} b={} c={} port={}",
                { hdr.p.a, hdr.p.b, hdr.p.c, sm.ingress_port });
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        log_msg("egress: out on port {}", { sm.egress_port });
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
