/* STF suite: comparisons of enum-typed fields with enum members.
 *
 * meta.color (a serializable enum, bit<8>) is cast from a header field, meta.mode (a
 * plain enum) is assigned in ingress; both are compared with members. The output port
 * encodes the outcome. (Error-typed fields: see parser_errors.p4.)
 */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Color { RED = 1, GREEN = 2, BLUE = 3 }
enum Mode { FAST, SLOW }

header h_t {
    bit<8> kind;
    bit<8> color;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    Color color;
    Mode  mode;
}

parser EnumParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control EnumVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control EnumIngress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t std) {
    apply {
        meta.color = (Color)hdr.h.color;
        if (hdr.h.kind == 0) {
            meta.mode = Mode.FAST;
        } else {
            meta.mode = Mode.SLOW;
        }
        if (meta.color == Color.GREEN) {
            std.egress_spec = 2;
        } else if (meta.color == Color.BLUE) {
            std.egress_spec = 3;
        } else if (meta.mode == Mode.SLOW) {
            std.egress_spec = 5;
        } else {
            std.egress_spec = 4;
        }
    }
}

control EnumEgress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t std) {
    apply { }
}

control EnumCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control EnumDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(EnumParser(), EnumVerify(), EnumIngress(), EnumEgress(), EnumCompute(),
         EnumDeparser()) main;
