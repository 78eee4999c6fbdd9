/* STF suite: an IPv4 ACL on a ternary table with priorities.
 *
 * The acl table matches source/destination addresses, protocol and L4 destination
 * port with ternary keys. Overlapping entries are ranked by priority (the larger STF
 * priority wins). set_dscp_and_permit rewrites the DSCP, so the IPv4 header checksum
 * is recomputed in ComputeChecksum. Non-IPv4 frames and misses are dropped.
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
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

// The ports shared by TCP and UDP; the rest of the L4 header stays payload.
header l4_ports_t {
    bit<16> src_port;
    bit<16> dst_port;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    l4_ports_t l4;
}

struct metadata_t { }

parser AclParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            6: parse_l4;
            17: parse_l4;
            default: accept;
        }
    }
    state parse_l4 {
        pkt.extract(hdr.l4);
        transition accept;
    }
}

control AclVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control AclIngress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
    action permit(bit<9> port) {
        std.egress_spec = port;
    }
    action deny() {
        mark_to_drop(std);
    }
    action set_dscp_and_permit(bit<6> dscp, bit<9> port) {
        hdr.ipv4.dscp = dscp;
        std.egress_spec = port;
    }
    table acl {
        key = {
            hdr.ipv4.src_addr: ternary;
            hdr.ipv4.dst_addr: ternary;
            hdr.ipv4.protocol: ternary;
            hdr.l4.dst_port:   ternary;
        }
        actions = { permit; deny; set_dscp_and_permit; }
        default_action = deny();
    }
    apply {
        if (hdr.ipv4.isValid()) {
            acl.apply();
        } else {
            deny();
        }
    }
}

control AclEgress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply { }
}

control AclCompute(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control AclDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.l4);
    }
}

V1Switch(AclParser(), AclVerify(), AclIngress(), AclEgress(), AclCompute(),
         AclDeparser()) main;
