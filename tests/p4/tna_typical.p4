// A TNA program using what typical Tofino programs use (hash, checksums, digests,
// meters, direct counters, an action selector): our tna.p4 must take it.
#include <core.p4>
#include <tna.p4>
header ethernet_h { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_h { bit<4> v; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> f; bit<13> off; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> sa; bit<32> da; }
struct H { ethernet_h eth; ipv4_h ipv4; }
struct M { bit<16> h; bit<8> color; }
struct digest_t { bit<48> src; PortId_t port; }
parser IP(packet_in pkt, out H hdr, out M md, out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() ck;
    state start { pkt.extract(ig_intr_md); pkt.advance(PORT_METADATA_SIZE); transition parse_eth; }
    state parse_eth { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x800: parse_ipv4; default: accept; } }
    state parse_ipv4 { pkt.extract(hdr.ipv4); ck.add(hdr.ipv4); bool ok = ck.verify(); transition accept; }
}
control I(inout H hdr, inout M md, in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h;
    DirectCounter<bit<32>>(CounterType_t.PACKETS) dc;
    Meter<bit<8>>(256, MeterType_t.BYTES) m;
    ActionProfile(128) ap;
    ActionSelector(ap, h, SelectorMode_t.FAIR, 16, 8) sel;
    action fwd(PortId_t port) { ig_tm_md.ucast_egress_port = port; dc.count(); }
    action nop() { dc.count(); }
    table t { key = { hdr.ipv4.da: lpm; } actions = { fwd; nop; } counters = dc; size = 1024; }
    table ecmp { key = { hdr.ipv4.da: exact; md.h: selector; } actions = { fwd; } implementation = sel; }
    apply {
        md.h = h.get({hdr.ipv4.sa, hdr.ipv4.da});
        md.color = m.execute(1);
        t.apply();
        ecmp.apply();
        ig_dprsr_md.digest_type = 1;
        bit<16> mx = max(md.h, 16w7);
    }
}
control ID(packet_out pkt, inout H hdr, in M md, in ingress_intrinsic_metadata_for_deparser_t d) {
    Checksum() ck;
    Digest<digest_t>() dg;
    apply {
        hdr.ipv4.csum = ck.update({hdr.ipv4.v, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.f, hdr.ipv4.off, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.sa, hdr.ipv4.da});
        if (d.digest_type == 1) { dg.pack({hdr.eth.src, 9w0}); }
        pkt.emit(hdr);
    }
}
parser EP(packet_in pkt, out H hdr, out M md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; } }
control E(inout H hdr, inout M md, in egress_intrinsic_metadata_t eg_intr_md) { apply { } }
control ED(packet_out pkt, inout H hdr, in M md) { apply { pkt.emit(hdr); } }
Pipeline(IP(), I(), ID(), EP(), E(), ED()) pipe;
Switch(pipe) main;
