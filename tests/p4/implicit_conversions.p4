/* implicit_conversions: p4c's implicit conversions that bm used to refuse.
 * - A serializable enum operand is cast to its underlying type by every operator
 *   (p4c's enumCast.p4, issue3056.p4, issue3635.p4): +, unary -, ++, a slice, ==
 *   between two enum types.
 * - A declared `int` takes a known bit<W> value (issue2444.p4): K is 7.
 * - `++` joins two strings (issue4932.p4), folded or at run time in say().
 */
#include <core.p4>
#include <v1model.p4>

enum bit<8> E1 { x = 1, y = 2 }
enum bit<8> E2 { x = 1, y = 10 }

const int K = 8w7;

void say(string what) { log_msg("implicit" ++ what); }

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  sum;   // a + E1.y
    bit<8>  neg;   // -a
    bit<16> cat;   // a ++ E2.y
    bit<4>  lo;    // a[3:0]
    bit<4>  pad;
    bit<8>  eq;    // a == E2.x (1), as numbers
    bit<8>  k;     // K + b
}

struct headers_t { h_t h; }
struct metadata_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t std) {
    apply {
        E1 e = (E1)hdr.h.a;
        hdr.h.sum = e + E1.y;
        hdr.h.neg = -e;
        hdr.h.cat = e ++ E2.y;
        hdr.h.lo = e[3:0];
        hdr.h.eq = e == E2.x ? 8w1 : 8w0;
        hdr.h.k = K + hdr.h.b;
        log_msg("implicit" ++ " conversions");
        say(" conversions, again");
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.h); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
