/* a_table_param_arith: control-plane action parameters of several widths used in
 * arithmetic: subtraction (with wrap), multiplication, addition after a cast and a
 * run-time shift amount.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  k;
    bit<8>  ttl;
    bit<16> len;
    bit<8>  m;
    bit<12> q;
    bit<4>  pad;
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
    action adjust(bit<8> dec, bit<16> scale, bit<8> sh, bit<12> off) {
        hdr.h.ttl = hdr.h.ttl - dec;
        hdr.h.len = hdr.h.len * scale + (bit<16>)dec;
        hdr.h.m = hdr.h.m << sh;
        hdr.h.q = off - hdr.h.q;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { adjust; NoAction; }
        default_action = NoAction();
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
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
