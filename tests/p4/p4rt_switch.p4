/* A small L2 switch for the P4Runtime server tests: packet-in/out through controller
 * headers, a digest, an indexed counter, meter and register, a direct counter and a
 * direct meter, multicast, and a parser value set. */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;
const bit<9> SPECIAL_PORT = 7;

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct learn_t {
    bit<48> src_addr;
    bit<9>  port;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
}

struct metadata_t {
    bit<1>  special;
    bit<2>  color;
    learn_t learn;
}

parser SwParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    value_set<bit<16>>(4) special_types;

    state start {
        transition select(std.ingress_port) {
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
            special_types: parse_special;
            default: accept;
        }
    }
    state parse_special {
        meta.special = 1;
        transition accept;
    }
}

control SwVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control SwIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    counter(512, CounterType.packets_and_bytes) port_pkts;
    meter(512, MeterType.packets) port_meter;
    register<bit<32>>(512) last_len;
    direct_counter(CounterType.packets_and_bytes) l2_hits;
    direct_meter<bit<2>>(MeterType.bytes) acl_meter;

    action drop() {
        mark_to_drop(std);
    }
    action forward(bit<9> port) {
        std.egress_spec = port;
        l2_hits.count();
    }
    action flood(bit<16> group) {
        std.mcast_grp = group;
        l2_hits.count();
    }
    action to_cpu() {
        std.egress_spec = CPU_PORT;
        l2_hits.count();
    }
    action l2_miss() {
        mark_to_drop(std);
        l2_hits.count();
    }
    action learn() {
        meta.learn.src_addr = hdr.ethernet.src_addr;
        meta.learn.port = std.ingress_port;
        digest<learn_t>(1, meta.learn);
    }
    action acl_pass() {
        acl_meter.read(meta.color);
    }
    action acl_drop() {
        acl_meter.read(meta.color);
        mark_to_drop(std);
    }

    table l2 {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { forward; flood; to_cpu; l2_miss; @defaultonly drop; }
        default_action = drop();
        counters = l2_hits;
        size = 64;
    }
    table smac {
        key = { hdr.ethernet.src_addr: exact; }
        actions = { NoAction; learn; }
        default_action = learn();
    }
    table acl {
        key = {
            hdr.ethernet.ether_type: ternary;
            hdr.ethernet.src_addr: lpm;
        }
        actions = { acl_pass; acl_drop; }
        default_action = acl_pass();
        meters = acl_meter;
    }
    table fixed {
        key = { hdr.ethernet.ether_type: exact; }
        actions = { drop; NoAction; }
        const entries = {
            0x0bad: drop();
        }
        const default_action = NoAction();
    }

    apply {
        if (hdr.packet_out.isValid()) {
            std.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            return;
        }
        port_pkts.count((bit<32>)std.ingress_port);
        port_meter.execute_meter((bit<32>)std.ingress_port, meta.color);
        last_len.write((bit<32>)std.ingress_port, std.packet_length);
        if (meta.special == 1) {
            std.egress_spec = SPECIAL_PORT;
            return;
        }
        smac.apply();
        l2.apply();
        acl.apply();
        fixed.apply();
    }
}

control SwEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    apply {
        if (std.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = std.ingress_port;
            hdr.packet_in._pad = 0;
        }
    }
}

control SwCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control SwDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(SwParser(), SwVerify(), SwIngress(), SwEgress(), SwCompute(), SwDeparser()) main;
