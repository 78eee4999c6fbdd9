/* invalid_header: `{#}`, the invalid header or header union value (P4_16 spec 8.17).
 * Assigning it invalidates the target; comparing with it tells an invalid header
 * (spec 8.17: two invalid headers are equal). Only valid headers are emitted.
 */
#include <core.p4>
#include <v1model.p4>

header op_t {
    bit<8> op;    // 1: drop b through {#}; 2: drop a and b through (T){#} and a union
    bit<8> seen;  // out: 0x10 if b == {#} after the action, | 0x01 if u.a is invalid
}
header a_t { bit<8> v; }
header b_t { bit<8> v; }
header_union u_t { a_t a; b_t b; }

struct headers_t { op_t o; a_t a; b_t b; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.o);
        pkt.extract(hdr.a);
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    u_t u;
    action drop_b() { hdr.b = {#}; }
    action drop_both() {
        hdr.a = (a_t){#};
        hdr.b = (b_t){#};
    }
    table t {
        key = { hdr.o.op : exact; }
        actions = { drop_b; drop_both; NoAction; }
        const entries = { 1 : drop_b(); 2 : drop_both(); }
        default_action = NoAction();
    }
    apply {
        u.a = hdr.a;
        t.apply();
        if (hdr.o.op == 2) {
            u = (u_t){#};
        }
        hdr.o.seen = 0;
        if (hdr.b == {#}) {
            hdr.o.seen = hdr.o.seen | 0x10;
        }
        if ({#} == u) {
            hdr.o.seen = hdr.o.seen | 0x01;
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.o);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
