/* Ingress-to-egress clone. Ingress may clone the packet to a session and modifies
 * field a; egress records instance_type, egress_rid, egress_port and packet_length.
 *
 * op 1: clone(I2E, 5); a = 0xaa; unicast to port 1
 * op 2: clone(I2E, 5); mark_to_drop            -> only the clone
 * op 3: clone(I2E, 6) (no such session); a = 0xaa; port 1 -> only the original
 * op 4: clone(I2E, 6); clone(I2E, 5); port 1   -> the last call (session 5) wins
 * else: port 1, no clone
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  instance_type;
    bit<8>  egress_rid;
    bit<16> egress_port;
    bit<32> packet_length;
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
        if (hdr.p.op == 1) {
            clone(CloneType.I2E, 5);
            hdr.p.a = 0xaa;
        } else if (hdr.p.op == 2) {
            clone(CloneType.I2E, 5);
            mark_to_drop(sm);
        } else if (hdr.p.op == 3) {
            clone(CloneType.I2E, 6);
            hdr.p.a = 0xaa;
        } else if (hdr.p.op == 4) {
            clone(CloneType.I2E, 6);
            clone(CloneType.I2E, 5);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.p.instance_type = (bit<8>)sm.instance_type;
        hdr.p.egress_rid = (bit<8>)sm.egress_rid;
        hdr.p.egress_port = (bit<16>)sm.egress_port;
        hdr.p.packet_length = sm.packet_length;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
