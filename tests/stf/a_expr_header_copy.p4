/* a_expr_header_copy: value semantics of headers, stacks and unions. Assignment copies
 * the fields and the validity; later changes to either side do not show in the other.
 * A union member made valid by an assignment invalidates the other members. Arguments
 * are copied in and out (an out header starts invalid), also when two arguments of one
 * call are the same header, and when an action also reaches the argument's storage
 * through its control's parameter.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header_union u_t {
    h_t x;
    h_t y;
}

struct headers_t {
    h_t    h;
    h_t    g;
    h_t    k;
    h_t    o;
    h_t[2] s;
    u_t    u;
    u_t    u2;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.k);
        pkt.extract(hdr.o);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Sub(in h_t i, out h_t o, inout h_t io) {
    apply {
        o = i;
        io.a = io.a + 1;
        o.b = 0x77;
    }
}

control Clear(out h_t o) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    Sub() sub;
    Clear() clear;

    action bump(inout h_t x) {
        hdr.k.a = 0x99;
        x.b = x.a;
    }

    action peek(in h_t v) {
        hdr.h.b = 0x55;
        hdr.g.b = v.b;
    }

    apply {
        h_t tmp = hdr.h;
        hdr.h.a = 0x11;
        hdr.s[0] = tmp;
        tmp.b = 0x22;
        hdr.s[1] = hdr.s[0];
        hdr.s[0].a = 0x33;
        h_t[2] saved = hdr.s;
        hdr.s[1].b = 0x44;

        hdr.u.y = tmp;
        hdr.u.x = saved[1];
        h_t never_valid;
        hdr.u2.x = tmp;
        hdr.u2.y = never_valid;

        hdr.g = hdr.k;
        sub.apply(hdr.g, hdr.g, hdr.g);
        clear.apply(hdr.o);
        bump(hdr.k);
        peek(hdr.h);
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
