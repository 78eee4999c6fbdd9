/* a_parser_union_stack: a stack of header unions. The parser extracts into a member of
 * the next union (`s.next.a` / `s.next.b`), reads `s.last` and `s.lastIndex`; a fourth
 * element overflows the stack. Ingress tests member and union validity, then
 * push_front + setValid of a member, or pop_front; the deparser emits the stack.
 */
#include <core.p4>
#include <v1model.p4>

header info_t {
    bit<8> count;
    bit<8> sum;
    bit<8> err;
}

header a_t {
    bit<8> kind;
    bit<8> a;
}

header b_t {
    bit<8>  kind;
    bit<16> b;
}

header end_t {
    bit<8> e;
}

header_union u_t {
    a_t a;
    b_t b;
}

struct headers_t {
    info_t info;
    u_t[3] s;
    end_t  end;
}

struct metadata_t {
    bit<8> count;
    bit<8> sum;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            1: parse_a;
            2: parse_b;
            default: parse_end;
        }
    }
    state parse_a {
        pkt.extract(hdr.s.next.a);
        meta.sum = meta.sum + hdr.s.last.a.a;
        meta.count = (bit<8>) (hdr.s.lastIndex + 1);
        transition start;
    }
    state parse_b {
        pkt.extract(hdr.s.next.b);
        meta.sum = meta.sum + (bit<8>) hdr.s.last.b.b;
        meta.count = (bit<8>) (hdr.s.lastIndex + 1);
        transition start;
    }
    state parse_end {
        pkt.extract(hdr.end);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        hdr.info.setValid();
        hdr.info.count = meta.count;
        hdr.info.sum = meta.sum;
        hdr.info.err = std.parser_error == error.StackOutOfBounds ? 8w1 : 8w0;
        if (hdr.s[0].a.isValid()) {
            hdr.s.push_front(1);
            hdr.s[0].b.setValid();
            hdr.s[0].b.kind = 2;
            hdr.s[0].b.b = 0xBEEF;
        } else if (hdr.s[0].isValid()) {
            hdr.s.pop_front(1);
        }
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.info);
        pkt.emit(hdr.s);
        pkt.emit(hdr.end);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
