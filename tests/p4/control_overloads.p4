/* control_overloads: two controls named Inner that differ in the name of their
 * constructor parameter (spec 7.2.10; p4c's issue1334.p4); each instance names its
 * argument, which picks the control it runs.
 */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Inner(inout bit<8> x)(bit<8> add) { apply { x = x + add; } }
control Inner(inout bit<8> x)(bit<8> sub) { apply { x = x - sub; } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    Inner(add = 8w3) up;
    Inner(sub = 8w1) down;
    apply {
        up.apply(hdr.h.a);
        down.apply(hdr.h.b);
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
