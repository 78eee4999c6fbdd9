/* Indexed meters configured from the control plane: a packets meter and a bytes
 * meter, both executed at the index the packet carries; colours go into the probe.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  idx;
    bit<8>  pcolor;
    bit<8>  bcolor;
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
    meter(2, MeterType.packets) pm;
    meter(2, MeterType.bytes) bm;

    apply {
        pm.execute_meter((bit<32>)hdr.p.idx, hdr.p.pcolor);
        bm.execute_meter((bit<32>)hdr.p.idx, hdr.p.bcolor);
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
