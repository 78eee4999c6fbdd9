// P4Info of tables and actions: names, aliases, match kinds, default actions, scopes,
// const entries, documentation and annotations. The expected P4Info is
// p4info_basic.p4info.txtpb, written by hand from p4c's conventions.

#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv6_t {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    bit<128> src;
    bit<128> dst;
}

struct headers_t {
    ethernet_t ethernet;
    ipv6_t     ipv6;
}

struct metadata_t {
    bit<16> vrf;
    bit<8>  class;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x86dd: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

// A top-level action keeps its bare name.
action drop_packet(inout standard_metadata_t sm) {
    mark_to_drop(sm);
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    action on_miss() { }

    @brief("Send the packet out of a port")
    @description("Sets egress_spec; the MAC addresses are rewritten too")
    action set_next_hop(@brief("output port") bit<9> port, bit<48> dmac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dst = dmac;
    }

    @name("set_vrf_id") action set_vrf(bit<16> vrf) {
        meta.vrf = vrf;
    }

    action set_class(bit<8> class) {
        meta.class = class;
    }

    // Declared but never used: left out of P4Info.
    action unused_action() { }

    table vrf_map {
        key = {
            standard_metadata.ingress_port : exact;
        }
        actions = {
            set_vrf;
        }
        size = 512;
    }

    @my_anno
    table ipv6_lpm {
        key = {
            meta.vrf      : exact @name("vrf");
            hdr.ipv6.dst  : lpm;
        }
        actions = {
            set_next_hop;
            @defaultonly on_miss;
            @tableonly drop_packet(standard_metadata);
        }
        default_action = on_miss();
        size = 4096;
    }

    table classifier {
        key = {
            hdr.ipv6.traffic_class : ternary;
            hdr.ipv6.flow_label    : range;
            hdr.ipv6.next_hdr      : optional;
            hdr.ipv6.isValid()     : exact;
        }
        actions = {
            set_class;
            NoAction;
        }
        const default_action = set_class(8w3);
        const entries = {
            (0x20 &&& 0xe0, 1 .. 10, 6, true) : set_class(1);
            (_, _, _, true) : NoAction();
        }
    }

    @hidden
    table hidden_tbl {
        actions = { on_miss; }
    }

    apply {
        vrf_map.apply();
        if (hdr.ipv6.isValid()) {
            ipv6_lpm.apply();
            classifier.apply();
        }
        hidden_tbl.apply();
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    action on_miss() { }

    action rewrite_src(bit<48> smac) {
        hdr.ethernet.src = smac;
    }

    table rewrite_mac {
        key = {
            standard_metadata.egress_port : exact;
        }
        actions = {
            rewrite_src;
            on_miss;
        }
    }

    apply {
        rewrite_mac.apply();
    }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
