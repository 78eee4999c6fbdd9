/* random() with lo == hi returns that value: constant bounds of several widths, and
 * run-time bounds taken from the packet.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  r8;
    bit<16> r16;
    bit<32> r32;
    bit<64> r64;
    bit<16> bound;   // used as both lo and hi
    bit<16> rrt;     // random(rrt, bound, bound)
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
        random(hdr.p.r8, 8w0x5a, 8w0x5a);
        random(hdr.p.r16, 16w0, 16w0);
        random(hdr.p.r32, 32w0xfffffffe, 32w0xfffffffe);
        random(hdr.p.r64, 64w0x0123456789abcdef, 64w0x0123456789abcdef);
        random(hdr.p.rrt, hdr.p.bound, hdr.p.bound);
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
