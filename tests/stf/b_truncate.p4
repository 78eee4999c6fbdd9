/* truncate(length) in egress: the packet that leaves is cut to its first length
 * bytes (after deparsing, so egress' changes to the headers are in it).
 *
 * op 1: truncate(6)
 * op 2: truncate(100)              (longer than the packet: no change)
 * op 3: truncate(10); truncate(4)  (the smallest length counts)
 * op 4: truncate(16)               (exactly the packet length: no change)
 * Egress always writes 0xee into field mark.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  mark;
    bit<16> data;
}

struct headers_t {
    probe_t p;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.p);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.mark = 0xee;
        if (hdr.p.op == 1) {
            truncate(6);
        } else if (hdr.p.op == 2) {
            truncate(100);
        } else if (hdr.p.op == 3) {
            truncate(10);
            truncate(4);
        } else if (hdr.p.op == 4) {
            truncate(16);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
