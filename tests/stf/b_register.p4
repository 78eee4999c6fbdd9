/* register read/write across packets: a per-ingress-port packet count kept in a
 * register, echoed into the packet; a second register remembers the last value of
 * the packet's data field and echoes the previous one.
 */
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<32> count;
    bit<16> data;
    bit<16> prev_data;
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
    register<bit<32>>(16) per_port;
    register<bit<16>>(1) last_data;

    apply {
        bit<32> n;
        per_port.read(n, (bit<32>)sm.ingress_port);
        n = n + 1;
        per_port.write((bit<32>)sm.ingress_port, n);
        hdr.p.count = n;

        bit<16> prev;
        last_data.read(prev, 0);
        last_data.write(0, hdr.p.data);
        hdr.p.prev_data = prev;

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
