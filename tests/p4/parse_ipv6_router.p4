/* An IPv6 router on v1model: LPM routing, neighbour table, packet-in/out to the
 * controller, counters, and a switch on the routing table's action_run. */

#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<9> port_t;

const bit<16> ETHERTYPE_IPV6 = 0x86DD;
const port_t CPU_PORT = 9w255;

@controller_header("packet_in")
header packet_in_t {
    @id(1) port_t ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    @id(1) port_t egress_port;
    bit<7> _pad;
}

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16> ether_type;
}

header ipv6_t {
    bit<4> version;
    bit<8> traffic_class;
    bit<20> flow_label;
    bit<16> payload_len;
    bit<8> next_hdr;
    bit<8> hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
    ipv6_t ipv6;
}

struct metadata_t {
    @field_list(1)
    port_t ingress_port;
    bit<16> nexthop_id;
    bool routed;
}

parser RouterParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        verify(hdr.ipv6.version == 4w6, error.ParserInvalidArgument);
        transition accept;
    }
}

control RouterVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    @name("routing_counter") direct_counter(CounterType.packets_and_bytes) routing_counter;
    counter(32w512, CounterType.packets) port_counter;

    @brief("Send the packet to the controller.")
    action send_to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
    }

    @name(".drop")
    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_nexthop(bit<16> nexthop_id) {
        meta.nexthop_id = nexthop_id;
        meta.routed = true;
        routing_counter.count();
    }

    action decrement(inout bit<8> hop_limit, in bit<8> amount) {
        hop_limit = hop_limit - amount;
    }

    action set_dmac(mac_addr_t dmac, port_t port) {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dmac;
        standard_metadata.egress_spec = port;
        decrement(hdr.ipv6.hop_limit, 1);
    }

    @id(0x02000001)
    table routing_v6 {
        key = {
            hdr.ipv6.dst_addr : lpm @name("dst_addr");
        }
        actions = {
            set_nexthop;
            send_to_cpu;
            @defaultonly drop;
        }
        const default_action = drop();
        counters = routing_counter;
        size = 4096;
    }

    table neighbour {
        key = {
            meta.nexthop_id : exact;
        }
        actions = {
            set_dmac;
            @defaultonly NoAction;
        }
        default_action = NoAction();
    }

    apply {
        port_counter.count((bit<32>)standard_metadata.ingress_port);
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        if (!hdr.ipv6.isValid()) {
            return;
        }
        if (hdr.ipv6.hop_limit <= 1) {
            send_to_cpu();
            return;
        }
        switch (routing_v6.apply().action_run) {
            set_nexthop: {
                neighbour.apply();
            }
            send_to_cpu: { }
            default: {
                meta.routed = false;
            }
        }
    }
}

control RouterEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
        }
    }
}

control RouterComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(RouterParser(), RouterVerifyChecksum(), RouterIngress(), RouterEgress(),
         RouterComputeChecksum(), RouterDeparser()) main;
