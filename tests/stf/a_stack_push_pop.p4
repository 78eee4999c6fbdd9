/* a_stack_push_pop: push_front(n) and pop_front(n) on a header stack in ingress.
 * The parser extracts cnt.n elements; ingress applies the operation in cnt.op.
 */
#include <core.p4>
#include <v1model.p4>

header cnt_t {
    bit<8> op;
    bit<8> n;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    cnt_t     cnt;
    item_t[3] items;
}

struct metadata_t {
    bit<8> left;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.cnt);
        meta.left = hdr.cnt.n;
        transition loop;
    }
    state loop {
        transition select(meta.left) {
            0: accept;
            default: get;
        }
    }
    state get {
        pkt.extract(hdr.items.next);
        meta.left = meta.left - 1;
        transition loop;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (hdr.cnt.op == 1) {
            hdr.items.push_front(1);
            hdr.items[0].setValid();
            hdr.items[0].v = 0xAA;
        } else if (hdr.cnt.op == 2) {
            hdr.items.pop_front(1);
        } else if (hdr.cnt.op == 3) {
            hdr.items.push_front(2);
            hdr.items[0].setValid();
            hdr.items[0].v = 0xB0;
            hdr.items[1].setValid();
            hdr.items[1].v = 0xB1;
        } else if (hdr.cnt.op == 4) {
            hdr.items.pop_front(3);
        } else if (hdr.cnt.op == 5) {
            hdr.items.push_front(1);
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.cnt);
        pkt.emit(hdr.items);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
