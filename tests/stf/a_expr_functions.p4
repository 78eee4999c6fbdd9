/* a_expr_functions: functions with return values (early return, a function calling
 * another), void functions with inout parameters, and copy-out order when the same
 * l-value is passed to two inout parameters.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  c;
    bit<8>  mx;
    bit<16> s;
    bit<8>  cl;
    bit<8>  alias;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

bit<16> sum3(in bit<8> x, in bit<8> y, in bit<8> z) {
    return (bit<16>)x + (bit<16>)y + (bit<16>)z;
}

bit<8> clamp(in bit<8> v, in bit<8> lo, in bit<8> hi) {
    bit<8> t = max8(lo, v);
    return t > hi ? hi : t;
}

void swap(inout bit<8> x, inout bit<8> y) {
    bit<8> t = x;
    x = y;
    y = t;
}

void set_two(inout bit<8> p, inout bit<8> q) {
    p = 1;
    q = 2;
}

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
    apply {
        hdr.h.mx = max8(hdr.h.a, hdr.h.b);
        hdr.h.s = sum3(hdr.h.a, hdr.h.b, hdr.h.c);
        hdr.h.cl = clamp(hdr.h.c, 0x10, 0x20);
        swap(hdr.h.a, hdr.h.b);
        set_two(hdr.h.alias, hdr.h.alias);
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
