/* a_expr_signed: int<8> values: signed comparisons, comparisons with negative
 * constants, negation, wrapping addition, and ?: selecting min/max/abs.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    int<8> a;
    int<8> b;
    bit<1> lt;
    bit<1> le;
    bit<1> gt;
    bit<1> ge;
    bit<1> eq;
    bit<1> ne;
    bit<1> aneg;
    bit<1> below_m5;
    int<8> mx;
    int<8> mn;
    int<8> absa;
    int<8> neg;
    int<8> sum;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

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
        int<8> a = hdr.h.a;
        int<8> b = hdr.h.b;
        hdr.h.lt = (a < b) ? 1w1 : 1w0;
        hdr.h.le = (a <= b) ? 1w1 : 1w0;
        hdr.h.gt = (a > b) ? 1w1 : 1w0;
        hdr.h.ge = (a >= b) ? 1w1 : 1w0;
        hdr.h.eq = (a == b) ? 1w1 : 1w0;
        hdr.h.ne = (a != b) ? 1w1 : 1w0;
        hdr.h.aneg = (a < 0) ? 1w1 : 1w0;
        hdr.h.below_m5 = (a < -5) ? 1w1 : 1w0;
        hdr.h.mx = a > b ? a : b;
        hdr.h.mn = a < b ? a : b;
        hdr.h.absa = a < 0 ? -a : a;
        hdr.h.neg = -a;
        hdr.h.sum = a + b;
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
