/*
 * tna/srv6_switch.p4 -- the MRC fabric switch for Tofino 1 (TNA, tna.p4).
 *
 * The same behaviour as p4src/srv6_switch.p4 (v1model): the controls of
 * ../include/switch/ do the work, on our own switch_metadata_t, and keep
 * their P4Info names (SwitchIngress.my_sid, ...; the Tofino compiler puts the
 * pipe's name in front).  This file adapts them to TNA;
 * docs/architectures.md has the table of what differs and why.
 *
 * A pipe is ingress parser, ingress, ingress deparser, the traffic manager
 * (TM), egress parser, egress, egress deparser (TNA docs).  Only packet bytes
 * and the intrinsic metadata cross the TM, so what egress needs from ingress
 * travels in switch_bridged_t, emitted in front of the Ethernet header by the
 * ingress deparser and extracted first by the egress parser.
 *
 * Ports.  TNA_CPU_PORT is the CPU's PCIe port (192 on a 4-pipe Tofino 1, 64
 * on a 2-pipe one); TNA_RECIRC_PORT a recirculation port of the pipe (68 on
 * pipe 0).  Both can be changed with -D.
 *
 * Drops and queues.  A drop is ig_dprsr_md.drop_ctl = 1; the queue class is
 * the egress port's queue ig_tm_md.qid = priority (0 data, 7 control and
 * trimmed headers), and the control plane gives queue 7 strict priority.
 *
 * Trimming.  Tofino 1 shows queue depths only to egress (eg_intr_md), and a
 * register belongs to one gress, so the v1model ingress estimate
 * (data_queue_depth) cannot exist here: the trim is decided in egress, on the
 * packet's own enq_qdepth (v1model's "second chance").  TNA has no truncate():
 *   pass 1  egress at port P rewrites the headers as v1model does, drops the
 *           packet (drop_ctl bit 0) and mirrors it (egress-to-egress) to the
 *           session TRIM_SESSION_BASE + L / 2, L the bytes to keep.  The
 *           control plane sets up one session per L (L is even: Ethernet
 *           and IPv6 are 54 bytes, every header after them a multiple of 4;
 *           L <= 286), each with max_pkt_len = L + 3 and the recirculation
 *           port as its egress port; the copy starts with the 3-byte
 *           trim_mirror_t header that names P.
 *   pass 2  egress of the recirculation port leaves the copy as it is.
 *   pass 3  ingress of the recirculation port sends it to P on queue 7.
 *   pass 4  egress at P counts it (trim_counter, tx_port_counter).
 * Thresholds are in the TM's cells (80 bytes on Tofino 1), not packets.
 *
 * ECN.  Random<bit<19>> has no run-time range, so the RED ramp draws
 * rng & mask, mask = 2^k - 1 for the smallest 2^k >= high - low
 * (ecn_ramp_mask): the marking probability is (depth - low) / 2^k, exact when
 * high - low is a power of two and never above v1model's.
 *
 * Packet-in/out.  The CPU port's frames start with packet_out_t (extracted
 * here, before the shared parser, which selects on v1model's CPU_PORT);
 * frames to the CPU get packet_in_t in egress, both @controller_header as
 * in the v1model program.
 *
 * Needs: the Tofino compiler (bf-p4c, -D__TARGET_TOFINO__=1 is implied), or
 * p4c's front end with Intel's tna.p4 (p4test -D__TARGET_TOFINO__=1), or
 * `python -m behavioral_model check` (our own tna.p4); scripts/compile.sh
 * runs whichever is installed.
 */

#include <core.p4>
#include <tna.p4>

#include "../include/constants.p4"
#include "../include/headers.p4"
#include "../include/parser.p4"
#include "../include/switch/switch_types.p4"
#include "../include/switch/switch_ingress.p4"
#include "../include/switch/switch_egress.p4"

#ifndef TNA_CPU_PORT
#define TNA_CPU_PORT 192
#endif
#ifndef TNA_RECIRC_PORT
#define TNA_RECIRC_PORT 68
#endif

const PortId_t TOFINO_CPU_PORT = TNA_CPU_PORT;
const PortId_t TOFINO_RECIRC_PORT = TNA_RECIRC_PORT;

// The first byte after the egress intrinsic metadata says what follows.
const bit<8> TNA_KIND_BRIDGED = 1;
const bit<8> TNA_KIND_TRIMMED = 2;

const MirrorType_t TRIM_MIRROR_TYPE = 1;
const MirrorId_t TRIM_SESSION_BASE = 0x100;

// Ingress -> egress: the part of switch_metadata_t egress reads.
header switch_bridged_t {
    bit<8> kind;                // TNA_KIND_BRIDGED
    bit<7> _pad0;
    PortId_t ingress_port;
    bit<8> punt_reason;
    bit<1> from_cpu;
    bit<1> trim_eligible;
    bit<1> last_hop;
    bit<1> trimmed_copy;        // pass 4: a trimmed copy, only counted
    bit<9> _pad1;
    bit<19> trim_threshold;
}

// In front of a trimmed copy, from its mirroring to its return into ingress.
header trim_mirror_t {
    bit<8> kind;                // TNA_KIND_TRIMMED
    bit<7> _pad0;
    PortId_t egress_port;       // where the trimmed packet goes
}

struct tna_headers_t {
    switch_bridged_t bridged;
    trim_mirror_t trim_mirror;
    headers_t mrc;
}

struct tna_ingress_metadata_t {
    switch_metadata_t sw;
}

struct tna_egress_metadata_t {
    switch_metadata_t sw;
    trim_mirror_t trim_mirror;  // the mirror header of pass 1
    MirrorId_t trim_session;
    bool transmitted;           // leaves by its egress port: counted once, at the end
    bit<19> ecn_span_m1;
    bit<19> ecn_mask;
}

/* ---- Ingress --------------------------------------------------------------- */

parser SwitchIngressParser(packet_in pkt,
                           out tna_headers_t hdr,
                           out tna_ingress_metadata_t ig_md,
                           out ingress_intrinsic_metadata_t ig_intr_md) {
    MrcHeaderParser() mrc_parser;

    state start {
        pkt.extract(ig_intr_md);
        // Port metadata (phase 0): not used.
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            TOFINO_CPU_PORT: parse_packet_out;
            TOFINO_RECIRC_PORT: parse_trimmed_copy;
            default: parse_mrc;
        }
    }

    state parse_packet_out {
        pkt.extract(hdr.mrc.packet_out);
        transition parse_mrc;
    }

    // Pass 3: the rest is the trimmed packet, forwarded as it is.
    state parse_trimmed_copy {
        pkt.extract(hdr.trim_mirror);
        transition accept;
    }

    state parse_mrc {
        mrc_parser.apply(pkt, hdr.mrc, ig_intr_md.ingress_port);
        transition accept;
    }
}

control SwitchIngress(inout tna_headers_t hdr,
                      inout tna_ingress_metadata_t ig_md,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Counter<bit<64>, PortId_t>(PORT_COUNT, CounterType_t.PACKETS_AND_BYTES) rx_port_counter;
    Counter<bit<64>, bit<8>>(DROP_REASON_COUNT, CounterType_t.PACKETS_AND_BYTES) drop_counter;
    SwitchForward(TOFINO_CPU_PORT) forward;

    apply {
        hdr.bridged.setValid();
        hdr.bridged.kind = TNA_KIND_BRIDGED;
        hdr.bridged.ingress_port = ig_intr_md.ingress_port;
        if (hdr.trim_mirror.isValid()) {
            // Pass 3: a trimmed copy back from the recirculation port.
            ig_tm_md.ucast_egress_port = hdr.trim_mirror.egress_port;
            ig_tm_md.qid = (QueueId_t)PRIORITY_HIGH;
            ig_tm_md.ingress_cos = PRIORITY_HIGH;
            hdr.bridged.trimmed_copy = 1;
            hdr.trim_mirror.setInvalid();
        } else {
            rx_port_counter.count(ig_intr_md.ingress_port);
            ig_md.sw.ingress_port = ig_intr_md.ingress_port;
            ig_md.sw.parser_error = ig_prsr_md.parser_err != PARSER_ERROR_OK;
            forward.apply(hdr.mrc, ig_md.sw);

            ig_tm_md.ucast_egress_port = ig_md.sw.egress_port;
            ig_tm_md.qid = (QueueId_t)ig_md.sw.priority;
            ig_tm_md.ingress_cos = ig_md.sw.priority;
            hdr.bridged.punt_reason = ig_md.sw.punt_reason;
            hdr.bridged.from_cpu = (bit<1>)ig_md.sw.from_cpu;
            hdr.bridged.trim_eligible = (bit<1>)ig_md.sw.trim_eligible;
            hdr.bridged.last_hop = ig_md.sw.last_hop;
            hdr.bridged.trim_threshold = ig_md.sw.trim_threshold;
            if (ig_md.sw.drop_reason != 0) {
                ig_dprsr_md.drop_ctl = 1;
                drop_counter.count(ig_md.sw.drop_reason);
            }
        }
    }
}

control SwitchIngressDeparser(packet_out pkt,
                              inout tna_headers_t hdr,
                              in tna_ingress_metadata_t ig_md,
                              in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    MrcDeparser() mrc_deparser;

    apply {
        pkt.emit(hdr.bridged);
        mrc_deparser.apply(pkt, hdr.mrc);
    }
}

/* ---- Egress ---------------------------------------------------------------- */

parser SwitchEgressParser(packet_in pkt,
                          out tna_headers_t hdr,
                          out tna_egress_metadata_t eg_md,
                          out egress_intrinsic_metadata_t eg_intr_md) {
    MrcHeaderParser() mrc_parser;

    state start {
        pkt.extract(eg_intr_md);
        transition select(pkt.lookahead<bit<8>>()) {
            TNA_KIND_TRIMMED: parse_trimmed_copy;
            default: parse_bridged;
        }
    }

    // Pass 2: a mirrored copy on its way to the recirculation port.
    state parse_trimmed_copy {
        pkt.extract(hdr.trim_mirror);
        transition accept;
    }

    state parse_bridged {
        pkt.extract(hdr.bridged);
        // Ingress consumed packet_out, so the port only has to differ from
        // v1model's CPU_PORT, which no Tofino 1 port number equals.
        mrc_parser.apply(pkt, hdr.mrc, hdr.bridged.ingress_port);
        transition accept;
    }
}

control SwitchEgress(inout tna_headers_t hdr,
                     inout tna_egress_metadata_t eg_md,
                     in egress_intrinsic_metadata_t eg_intr_md,
                     in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                     inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {

    Counter<bit<64>, PortId_t>(PORT_COUNT, CounterType_t.PACKETS_AND_BYTES) tx_port_counter;
    Counter<bit<64>, PortId_t>(PORT_COUNT, CounterType_t.PACKETS) trim_counter;
    Counter<bit<64>, PortId_t>(PORT_COUNT, CounterType_t.PACKETS) ecn_mark_counter;
    Random<bit<19>>() ecn_rng;
    SwitchEgressRewrite() rewrite;
    SwitchEcnMark() ecn;

    action set_ramp_mask(bit<19> mask) {
        eg_md.ecn_mask = mask;
    }

    // The leading one of high - low - 1 gives the mask (see "ECN" above).
    table ecn_ramp_mask {
        key = {
            eg_md.ecn_span_m1: ternary;
        }
        actions = {
            set_ramp_mask;
        }
        const entries = {
            0x40000 &&& 0x40000: set_ramp_mask(0x7ffff);
            0x20000 &&& 0x60000: set_ramp_mask(0x3ffff);
            0x10000 &&& 0x70000: set_ramp_mask(0x1ffff);
            0x08000 &&& 0x78000: set_ramp_mask(0x0ffff);
            0x04000 &&& 0x7c000: set_ramp_mask(0x07fff);
            0x02000 &&& 0x7e000: set_ramp_mask(0x03fff);
            0x01000 &&& 0x7f000: set_ramp_mask(0x01fff);
            0x00800 &&& 0x7f800: set_ramp_mask(0x00fff);
            0x00400 &&& 0x7fc00: set_ramp_mask(0x007ff);
            0x00200 &&& 0x7fe00: set_ramp_mask(0x003ff);
            0x00100 &&& 0x7ff00: set_ramp_mask(0x001ff);
            0x00080 &&& 0x7ff80: set_ramp_mask(0x000ff);
            0x00040 &&& 0x7ffc0: set_ramp_mask(0x0007f);
            0x00020 &&& 0x7ffe0: set_ramp_mask(0x0003f);
            0x00010 &&& 0x7fff0: set_ramp_mask(0x0001f);
            0x00008 &&& 0x7fff8: set_ramp_mask(0x0000f);
            0x00004 &&& 0x7fffc: set_ramp_mask(0x00007);
            0x00002 &&& 0x7fffe: set_ramp_mask(0x00003);
            0x00001 &&& 0x7ffff: set_ramp_mask(0x00001);
        }
        default_action = set_ramp_mask(0);
        size = 19;
    }

    apply {
        if (hdr.trim_mirror.isValid()) {
            // Pass 2: out of the recirculation port unchanged, trim_mirror included.
        } else if (hdr.bridged.trimmed_copy == 1) {
            // Pass 4: the trimmed packet leaves on its port.
            hdr.bridged.setInvalid();
            trim_counter.count(eg_intr_md.egress_port);
            eg_md.transmitted = true;
        } else {
            eg_md.sw.ingress_port = hdr.bridged.ingress_port;
            eg_md.sw.punt_reason = hdr.bridged.punt_reason;
            eg_md.sw.from_cpu = hdr.bridged.from_cpu == 1;
            eg_md.sw.trim_eligible = hdr.bridged.trim_eligible == 1;
            eg_md.sw.last_hop = hdr.bridged.last_hop;
            eg_md.sw.trim_threshold = hdr.bridged.trim_threshold;
            eg_md.sw.egress_port = eg_intr_md.egress_port;
            eg_md.sw.enq_qdepth = eg_intr_md.enq_qdepth;
            eg_md.sw.to_cpu = eg_intr_md.egress_port == TOFINO_CPU_PORT;
            hdr.bridged.setInvalid();
            rewrite.apply(hdr.mrc, eg_md.sw);

            if (eg_md.sw.trim) {
                // Pass 1: the truncating mirror copy replaces the packet.
                eg_md.trim_mirror.setValid();
                eg_md.trim_mirror.kind = TNA_KIND_TRIMMED;
                eg_md.trim_mirror.egress_port = eg_intr_md.egress_port;
                eg_md.trim_session = TRIM_SESSION_BASE
                                     + (MirrorId_t)(eg_md.sw.trim_length >> 1);
                eg_dprsr_md.mirror_type = TRIM_MIRROR_TYPE;
                eg_dprsr_md.drop_ctl = 1;
            } else {
                if (eg_md.sw.ecn_ramp) {
                    eg_md.ecn_span_m1 = eg_md.sw.ecn_span - 1;
                    ecn_ramp_mask.apply();
                    eg_md.sw.ecn_draw = ecn_rng.get() & eg_md.ecn_mask;
                }
                ecn.apply(hdr.mrc, eg_md.sw);
                if (eg_md.sw.ecn_marked) {
                    ecn_mark_counter.count(eg_intr_md.egress_port);
                }
                eg_md.transmitted = true;
            }
        }
        // One call site per counter: on Tofino a counter lives in one stage,
        // so every table (and code block) that counts it must share that stage.
        if (eg_md.transmitted) {
            tx_port_counter.count(eg_intr_md.egress_port);
        }
    }
}

control SwitchEgressDeparser(packet_out pkt,
                             inout tna_headers_t hdr,
                             in tna_egress_metadata_t eg_md,
                             in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Mirror(TRIM_MIRROR_TYPE) trim_mirror;
    MrcDeparser() mrc_deparser;

    apply {
        if (eg_dprsr_md.mirror_type == TRIM_MIRROR_TYPE) {
            trim_mirror.emit(eg_md.trim_session, eg_md.trim_mirror);
        }
        pkt.emit(hdr.trim_mirror);
        mrc_deparser.apply(pkt, hdr.mrc);
    }
}

Pipeline(SwitchIngressParser(),
         SwitchIngress(),
         SwitchIngressDeparser(),
         SwitchEgressParser(),
         SwitchEgress(),
         SwitchEgressDeparser()) pipe;

Switch(pipe) main;
