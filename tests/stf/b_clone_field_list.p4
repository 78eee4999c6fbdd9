/* clone_preserving_field_list(I2E, ...) with @field_list user metadata.
 * Ingress sets three metadata fields and clones to session 5 with the field list
 * chosen by the packet; egress copies the metadata into the probe header.
 *
 * kept1 is in field list 1, kept2 in lists 1 and 2, lost in none.
 * op 1: list 1; op 2: list 2;
 * op 3: list 1, and kept1 is rewritten after the clone call (final value counts)
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  instance_type;
    bit<8>  kept1;
    bit<16> kept2;
    bit<8>  lost;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    @field_list(1)
    bit<8>  kept1;
    @field_list(1, 2)
    bit<16> kept2;
    bit<8>  lost;
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
        meta.kept1 = 0x11;
        meta.kept2 = 0x2222;
        meta.lost = 0x33;
        if (hdr.p.op == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        } else if (hdr.p.op == 2) {
            clone_preserving_field_list(CloneType.I2E, 5, 2);
        } else if (hdr.p.op == 3) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
            meta.kept1 = 0x99;
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.kept1 = meta.kept1;
        hdr.p.kept2 = meta.kept2;
        hdr.p.lost = meta.lost;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
