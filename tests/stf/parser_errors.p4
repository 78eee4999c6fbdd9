/* STF suite: parser errors reach ingress (v1model / BMv2 simple_switch semantics).
 *
 * A parser error does not drop the packet: ingress runs with
 * standard_metadata.parser_error set, the headers extracted before the error stay
 * valid and the unparsed rest of the packet is payload. Ingress sends each error to
 * its own port, so the output shows which error the parser raised.
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

struct headers_t {
    ethernet_t ethernet;
    mpls_t[2]  mpls;
}

struct metadata_t { }

parser ErrParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        // No default: other EtherTypes raise error.NoMatch.
        transition select(hdr.ethernet.ether_type) {
            0x8847: parse_mpls;
            0x0800: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);  // a third label raises error.StackOutOfBounds
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: accept;
        }
    }
}

control ErrVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ErrIngress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
    apply {
        if (std.parser_error == error.NoError) {
            std.egress_spec = 1;
        } else if (std.parser_error == error.PacketTooShort) {
            std.egress_spec = 2;
        } else if (std.parser_error == error.NoMatch) {
            std.egress_spec = 3;
        } else if (std.parser_error == error.StackOutOfBounds) {
            std.egress_spec = 4;
        } else {
            std.egress_spec = 5;
        }
    }
}

control ErrEgress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply { }
}

control ErrCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ErrDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.mpls);
    }
}

V1Switch(ErrParser(), ErrVerify(), ErrIngress(), ErrEgress(), ErrCompute(),
         ErrDeparser()) main;
