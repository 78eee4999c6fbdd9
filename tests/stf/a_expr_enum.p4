/* a_expr_enum: a serializable enum (enum bit<8>) as a header field type, casts
 * bit<8> -> enum (including a value that names no member) and enum -> bit<8>,
 * comparisons of enum values, a plain enum in metadata, and a table keyed on an
 * enum-typed field.
 */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { DATA = 1, ACK = 2, NACK = 0x10 }
enum Color { RED, GREEN }

header h_t {
    Kind   kind;
    bit<8> raw;
    bit<8> res;
    bit<8> res2;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    Color col;
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
    action set_port(bit<9> p) {
        std.egress_spec = p;
    }
    table by_kind {
        key = { hdr.h.kind : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    apply {
        Kind k = hdr.h.kind;
        if (k == Kind.DATA) {
            hdr.h.res = 0xD0;
        } else if (k == Kind.ACK) {
            hdr.h.res = 0xA0;
        } else if (k == Kind.NACK) {
            hdr.h.res = 0x40;
        } else {
            hdr.h.res = 0xFF;
        }
        Kind r = (Kind)hdr.h.raw;
        hdr.h.res2 = (bit<8>)Kind.NACK + (bit<8>)r;
        if (r != Kind.DATA) {
            hdr.h.res2 = hdr.h.res2 | 0x80;
        }
        meta.col = (k == Kind.ACK) ? Color.GREEN : Color.RED;
        if (meta.col == Color.GREEN) {
            std.egress_spec = 2;
        } else {
            std.egress_spec = 1;
        }
        by_kind.apply();
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
