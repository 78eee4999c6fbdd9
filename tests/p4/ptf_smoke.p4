/* The program of the PTF smoke suite (ptf_tests/smoke/): a small v1model L2/L3 switch
 * that exercises what a P4Runtime target must get right, written for p4c-bm2-ss and bm
 * alike (standard P4_16 + v1model only).
 *
 *   - controller headers: packet_out (egress_port) / packet_in (ingress_port, reason);
 *   - ipv4_lpm (LPM on the IPv4 destination): route() rewrites the MACs and decrements
 *     the TTL (checksum recomputed); a miss falls back to L2;
 *   - l2_fwd (exact on the destination MAC, direct counter l2_fwd_counter): forward to a
 *     port, multicast to a group, or send to the CPU with a reason; default drop;
 *   - smac (exact on the source MAC): an unknown source sends a learn digest
 *     {src_addr, ingress_port};
 *   - acl (ternary on ingress port and EtherType, priorities): clone I2E to a session,
 *     punt to the CPU, or nothing;
 *   - indexed counter rx_port_counter[ingress_port], register last_length[ingress_port];
 *   - egress: a multicast replica gets its egress_rid in the low 16 bits of the source
 *     MAC; an I2E clone gets source MAC CLONE_MAC; packets to the CPU get packet_in.
 */
#include <core.p4>
#include <v1model.p4>

const bit<9>  CPU_PORT = 255;
const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<48> CLONE_MAC = 0x02_00_00_00_c1_0e;
const bit<32> PKT_INSTANCE_TYPE_INGRESS_CLONE = 1;

const bit<8> REASON_L2_TO_CPU = 1;
const bit<8> REASON_ACL_PUNT = 2;

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<8> reason;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
    ipv4_t       ipv4;
}

struct learn_digest_t {
    bit<48> src_addr;
    bit<9>  ingress_port;
}

struct metadata_t {
    bit<8>         punt_reason;
    learn_digest_t learn;
}

parser SmokeParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
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
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control SmokeVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control SmokeIngress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t std) {
    counter(512, CounterType.packets_and_bytes) rx_port_counter;
    direct_counter(CounterType.packets_and_bytes) l2_fwd_counter;
    register<bit<32>>(512) last_length;

    action drop() {
        mark_to_drop(std);
    }
    action forward(bit<9> port) {
        std.egress_spec = port;
    }
    action set_mcast_grp(bit<16> group) {
        std.mcast_grp = group;
    }
    action send_to_cpu(bit<8> reason) {
        std.egress_spec = CPU_PORT;
        meta.punt_reason = reason;
    }
    action route(bit<9> port, bit<48> dst_mac, bit<48> src_mac) {
        std.egress_spec = port;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action learn() {
        meta.learn.src_addr = hdr.ethernet.src_addr;
        meta.learn.ingress_port = std.ingress_port;
        digest<learn_digest_t>(1, meta.learn);
    }
    action clone_to_session(bit<32> session) {
        clone(CloneType.I2E, session);
    }
    action punt() {
        std.egress_spec = CPU_PORT;
        meta.punt_reason = REASON_ACL_PUNT;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { route; drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table l2_fwd {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { forward; set_mcast_grp; send_to_cpu; drop; }
        default_action = drop();
        counters = l2_fwd_counter;
        size = 1024;
    }
    table smac {
        key = { hdr.ethernet.src_addr: exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        size = 1024;
    }
    table acl {
        key = {
            std.ingress_port: ternary;
            hdr.ethernet.ether_type: ternary;
        }
        actions = { clone_to_session; punt; NoAction; }
        default_action = NoAction();
        size = 256;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            std.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        rx_port_counter.count((bit<32>) std.ingress_port);
        last_length.write((bit<32>) std.ingress_port, std.packet_length);
        smac.apply();
        bool routed = false;
        if (hdr.ipv4.isValid()) {
            switch (ipv4_lpm.apply().action_run) {
                route: { routed = true; }
                drop: { routed = true; }
                default: { }
            }
        }
        if (!routed) {
            l2_fwd.apply();
        }
        acl.apply();
    }
}

control SmokeEgress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    apply {
        if (std.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
            hdr.ethernet.src_addr = CLONE_MAC;
        } else if (std.egress_rid != 0) {
            hdr.ethernet.src_addr[15:0] = std.egress_rid;
        }
        if (std.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = std.ingress_port;
            hdr.packet_in.reason = meta.punt_reason;
            hdr.packet_in._pad = 0;
        }
    }
}

control SmokeComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control SmokeDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(SmokeParser(), SmokeVerifyChecksum(), SmokeIngress(), SmokeEgress(),
         SmokeComputeChecksum(), SmokeDeparser()) main;
