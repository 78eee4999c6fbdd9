/* generic_ctor_param: a generic control whose constructor parameter has its type
 * parameter's type, `control Inner<T>(...)(T size)`, instantiated as `Inner(8w9)`: the
 * argument makes T bit<8> (p4c's generic1.p4). Its body only copies T values.
 */
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct metadata_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }
control Inner<T>(inout bit<8> x)(T size) {
    apply { T v = size; T w = v; x = x + 9; }
}
control MyIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t std) {
    Inner(8w9) inner;
    apply { inner.apply(hdr.h.a); std.egress_spec = 1; }
}
control MyEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t std) { apply { } }
control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
