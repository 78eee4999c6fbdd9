/* Action profiles and selectors for the P4Runtime server tests: a plain action profile
 * shared by two tables, a selector with sum_of_weights semantics and a max_group_size,
 * and one with sum_of_members semantics and a max_member_weight. Every selector hashes
 * h.b with the identity algorithm, so a group picks member (h.b % total weight). */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser ProfParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control ProfVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control ProfIngress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    action fwd(bit<9> port) {
        std.egress_spec = port;
    }

    action set_b(bit<8> b) {
        hdr.h.b = b;
        std.egress_spec = 9;
    }

    action_profile(32w4) prof;

    @max_group_size(4)
    action_selector(HashAlgorithm.identity, 32w16, 32w8) sel;

    @max_group_size(3)
    @selector_size_semantics("sum_of_members")
    @max_member_weight(5)
    action_selector(HashAlgorithm.identity, 32w16, 32w8) sel_m;

    table by_profile {
        key = { hdr.h.a: exact; }
        actions = { fwd; set_b; }
        implementation = prof;
    }

    table by_profile_too {
        key = { hdr.h.a: exact; }
        actions = { fwd; set_b; }
        implementation = prof;
    }

    table by_selector {
        key = {
            hdr.h.a: exact;
            hdr.h.b: selector;
        }
        actions = { fwd; set_b; }
        implementation = sel;
    }

    table by_members {
        key = {
            hdr.h.a: exact;
            hdr.h.b: selector;
        }
        actions = { fwd; }
        implementation = sel_m;
    }

    apply {
        by_profile.apply();
        by_profile_too.apply();
        by_selector.apply();
        by_members.apply();
    }
}

control ProfEgress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) { apply { } }

control ProfCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control ProfDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(ProfParser(), ProfVerify(), ProfIngress(), ProfEgress(), ProfCompute(),
         ProfDeparser()) main;
