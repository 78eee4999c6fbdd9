/* self_names: inside a declaration its own name is not visible (p4c's
 * ResolveReferences; issue1541.p4): the action `hash` calls v1model's extern function
 * hash, the action `f` calls the function f.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;  // identity hash of a, modulo 7
    bit<8> c;  // f() = 0x42
}

struct headers_t { h_t h; }
struct metadata_t { bit<3> x; }

bit<8> f() { return 0x42; }

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
    action hash() {
        hash(meta.x, HashAlgorithm.identity, 3w0, { hdr.h.a }, 4w7);
        hdr.h.b = (bit<8>)meta.x;
    }
    action f() { hdr.h.c = f(); }
    apply {
        hash();
        f();
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
