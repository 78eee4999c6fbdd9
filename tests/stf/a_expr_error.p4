/* a_expr_error: values of type error: a program-declared error, local error
 * variables, == and != between them and with standard_metadata.parser_error
 * (here error.NoMatch, raised by a select without default).
 */
#include <core.p4>
#include <v1model.p4>

error { MyErr }

header h_t {
    bit<8> a;
    bit<8> b;
    bit<1> is_no_error;
    bit<1> is_my_err;
    bit<1> is_no_match;
    bit<1> same_as_parser;
    bit<1> parser_no_match;
    bit<1> differs;
    bit<2> pad;
}

struct headers_t {
    h_t h;
}

struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.b) {
            0: accept;
            1: accept;
        }
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        error e = error.NoError;
        if (hdr.h.a == 1) {
            e = error.MyErr;
        } else if (hdr.h.a == 2) {
            e = error.NoMatch;
        }
        hdr.h.is_no_error = (e == error.NoError) ? 1w1 : 1w0;
        hdr.h.is_my_err = (e == error.MyErr) ? 1w1 : 1w0;
        hdr.h.is_no_match = (e == error.NoMatch) ? 1w1 : 1w0;
        hdr.h.same_as_parser = (e == std.parser_error) ? 1w1 : 1w0;
        hdr.h.parser_no_match = (std.parser_error == error.NoMatch) ? 1w1 : 1w0;
        hdr.h.differs = (e != std.parser_error) ? 1w1 : 1w0;
        hdr.h.pad = 0;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
