/* crc32_custom with BMv2's default parameters (those of crc32): the same results as b_hash_crc32. hash() with HashAlgorithm.crc32: three results written into the out header.
 *   r1 = hash({e, f}), base 0, max 2^32    (the raw hash value)
 *   r2 = 100 + hash({a, b, c, d}) % 1000                (24 bits, fields not byte-aligned)
 *   r3 = 0x8000 + hash({a, c}) % 0x7fff                 (7 bits of data)
 */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<4>  a;
    bit<12> b;
    bit<3>  c;
    bit<5>  d;
    bit<16> e;
    bit<32> f;
}

header out_t {
    bit<32> r1;
    bit<16> r2;
    bit<16> r3;
}

struct headers_t {
    in_t  i;
    out_t o;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        pkt.extract(hdr.o);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hash(hdr.o.r1, HashAlgorithm.crc32_custom, 32w0, { hdr.i.e, hdr.i.f }, 64w0x100000000);
        hash(hdr.o.r2, HashAlgorithm.crc32_custom, 16w100,
             { hdr.i.a, hdr.i.b, hdr.i.c, hdr.i.d }, 32w1000);
        hash(hdr.o.r3, HashAlgorithm.crc32_custom, 16w0x8000, { hdr.i.a, hdr.i.c }, 16w0x7fff);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
