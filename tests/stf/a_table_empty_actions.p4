/* a_table_empty_actions: tables whose `actions` list is empty. The property is
 * mandatory but its list may be empty; such a table only runs its default action,
 * NoAction (p4c adds it as a @defaultonly action), so every apply is a miss.
 */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> hit;
    bit<8> run;
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
    table keyed {
        key = { hdr.h.k : exact; }
        actions = { }
    }
    table keyless {
        actions = { }
        size = 4;
    }
    apply {
        if (keyed.apply().hit) {
            hdr.h.hit = 1;
        } else {
            hdr.h.hit = 2;
        }
        switch (keyless.apply().action_run) {
            NoAction: { hdr.h.run = 0x0A; }
        }
        std.egress_spec = (bit<9>) hdr.h.k;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
