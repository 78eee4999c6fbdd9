/* a_expr_struct_copy: assignment of headers and structs copies the value (fields and
 * validity): modifying the copy leaves the original unchanged. Struct initializers
 * { f = e, ... } and list expressions, and a header initializer that makes the
 * header valid.
 */
#include <core.p4>
#include <v1model.p4>

header p_t {
    bit<8> x;
    bit<8> y;
}

struct pair_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    p_t orig;
    p_t copy;
    p_t init;
    p_t absent;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.orig);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        p_t tmp = hdr.orig;
        tmp.x = tmp.x + 1;
        hdr.copy = tmp;
        pair_t s1 = { a = hdr.orig.x, b = hdr.orig.y };
        pair_t s2 = s1;
        s2.a = 0xEE;
        pair_t s3 = { s2.b, s1.a };
        hdr.init = { x = s2.a, y = s3.b };
        if (hdr.orig.x == 0xFF) {
            hdr.copy = hdr.absent;
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.orig);
        pkt.emit(hdr.copy);
        pkt.emit(hdr.init);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
