/* STF suite: a small IPv6 router.
 *
 * my_mac (exact on the destination MAC) accepts frames for the router; routes (LPM on
 * the IPv6 destination) picks a next hop; nexthops (exact) gives its port and MAC.
 * Forwarding rewrites both MACs and decrements the hop limit; a hop limit of 0 or 1
 * drops the packet. Egress counts packets and bytes per output port.
 */
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
    bool    for_us;
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
    action accept_frame() {
        meta.for_us = true;
    }
    table my_mac {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { accept_frame; NoAction; }
        default_action = NoAction();
    }

    action set_nexthop(bit<16> nexthop) {
        meta.nexthop = nexthop;
    }
    table routes {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { set_nexthop; drop; }
        default_action = drop();
    }

    action forward(bit<9> port, bit<48> dmac) {
        std.egress_spec = port;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
    }
    table nexthops {
        key = { meta.nexthop: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }

    apply {
        my_mac.apply();
        if (!meta.for_us || !hdr.ipv6.isValid() || hdr.ipv6.hop_limit <= 1) {
            drop();
            return;
        }
        if (routes.apply().hit) {
            nexthops.apply();
        }
    }
}

control RouterEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t std) {
    counter(512, CounterType.packets_and_bytes) tx_port;
    apply {
        tx_port.count((bit<32>)std.egress_port);
    }
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

V1Switch(RouterParser(), RouterVerify(), RouterIngress(), RouterEgress(),
         RouterCompute(), RouterDeparser()) main;
