/* a_table_isvalid_key: tables keyed on hdr.b.isValid(): alone (exact) and together
 * with a ternary field.
 */
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> has_b;
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
}

header b_t {
    bit<8> x;
}

struct headers_t {
    a_t a;
    b_t b;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.has_b) {
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
    action set1(bit<8> v) {
        hdr.a.r1 = v;
    }
    action set2(bit<8> v) {
        hdr.a.r2 = v;
    }
    table by_valid {
        key = { hdr.b.isValid() : exact; }
        actions = { set1; }
        default_action = set1(0xEE);
    }
    table by_valid_and_k {
        key = {
            hdr.b.isValid() : exact;
            hdr.a.k         : ternary;
        }
        actions = { set2; }
        default_action = set2(0xEE);
    }
    apply {
        by_valid.apply();
        by_valid_and_k.apply();
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
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
