/* The program of the `cli` command's tests (tests/test_runtime_cli.py): an IPv6
 * router with exact, LPM, ternary + range and indirect (action selector) tables, a
 * direct counter, an indexed counter, meter and register, multicast and cloning,
 * so that every simple_switch_CLI command has something to act on. */
#include <core.p4>
#include <v1model.p4>

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
    bit<32> color;
}

parser CliParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
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

control CliVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control CliIngress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
    counter(64, CounterType.packets_and_bytes) port_in;
    meter(64, MeterType.packets) port_meter;
    register<bit<32>>(64) last_len;
    direct_counter(CounterType.packets_and_bytes) nexthop_hits;
    action_selector(HashAlgorithm.crc16, 32w32, 32w16) wcmp_selector;

    action drop() {
        mark_to_drop(std);
    }
    action set_nexthop(bit<16> nexthop) {
        meta.nexthop = nexthop;
    }
    action flood(bit<16> group) {
        std.mcast_grp = group;
    }
    action forward(bit<9> port, bit<48> dmac, bit<48> smac) {
        std.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ethernet.src_addr = smac;
    }
    action mirror(bit<32> session) {
        clone(CloneType.I2E, session);
    }

    table ipv6_lpm {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { set_nexthop; flood; drop; }
        default_action = drop();
    }
    table nexthop {
        key = { meta.nexthop: exact; }
        actions = { forward; drop; }
        default_action = drop();
        counters = nexthop_hits;
    }
    table acl {
        key = {
            hdr.ipv6.src_addr: ternary;
            std.ingress_port: range;
        }
        actions = { drop; mirror; NoAction; }
        default_action = NoAction();
    }
    table wcmp {
        key = {
            hdr.ipv6.flow_label: exact;
            hdr.ipv6.src_addr: selector;
        }
        actions = { forward; NoAction; }
        implementation = wcmp_selector;
    }

    apply {
        port_in.count((bit<32>) std.ingress_port);
        port_meter.execute_meter((bit<32>) std.ingress_port, meta.color);
        last_len.write((bit<32>) std.ingress_port, std.packet_length);
        if (!hdr.ipv6.isValid()) {
            drop();
            return;
        }
        if (ipv6_lpm.apply().hit) {
            nexthop.apply();
        }
        wcmp.apply();
        acl.apply();
    }
}

control CliEgress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply { }
}

control CliCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control CliDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(CliParser(), CliVerify(), CliIngress(), CliEgress(), CliCompute(),
         CliDeparser()) main;
