// pna.p4's other externs on bm: Hash, InternetChecksum (parser and deparser),
// a table with pna_direct_counter, pna_implementation (an ActionSelector) and
// pna_idle_timeout, Meter,
// SelectByDirection.
#include <core.p4>
#include <pna.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header data_t {
    bit<16> a;
    bit<16> b;
    bit<16> csum;      // InternetChecksum of a and b, checked by the parser
    bit<32> hash;      // Hash of a and b
    bit<16> hash_mod;  // 100 + Hash of a and b % 7
    bit<8> color;      // Meter colour (PNA_MeterColor_t member index)
    bit<8> dir;        // SelectByDirection(NET_TO_HOST, 1, 2)
    bit<8> bad_csum;   // 1 when the parser found a wrong checksum
}

struct headers_t {
    eth_t eth;
    data_t data;
}

struct meta_t {
    bool bad_csum;
}

parser Parse(packet_in pkt, out headers_t hdr, inout meta_t meta,
             in pna_main_parser_input_metadata_t istd) {
    InternetChecksum() check;

    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.data);
        check.clear();
        check.add({hdr.data.a, hdr.data.b});
        check.subtract({hdr.data.b});
        check.add({hdr.data.b});
        meta.bad_csum = check.get() != hdr.data.csum;
        transition accept;
    }
}

control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control Main(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    Hash<bit<32>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) hash;
    Meter<bit<32>>(4, PNA_MeterType_t.PACKETS) meter;
    DirectCounter<bit<32>>(PNA_CounterType_t.PACKETS_AND_BYTES) hits;
    ActionSelector(PNA_HashAlgorithm_t.TARGET_DEFAULT, 16, 16) spread;

    action fwd(bit<32> port) {
        send_to_port((PortId_t)port);
    }

    table route {
        key = {
            hdr.eth.dst: exact;
            hdr.data.a: selector;
        }
        actions = { fwd; }
        pna_direct_counter = hits;
        pna_implementation = spread;
        pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;
        size = 16;
    }

    apply {
        hdr.data.hash = hash.get_hash({hdr.data.a, hdr.data.b});
        hdr.data.hash_mod = (bit<16>)hash.get_hash(32w100, {hdr.data.a, hdr.data.b}, 32w7);
        PNA_MeterColor_t color = meter.execute(0);
        if (color == PNA_MeterColor_t.GREEN) {
            hdr.data.color = 1;
        } else {
            hdr.data.color = 9;
        }
        hdr.data.dir = SelectByDirection(istd.direction, 8w1, 8w2);
        hdr.data.bad_csum = meta.bad_csum ? 8w1 : 8w0;
        send_to_port((PortId_t)1);  // unless route has an entry
        route.apply();
    }
}

control Deparse(packet_out pkt, in headers_t hdr, in meta_t meta,
                in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.data);
    }
}

PNA_NIC(Parse(), Pre(), Main(), Deparse()) main;
