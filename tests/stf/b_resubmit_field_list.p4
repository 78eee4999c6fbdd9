/* @field_list preserved across resubmit: fields of assorted widths in two field
 * lists; the packet chooses which list the first pass resubmits with. The second
 * pass copies all the metadata into the probe header.
 *
 *   f1  bit<1>   list 1
 *   f3  bit<3>   list 1 and 2
 *   f4  bit<4>   list 2
 *   f48 bit<48>  list 2
 *   n8  bit<8>   no list
 *
 * op 1: resubmit(list 1)
 * op 2: resubmit(list 2)
 * op 3: resubmit(list 1) then resubmit(list 2): the last call counts
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  instance_type;
    bit<1>  f1;
    bit<3>  f3;
    bit<4>  f4;
    bit<48> f48;
    bit<8>  n8;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    @field_list(1)
    bit<1>  f1;
    @field_list(1, 2)
    bit<3>  f3;
    @field_list(2)
    bit<4>  f4;
    @field_list(2)
    bit<48> f48;
    bit<8>  n8;
}

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
        if (sm.instance_type == 0) {
            meta.f1 = 1;
            meta.f3 = 5;
            meta.f4 = 0xc;
            meta.f48 = 0x123456789abc;
            meta.n8 = 0xee;
            if (hdr.p.op == 1) {
                resubmit_preserving_field_list(1);
            } else if (hdr.p.op == 2) {
                resubmit_preserving_field_list(2);
            } else if (hdr.p.op == 3) {
                resubmit_preserving_field_list(1);
                resubmit_preserving_field_list(2);
            }
        }
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.f1 = meta.f1;
        hdr.p.f3 = meta.f3;
        hdr.p.f4 = meta.f4;
        hdr.p.f48 = meta.f48;
        hdr.p.n8 = meta.n8;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
