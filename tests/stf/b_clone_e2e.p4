/* Egress-to-egress clone. Egress modifies field a of the normal packet and clones
 * it; the clone passes through egress again and records its own metadata.
 *
 * op 1: clone(E2E, 3)
 * op 2: clone(E2E, 3); mark_to_drop          -> only the clone
 * op 3: clone_preserving_field_list(E2E, 3, 1) with meta.kept / meta.lost set
 * else: no clone
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  instance_type;
    bit<8>  kept;
    bit<8>  lost;
    bit<16> egress_port;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> lost;
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
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.egress_port = (bit<16>)sm.egress_port;
        if (sm.instance_type == 0) {
            hdr.p.a = 0x55;
            if (hdr.p.op == 1) {
                clone(CloneType.E2E, 3);
            } else if (hdr.p.op == 2) {
                clone(CloneType.E2E, 3);
                mark_to_drop(sm);
            } else if (hdr.p.op == 3) {
                meta.kept = 0x77;
                meta.lost = 0x88;
                clone_preserving_field_list(CloneType.E2E, 3, 1);
            }
        } else {
            hdr.p.kept = meta.kept;
            hdr.p.lost = meta.lost;
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
