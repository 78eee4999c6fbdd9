/* select_tuple_key: a `select` key element that is itself a list, `{a, b}`, matched by a
 * list of constants in the labels (p4c's nested_select.p4; `default` matches any).
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
        transition select(hdr.e.a, { hdr.e.b, hdr.e.c }) {
            (1, { 2, 3 }): one;
            (1, default): two;
            (2, { 2, 3 }): three;
            default: accept;
        }
    }
    state one { hdr.e.r = 1; transition accept; }
    state two { hdr.e.r = 2; transition accept; }
    state three { hdr.e.r = 3; transition accept; }
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
