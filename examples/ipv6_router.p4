/* A small IPv6 router for v1model: the thin slice that exercises the whole target
 * (parser, exact + LPM + ternary tables, header rewrite, deparser) and the program the
 * executor benchmark measures. */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV6 = 0x86dd;

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv6_t {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    bit<128> src_addr;
    bit<128> dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv6_t     ipv6;
}

struct metadata_t {
    bit<16> nexthop;
}

parser RouterParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control RouterVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t std) {
    action drop() {
        mark_to_drop(std);
    }
    action set_nexthop(bit<16> nexthop) {
        meta.nexthop = nexthop;
    }
    action forward(bit<9> port, bit<48> dmac, bit<48> smac) {
        std.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ethernet.src_addr = smac;
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
    }
    // RFC 8200: routed packets are matched on the longest destination prefix.
    table ipv6_lpm {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { set_nexthop; drop; }
        default_action = drop();
        size = 4096;
    }
    table nexthop {
        key = { meta.nexthop: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    // Operator ACL: priorities decide between overlapping rules.
    table acl {
        key = {
            hdr.ipv6.src_addr: ternary;
            hdr.ipv6.next_hdr: ternary;
            std.ingress_port: ternary;
        }
        actions = { drop; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (!hdr.ipv6.isValid()) {
            drop();
            return;
        }
        // RFC 8200 section 3: a packet whose hop limit would reach zero is not forwarded.
        if (hdr.ipv6.hop_limit <= 1) {
            drop();
            return;
        }
        if (ipv6_lpm.apply().hit) {
            nexthop.apply();
        }
        acl.apply();
    }
}

control RouterEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t std) {
    apply { }
}

control RouterCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(RouterParser(), RouterVerify(), RouterIngress(), RouterEgress(), RouterCompute(),
         RouterDeparser()) main;
