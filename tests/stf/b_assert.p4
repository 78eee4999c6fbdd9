/* assert() and assume() whose conditions hold: the packet goes on normally. The
 * conditions are run-time expressions that are always true for these packets.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  a;
    bit<8>  b;
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
        assert(hdr.p.isValid());
        assert(sm.instance_type == 0);
        assume(hdr.p.a != 0xff);
        hdr.p.b = hdr.p.a + 1;
        assert(hdr.p.b != hdr.p.a);
        sm.egress_spec = 3;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        assert(sm.egress_port == 3);
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
