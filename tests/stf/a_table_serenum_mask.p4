/* a_table_serenum_mask: const entries of a ternary key of serializable-enum type,
 * written as enum members with masks (`Kind.A &&& 0xF0`), as plain values of the
 * underlying type with masks, and as a bare member (an exact-value match); a select
 * on the same enum type with a masked member.
 */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind {
    A = 0x12,
    B = 0x34,
    C = 0xF0
}

header h_t {
    Kind   kind;
    bit<8> res;
    bit<8> sel;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            Kind.C &&& 0x0F: zero_low;
            default: accept;
        }
    }
    state zero_low {
        hdr.h.sel = 0x55;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.h.res = v; }
    table t {
        key = { hdr.h.kind : ternary; }
        actions = { set; }
        const entries = {
            Kind.A &&& 0xF0 : set(1);
            Kind.C &&& Kind.C : set(2);
            0x30 &&& 0xF0 : set(3);
            Kind.B : set(4);
            0x40 &&& 0x40 : set(5);
        }
        default_action = set(9);
    }
    apply {
        t.apply();
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
