/* meter and direct_meter that the control plane never configures: both always
 * report GREEN (0). The colours are written into the probe, which arrives filled
 * with 0xff.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  idx;
    bit<8>  color;
    bit<8>  dcolor;
    bit<8>  hit;
}

struct headers_t {
    probe_t p;
}

struct meta_t {
    bit<8> dcolor;
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
    meter(4, MeterType.packets) m;
    direct_meter<bit<8>>(MeterType.bytes) dm;

    action metered() {
        dm.read(meta.dcolor);
        hdr.p.hit = 1;
    }
    table t {
        key = { hdr.p.idx : exact; }
        actions = { metered; NoAction; }
        default_action = NoAction();
        meters = dm;
    }
    apply {
        m.execute_meter((bit<32>)hdr.p.idx, hdr.p.color);
        meta.dcolor = 0xaa;
        t.apply();
        hdr.p.dcolor = meta.dcolor;
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
