/* a_header_union: a header_union with two members; the parser extracts one of them,
 * ingress tests member validity and union validity, and replaces one member by the
 * other with setValid (which invalidates the other member). Emit of a union writes
 * its valid member.
 */
#include <core.p4>
#include <v1model.p4>

header sel_t {
    bit<8> type;
}

header v4_t {
    bit<8> a;
    bit<8> b;
}

header v6_t {
    bit<32> c;
}

header_union ip_u {
    v4_t v4;
    v6_t v6;
}

struct headers_t {
    sel_t sel;
    ip_u  ip;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.sel);
        transition select(hdr.sel.type) {
            4: parse_v4;
            6: parse_v6;
            default: accept;
        }
    }
    state parse_v4 {
        pkt.extract(hdr.ip.v4);
        transition accept;
    }
    state parse_v6 {
        pkt.extract(hdr.ip.v6);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        if (!hdr.ip.isValid()) {
            hdr.sel.type = 0xFF;
            std.egress_spec = 4;
        } else if (hdr.ip.v4.isValid()) {
            if (hdr.ip.v4.a == 0xCC) {
                bit<16> t = hdr.ip.v4.a ++ hdr.ip.v4.b;
                hdr.ip.v6.setValid();
                hdr.ip.v6.c = t ++ 16w0xFFFF;
                hdr.sel.type = 6;
                std.egress_spec = 3;
            } else {
                hdr.ip.v4.b = hdr.ip.v4.b + 1;
                std.egress_spec = 1;
            }
        } else if (hdr.ip.v6.isValid()) {
            hdr.ip.v6.c = hdr.ip.v6.c + 1;
            std.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.sel);
        pkt.emit(hdr.ip);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
