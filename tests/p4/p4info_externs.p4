// P4Info of externs and everything around tables: counters, meters, registers, direct
// resources, action profiles and selectors, digests with their type_info, controller
// headers, value sets, @id, @name, @hidden, idle timeout, nested controls.

#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

typedef bit<9> port_t;

enum bit<8> Color {
    GREEN = 0,
    YELLOW = 1,
    RED = 2
}

@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    @id(4) bit<8> reason;
    Color color;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    @hidden bit<7> _pad;
}

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct learn_t {
    bit<48> src;
    port_t  port;
    Color   color;
    bool    flag;
    error   err;
}

@name("flow_event_t")
struct flow_digest_t {
    bit<32> flow;
}

struct pvs_t {
    @match(ternary) @brief("EtherType") bit<16> ether_type;
}

struct headers_t {
    packet_out_t packet_out;
    ethernet_t   ethernet;
}

struct metadata_t {
    bit<8>  tag;
    bit<16> group;
    bit<32> flow;
    bit<2>  color;
    learn_t learn;
}

counter<bit<8>>(256, CounterType.packets_and_bytes) global_counter;

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    value_set<pvs_t>(8) pvs;
    @brief("EtherTypes of tunnels")
    value_set<bit<16>>(4) tunnel_types;
    value_set<bit<16>>(2) unused_vs;

    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            pvs: accept;
            default: next;
        }
    }
    state next {
        transition select(hdr.ethernet.ether_type) {
            tunnel_types: accept;
            default: accept;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

// Called only from the body of another action: p4c inlines it there, so it is not part
// of any control and not in P4Info.
action set_tag(inout metadata_t m) {
    m.tag = 1;
}

control Stats(inout metadata_t meta, in port_t port) {
    counter<bit<32>>(32w512, CounterType.packets) port_packets;
    meter<bit<32>>(32w512, MeterType.bytes) port_meter;
    direct_meter<bit<2>>(MeterType.packets) flow_meter;

    action meter_flow() {
        flow_meter.read(meta.color);
    }

    table flows {
        key = {
            meta.flow : exact;
        }
        actions = {
            meter_flow;
        }
        meters = flow_meter;
        size = 2048;
    }

    apply {
        port_packets.count((bit<32>)port);
        port_meter.execute_meter((bit<32>)port, meta.color);
        flows.apply();
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    @id(9) counter<bit<32>>(32w1024, CounterType.bytes) port_bytes;
    register<bit<32>, bit<8>>(32w256) flow_reg;
    register<int<16>, bit<32>>(32w16) signed_reg;
    direct_counter(CounterType.packets) acl_hits;
    action_profile(32w64) nh_profile;
    @max_group_size(8)
    @selector_size_semantics("sum_of_members")
    @max_member_weight(100)
    @my_selector_note("spread")
    action_selector(HashAlgorithm.crc16, 32w128, 32w14) ecmp_selector;
    Stats() stats;
    Stats() never_applied;

    action set_nh(port_t port) {
        standard_metadata.egress_spec = port;
    }

    action learn() {
        meta.learn.src = hdr.ethernet.src;
        meta.learn.port = standard_metadata.ingress_port;
        digest<learn_t>(1, meta.learn);
    }

    action tag_packet() {
        set_tag(meta);
    }

    @id(0x5c560b) action squatter() { }
    action victim() { }

    @hidden action hidden_action() { }

    table acl {
        key = {
            hdr.ethernet.ether_type : ternary;
            meta.tag                : exact @id(5);
            meta.group              : exact;
        }
        actions = {
            learn;
            tag_packet;
            squatter;
            victim;
        }
        counters = acl_hits;
        support_timeout = true;
        entries = {
            (0x0800 &&& 0xffff, 1, 2) : learn();
        }
    }

    table ecmp {
        key = {
            meta.group : exact;
            meta.flow  : selector;
            meta.tag   : exact;
        }
        actions = {
            set_nh;
        }
        implementation = ecmp_selector;
    }

    @id(100)
    table nh_a {
        key = {
            meta.group : exact;
        }
        actions = {
            set_nh;
        }
        implementation = nh_profile;
    }

    @name(".nh_b_absolute")
    table nh_b {
        key = {
            meta.group : exact;
        }
        actions = {
            set_nh;
        }
        implementation = nh_profile;
    }

    table inline_impl {
        actions = {
            set_nh;
        }
        @name("inline_profile") implementation = action_profile(32w16);
        @name("inline_counter") counters = direct_counter(CounterType.packets_and_bytes);
    }

    apply {
        acl.apply();
        ecmp.apply();
        nh_a.apply();
        nh_b.apply();
        inline_impl.apply();
        stats.apply(meta, standard_metadata.ingress_port);
        hidden_action();
        global_counter.count(8w1);
        port_bytes.count(32w0);
        flow_reg.write(8w0, 32w1);
        signed_reg.write(32w0, 16s1);
        digest<flow_digest_t>(2, { meta.flow });
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

@pkginfo(name = "p4info_externs.p4", version = "2")
@brief("P4Info test program")
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
