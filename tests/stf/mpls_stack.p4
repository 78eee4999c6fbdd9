/* STF suite: a header stack and parser selects.
 *
 * The parser loops over an MPLS label stack (up to 4 labels, .next/.last, select on
 * the bottom-of-stack bit), then peeks at the IP version nibble with lookahead. Plain
 * IPv4 frames go through a select on a tuple with a mask, a range and a default that
 * classifies them; ingress sends class c to port 10 + c.
 *
 * Ingress forwards labelled packets on the top label: pop, swap (with TTL decrement)
 * or push. Popping the last label turns the frame into IPv4 (or drops it when no IPv4
 * follows). (Parser errors, e.g. a 5th label, are covered by parser_errors.p4.)
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

// The first two bytes of an IPv4 header: enough to classify.
header ip_head_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> tos;
}

struct headers_t {
    ethernet_t ethernet;
    mpls_t[4]  mpls;
    ip_head_t  ip;
}

struct metadata_t {
    bit<9> cls;
}

parser StackParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8847: parse_mpls;
            0x0800: parse_ip;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: after_mpls;
        }
    }
    state after_mpls {
        transition select(pkt.lookahead<bit<4>>()) {
            4: parse_ip;
            default: accept;
        }
    }
    state parse_ip {
        pkt.extract(hdr.ip);
        transition select(hdr.ip.ihl, hdr.ip.tos) {
            (5, 0xb8): expedited;
            (5, 0x20 &&& 0xe0): priority;
            (6 .. 15, _): options;
            default: accept;
        }
    }
    state expedited {
        meta.cls = 1;
        transition accept;
    }
    state priority {
        meta.cls = 2;
        transition accept;
    }
    state options {
        meta.cls = 3;
        transition accept;
    }
}

control StackVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackIngress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t std) {
    action drop() {
        mark_to_drop(std);
    }
    action pop_fwd(bit<9> port) {
        hdr.mpls.pop_front(1);
        std.egress_spec = port;
    }
    action swap_fwd(bit<20> label, bit<9> port) {
        hdr.mpls[0].label = label;
        hdr.mpls[0].ttl = hdr.mpls[0].ttl - 1;
        std.egress_spec = port;
    }
    action push_fwd(bit<20> label, bit<9> port) {
        hdr.mpls.push_front(1);
        hdr.mpls[0].setValid();
        hdr.mpls[0].label = label;
        hdr.mpls[0].tc = 0;
        hdr.mpls[0].bos = 0;
        hdr.mpls[0].ttl = 64;
        std.egress_spec = port;
    }
    table mpls_fwd {
        key = { hdr.mpls[0].label: exact; }
        actions = { pop_fwd; swap_fwd; push_fwd; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.mpls[0].isValid()) {
            mpls_fwd.apply();
            if (!hdr.mpls[0].isValid()) {
                if (hdr.ip.isValid()) {
                    hdr.ethernet.ether_type = 0x0800;
                } else {
                    drop();
                }
            }
        } else if (hdr.ip.isValid()) {
            std.egress_spec = 10 + meta.cls;
        } else {
            drop();
        }
    }
}

control StackEgress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    apply { }
}

control StackCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.mpls);
        pkt.emit(hdr.ip);
    }
}

V1Switch(StackParser(), StackVerify(), StackIngress(), StackEgress(), StackCompute(),
         StackDeparser()) main;
