/* a_expr_equality: == and != on headers (validity included) and on structs.
 */
#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<8> mode;
    bit<1> p1_eq_p2;
    bit<1> p2_eq_p3;
    bit<1> s_eq;
    bit<1> s_ne;
    bit<1> p1_ne_p2;
    bit<3> pad;
}

header p_t {
    bit<8> x;
    bit<8> y;
}

struct pair_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    ctl_t ctl;
    p_t   p1;
    p_t   p2;
    p_t   p3;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.p1);
        transition select(hdr.ctl.mode) {
            1: parse_p2;
            default: accept;
        }
    }
    state parse_p2 {
        pkt.extract(hdr.p2);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        pair_t s1 = { hdr.p1.x, hdr.p1.y };
        pair_t s2 = { a = hdr.p1.y, b = hdr.p1.x };
        hdr.ctl.p1_eq_p2 = (hdr.p1 == hdr.p2) ? 1w1 : 1w0;
        hdr.ctl.p2_eq_p3 = (hdr.p2 == hdr.p3) ? 1w1 : 1w0;
        hdr.ctl.s_eq = (s1 == s2) ? 1w1 : 1w0;
        hdr.ctl.s_ne = (s1 != s2) ? 1w1 : 1w0;
        hdr.ctl.p1_ne_p2 = (hdr.p1 != hdr.p2) ? 1w1 : 1w0;
        hdr.ctl.pad = 0;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.p1);
        pkt.emit(hdr.p2);
        pkt.emit(hdr.p3);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
