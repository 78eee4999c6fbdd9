// Parser-heavy program: header stacks, varbit options, header unions, value_set,
// select with tuples, masks, ranges and don't-cares, lookahead and sub-parsers.

#include <v1model.p4>

#define MAX_LABELS 4

error {
    BadIpv4Version,
    TooManyLabels
}

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3> tc;
    bit<1> bos;
    bit<8> ttl;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3> flags;
    bit<13> frag_offset;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header ipv4_options_t {
    varbit<320> options;
}

header ipv6_t {
    bit<4> version;
    bit<8> traffic_class;
    bit<20> flow_label;
    bit<16> payload_len;
    bit<8> next_hdr;
    bit<8> hop_limit;
    bit<128> src_addr;
    bit<128> dst_addr;
}

header_union ip_t {
    ipv4_t v4;
    ipv6_t v6;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length_;
    bit<16> checksum;
}

struct headers_t {
    ethernet_t ethernet;
    mpls_t[MAX_LABELS] mpls;
    ip_t ip;
    ipv4_options_t ipv4_options;
    udp_t udp;
}

struct metadata_t {
    bit<8> label_count;
    bit<4> first_nibble;
}

parser UdpParser(packet_in pkt, inout headers_t hdr) {
    state start {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

parser HeavyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    const bit<16> TYPE_MPLS = 0x8847;
    value_set<bit<16>>(4) tunnel_types;
    value_set<tuple<bit<8>, bit<16>>>(8) port_pairs;
    UdpParser() udp_parser;
    bit<8> tmp;

    state start {
        meta.label_count = 0;
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_MPLS: parse_mpls;
            0x0800 &&& 0xFFFF: parse_ip;
            0x86DD: parse_ip;
            tunnel_types: parse_mpls;
            0x9000 .. 0x90FF: accept;
            _: reject;
        }
    }

    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        meta.label_count = meta.label_count + 1;
        verify(meta.label_count <= MAX_LABELS, error.TooManyLabels);
        transition select(hdr.mpls.last.bos, hdr.mpls.lastIndex) {
            (0, _): parse_mpls;
            (1, 0 .. 3): parse_ip;
            (_, _): reject;
        }
    }

    state parse_ip {
        meta.first_nibble = pkt.lookahead<bit<4>>();
        tmp = pkt.lookahead<ethernet_t>().ether_type[7:0];
        transition select(meta.first_nibble) {
            4w4: parse_ipv4;
            6: parse_ipv6;
            default: reject;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ip.v4);
        verify(hdr.ip.v4.version == 4, error.BadIpv4Version);
        bit<32> opt_bits = ((bit<32>)hdr.ip.v4.ihl - 5) * 32;
        if (hdr.ip.v4.ihl > 5) {
            pkt.extract(hdr.ipv4_options, opt_bits);
        }
        transition select(hdr.ip.v4.protocol, hdr.ip.v4.frag_offset) {
            (17, 0): parse_udp;
            (8w6 &&& 8w0xFF, _): accept;
            (default): accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ip.v6);
        transition select(hdr.ip.v6.next_hdr) {
            17: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        udp_parser.apply(pkt, hdr);
        transition select(hdr.ip.v4.protocol, hdr.udp.dst_port) {
            port_pairs: accept;
            default: accept;
        }
    }
}

control NoVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackIngress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply {
        if (hdr.mpls[0].isValid() && hdr.mpls.size == MAX_LABELS) {
            hdr.mpls.pop_front(1);
        } else {
            hdr.mpls.push_front(1);
            hdr.mpls[0].setValid();
            hdr.mpls[0].label = 20w100;
        }
    }
}

control NoEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(HeavyParser(), NoVerify(), StackIngress(), NoEgress(), NoCompute(),
         StackDeparser()) main;
