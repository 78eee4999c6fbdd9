// Tables with const entries (tuple keysets, masks, ranges, don't-cares, priorities),
// mutable entries, action annotations and assorted table properties.

#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<16> b;
    bit<32> c;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<8> x;
}

parser TParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control TIngress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    direct_counter(CounterType.packets) acl_counter;

    action set_x(bit<8> x) {
        meta.x = x;
    }

    action set_port(bit<9> port, bit<8> tag) {
        standard_metadata.egress_spec = port;
        meta.x = tag;
    }

    @noWarn("unused")
    action deny() {
        mark_to_drop(standard_metadata);
    }

    table acl {
        key = {
            hdr.h.a : ternary @name("h.a");
            hdr.h.b : range;
            @name("c_field") hdr.h.c : exact;
        }
        actions = {
            set_port;
            @tableonly deny;
            @defaultonly NoAction;
        }
        const entries = {
            (0x01 &&& 0x0F, 1 .. 10, 32w0) : set_port(1, 7);
            priority = 5 : (_, _, 32w1) : deny();
            priority = 3 : (default, 100 .. 200, _) : set_port(9w2, 8w0);
            (8w0x20, _, 5) : NoAction() @noWarn("unused");
        }
        const default_action = NoAction();
        counters = acl_counter;
        largest_priority_wins = false;
        priority_delta = 10;
        size = 64;
    }

    table exact_tbl {
        key = {
            hdr.h.a : exact;
        }
        actions = {
            set_x;
            NoAction;
        }
        entries = {
            const 1 : set_x(10);
            2 : set_x(20);
            priority = 7 : 3 : set_x(30);
        }
        default_action = set_x(0);
        implementation = action_profile(32w128);
        support_timeout = true;
    }

    table no_key {
        actions = {
            set_x;
        }
        default_action = set_x(8w1);
    }

    apply {
        if (!exact_tbl.apply().hit) {
            acl.apply();
        }
        switch (no_key.apply().action_run) {
            set_x: { }
        }
        if (acl.apply().miss) {
            meta.x = 0;
        }
    }
}

control TEgress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply { }
}

control TCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control TDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(TParser(), TVerify(), TIngress(), TEgress(), TCompute(), TDeparser()) main;
