/* a_expr_validity: isValid(), setValid(), setInvalid() in ingress, and emit writing
 * only valid headers: removing a parsed header, inserting new ones, and setValid on
 * an already valid header.
 */
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> op;
}

header b_t {
    bit<8> v;
}

header c_t {
    bit<16> w;
}

struct headers_t {
    a_t a;
    b_t b;
    c_t c;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.op[7:7]) {
            1: parse_b;
            default: accept;
        }
    }
    state parse_b {
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        bit<7> op = hdr.a.op[6:0];
        if (op == 1) {
            hdr.b.setInvalid();
        } else if (op == 2) {
            if (hdr.b.isValid()) {
                hdr.c.setValid();
                hdr.c.w = 0xC0DE;
            } else {
                hdr.b.setValid();
                hdr.b.v = 0xBB;
            }
        } else if (op == 3) {
            if (!hdr.b.isValid()) {
                hdr.a.op = 0x33;
            }
        } else if (op == 4) {
            hdr.b.setValid();
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.c);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
