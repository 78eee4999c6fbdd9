/* a_parser_verify: verify(cond, err) with program-declared errors. A failing verify
 * sets standard_metadata.parser_error and leaves the parser (rest of the state is not
 * executed); with v1model the packet still goes through ingress, which writes a
 * code for the error into the header.
 */
#include <core.p4>
#include <v1model.p4>

error { BadVersion, BadLength }

header h_t {
    bit<8> version;
    bit<8> len;
    bit<8> code;
    bit<4> after1;
    bit<4> after2;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<4> after1;
    bit<4> after2;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        verify(hdr.h.version == 1, error.BadVersion);
        meta.after1 = 1;
        verify(hdr.h.len <= 4, error.BadLength);
        meta.after2 = 1;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        error e = std.parser_error;
        if (e == error.NoError) {
            hdr.h.code = 0;
        } else if (e == error.BadVersion) {
            hdr.h.code = 1;
        } else if (e == error.BadLength) {
            hdr.h.code = 2;
        } else {
            hdr.h.code = 0xFF;
        }
        hdr.h.after1 = meta.after1;
        hdr.h.after2 = meta.after2;
        std.egress_spec = (bit<9>)hdr.h.code + 1;
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
