/* select_runtime: select labels that are run-time values (p4c's select-struct.p4): a
 * header field, and a local in a list label for a list key. Each label is read when the
 * select runs; the first that matches wins.
 */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> a; bit<8> b; bit<8> c; bit<8> r; }

struct headers_t { e_t e; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.e);
        bit<8> twice = hdr.e.a + hdr.e.a;
        transition select(hdr.e.a, { hdr.e.b, hdr.e.c }) {
            (hdr.e.b, default): same;            // a == b
            (_, { twice, 8w3 }): double;         // b == 2a and c == 3
            default: accept;
        }
    }
    state same { hdr.e.r = 1; transition accept; }
    state double { hdr.e.r = 2; transition accept; }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply { std.egress_spec = 1; }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.e); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
