/* Robustness test program (tests/test_robustness.py): a v1model parser over six header
 * types plus an MPLS label stack and a varbit IPv4 options field, a few forwarding
 * tables, checksum verify/update and a deparser that emits everything valid.
 *
 * Parse graph:
 *   ethernet -> vlan (0x8100, optional) -> mpls* (0x8847, up to 3 labels)
 *            -> ipv4 (0x0800, + varbit options when ihl > 5) | ipv6 (0x86dd)
 *            -> tcp (6) | udp (17)
 * After the bottom MPLS label the first nibble of the rest (lookahead) picks IPv4 or
 * IPv6. IPv4 with a non-zero fragment offset stops at layer 3.
 *
 * The test's reference model (written in Python with scapy) follows exactly this
 * program, so keep the two in step when changing it.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETYPE_IPV4 = 0x0800;
const bit<16> ETYPE_IPV6 = 0x86dd;
const bit<16> ETYPE_VLAN = 0x8100;
const bit<16> ETYPE_MPLS = 0x8847;
const bit<8>  PROTO_TCP  = 6;
const bit<8>  PROTO_UDP  = 17;

error { IPv4BadVersion, IPv4BadIhl }

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
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

header ipv4_options_t {
    varbit<320> options;   // (ihl - 5) 32-bit words, at most 10
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

header tcp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

struct headers_t {
    ethernet_t     ethernet;
    vlan_t         vlan;
    mpls_t[3]      mpls;
    ipv4_t         ipv4;
    ipv4_options_t ipv4_options;
    ipv6_t         ipv6;
    tcp_t          tcp;
    udp_t          udp;
}

struct metadata_t { }

parser RobustParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETYPE_VLAN: parse_vlan;
            ETYPE_MPLS: parse_mpls;
            ETYPE_IPV4: parse_ipv4;
            ETYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETYPE_MPLS: parse_mpls;
            ETYPE_IPV4: parse_ipv4;
            ETYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);   // a fourth label: error.StackOutOfBounds
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: parse_mpls_payload;
        }
    }
    state parse_mpls_payload {
        transition select(pkt.lookahead<bit<4>>()) {
            4: parse_ipv4;
            6: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.IPv4BadVersion);
        verify(hdr.ipv4.ihl >= 5, error.IPv4BadIhl);
        transition select(hdr.ipv4.ihl) {
            5: parse_ipv4_l4;
            default: parse_ipv4_options;
        }
    }
    state parse_ipv4_options {
        pkt.extract(hdr.ipv4_options, ((bit<32>)hdr.ipv4.ihl - 5) * 32);
        transition parse_ipv4_l4;
    }
    state parse_ipv4_l4 {
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (0, PROTO_TCP): parse_tcp;
            (0, PROTO_UDP): parse_udp;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control RobustVerify(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // Invalid headers (here: absent options) contribute nothing to the data.
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4_options },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control RobustIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t std) {
    action drop() {
        mark_to_drop(std);
    }
    action l2_forward(bit<9> port) {
        std.egress_spec = port;
    }
    action route(bit<9> port, bit<48> dmac) {
        std.egress_spec = port;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dmac;
    }
    action set_vid(bit<12> vid) {
        hdr.vlan.vid = vid;
    }
    action mpls_swap(bit<20> label) {
        hdr.mpls[0].label = label;
        hdr.mpls[0].ttl = hdr.mpls[0].ttl - 1;
    }

    // Overlapping ternary rules: priorities decide.
    table l2 {
        key = { hdr.ethernet.dst_addr: ternary; }
        actions = { l2_forward; drop; }
        default_action = drop();
    }
    table vlan_map {
        key = { hdr.vlan.vid: exact; }
        actions = { set_vid; NoAction; }
        default_action = NoAction();
    }
    table mpls_lfib {
        key = { hdr.mpls[0].label: exact; }
        actions = { mpls_swap; NoAction; }
        default_action = NoAction();
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { route; NoAction; }
        default_action = NoAction();
    }
    table ipv6_lpm {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { route; NoAction; }
        default_action = NoAction();
    }

    apply {
        if (!hdr.ethernet.isValid()) {
            drop();
            return;
        }
        l2.apply();
        if (hdr.vlan.isValid()) {
            vlan_map.apply();
        }
        if (hdr.mpls[0].isValid()) {
            mpls_lfib.apply();
        }
        if (hdr.ipv4.isValid()) {
            if (std.checksum_error == 0) {
                if (ipv4_lpm.apply().hit) {
                    hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
                }
            }
        } else if (hdr.ipv6.isValid()) {
            if (ipv6_lpm.apply().hit) {
                hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
            }
        }
        if (hdr.udp.isValid() && hdr.ipv4.isValid()) {
            hdr.udp.checksum = 0;   // optional over IPv4 (RFC 768)
        }
        // Tag parser errors in the source MAC so the output shows which one was raised.
        if (std.parser_error == error.PacketTooShort) {
            hdr.ethernet.src_addr = 0xee0000000001;
        } else if (std.parser_error == error.StackOutOfBounds) {
            hdr.ethernet.src_addr = 0xee0000000002;
        } else if (std.parser_error == error.IPv4BadVersion) {
            hdr.ethernet.src_addr = 0xee0000000003;
        } else if (std.parser_error == error.IPv4BadIhl) {
            hdr.ethernet.src_addr = 0xee0000000004;
        } else if (std.parser_error != error.NoError) {
            hdr.ethernet.src_addr = 0xee00000000ff;
        }
    }
}

control RobustEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t std) {
    apply { }
}

control RobustCompute(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4_options },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control RobustDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.mpls);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv4_options);
        pkt.emit(hdr.ipv6);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

V1Switch(RobustParser(), RobustVerify(), RobustIngress(), RobustEgress(), RobustCompute(),
         RobustDeparser()) main;
