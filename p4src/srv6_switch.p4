/*
 * srv6_switch.p4 -- the MRC fabric switch (v1model, BMv2 simple_switch_grpc).
 *
 * Stateless SRv6 micro-SID forwarding from static tables, ECN marking and
 * packet trimming, as docs/mrc-protocol.md sections 2 and 6 describe.  No
 * ECMP hashing, no routing protocol: every path is chosen at the sending NIC
 * and written into the outer destination address (the uSID carrier).
 *
 * Ingress
 *   1. packet_out from the CPU port: sent out of the port it names, untouched.
 *   2. my_sid (block + own uSID, /48 LPM on the outer DA):
 *        uN: RFC 9800 NEXT-CSID End -- the 80 bits after block:uSID move up by
 *            16 bits, zeros fill the tail, then usid_route on the new DA.
 *        uA: the same shift, then out of the adjacency in the entry.
 *      When nothing follows the local uSID the carrier is used up: with an SRH,
 *      RFC 8754 End (Segments Left - 1, next segment into the DA); without one
 *      (or with Segments Left 0) the packet is for this node: to the CPU or
 *      dropped, as the entry says.
 *   3. srv6_end (full 128-bit SID, exact): classic SRH End, RFC 8754 4.3.1.1.
 *   4. usid_route (/48 exact on block:uSID) -> port + next-hop MAC; on a miss,
 *      ipv6_route (LPM) for non-SR traffic (management, probes) or the CPU.
 *   5. Hop limit: forwarded packets lose one; <= 1 means drop (RFC 8200).
 *   6. Trimming decision (see "Trimming and queues" below); DSCP -> priority.
 * Egress
 *   7. Trim (cut to the transport headers, fix lengths, DSCP 12/16) or ECN
 *      (RED ramp between per-port thresholds, never on last-hop ports).
 *   8. packet_in toward the CPU port.
 *
 * Trimming and queues in v1model
 *   The traffic manager sits between ingress and egress: the priority (queue)
 *   of a packet is fixed at the end of ingress, and its queue depth is known
 *   only in egress.  MRC wants a trimmed header on the high-priority queue, so
 *   the trim decision is made in ingress, before queueing, against the depth
 *   of the egress port's data queue as the last packet leaving it saw it
 *   (data_queue_depth, written in egress at each departure, so arrivals since
 *   the last departure are missed).  A packet trimmed there is queued at PRIORITY_HIGH and cut in egress
 *   (v1model's truncate() acts on the packet as it leaves).  As a second
 *   chance, egress also trims a trimmable packet whose own enq_qdepth reached
 *   the threshold although the estimate had not: that one has already waited
 *   in the data queue, but the next hops carry it at high priority (DSCP 12/16
 *   map to PRIORITY_HIGH everywhere).  Recirculating trimmed packets to move
 *   them to the high queue was rejected: it costs a second pipeline pass per
 *   trimmed packet exactly when the switch is congested, and BMv2 does not
 *   keep a truncation across recirculation.
 *
 * Forced thresholds (for tests)
 *   Queue depths are in packets (simple_switch's enq_qdepth/deq_qdepth).  A
 *   threshold of 0 is met by every packet, even on an idle switch:
 *   set_trim_threshold(threshold=0) trims every trimmable packet toward that
 *   port, set_ecn_thresholds(low=0, high=0) marks every ECT packet.  Tests use
 *   such entries instead of building real congestion; with real congestion
 *   (simple_switch queue rate/depth settings) the same code paths run.
 *
 * The behaviour lives in include/switch/*.p4, written against our own
 * metadata (switch_metadata_t); this file adapts it to v1model: ports, drops,
 * queue priority, counters, the data_queue_depth register, random() for the
 * ECN ramp, truncate().  p4src/tna/srv6_switch.p4 adapts the same controls to
 * Tofino (docs/architectures.md).
 *
 * Needs: p4c-bm2-ss (v1model), or `python -m behavioral_model`; the shared
 * files are included relative to this one, so no -I is needed.
 */

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

#include "include/constants.p4"
#include "include/headers.p4"
#include "include/parser.p4"
#include "include/switch/switch_types.p4"
#include "include/switch/switch_ingress.p4"
#include "include/switch/switch_egress.p4"

// Depth of each port's data queue as the last data packet leaving the port saw
// it.  Written in egress, read in ingress: the only way a v1model ingress can
// know a queue depth (see "Trimming and queues" above).  Not a control-plane
// interface: nothing reads it over P4Runtime.
register<bit<19>, PortId_t>(PORT_COUNT) data_queue_depth;

parser SwitchParser(packet_in packet,
                    out headers_t hdr,
                    inout switch_metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    MrcHeaderParser() mrc_parser;

    state start {
        mrc_parser.apply(packet, hdr, standard_metadata.ingress_port);
        transition accept;
    }
}

// IPv6 has no header checksum; MRC leaves out the ICRC [ours].
control SwitchVerifyChecksum(inout headers_t hdr, inout switch_metadata_t meta) {
    apply { }
}

control SwitchIngress(inout headers_t hdr,
                      inout switch_metadata_t meta,
                      inout standard_metadata_t standard_metadata) {

    counter<PortId_t>(PORT_COUNT, CounterType.packets_and_bytes) rx_port_counter;
    counter<bit<8>>(DROP_REASON_COUNT, CounterType.packets_and_bytes) drop_counter;
    SwitchForward(CPU_PORT) forward;

    apply {
        rx_port_counter.count(standard_metadata.ingress_port);
        meta.ingress_port = standard_metadata.ingress_port;
        meta.parser_error = standard_metadata.parser_error != error.NoError;
        forward.apply(hdr, meta);

        // The trim decision against the estimate (see "Trimming and queues").
        if (meta.trim_eligible) {
            bit<19> depth;
            data_queue_depth.read(depth, meta.egress_port);
            if (depth >= meta.trim_threshold) {
                meta.trim = true;
                meta.priority = PRIORITY_HIGH;
            }
        }

        standard_metadata.egress_spec = meta.egress_port;
        standard_metadata.priority = meta.priority;
        if (meta.drop_reason != 0) {
            mark_to_drop(standard_metadata);
            drop_counter.count(meta.drop_reason);
        }
    }
}

control SwitchEgress(inout headers_t hdr,
                     inout switch_metadata_t meta,
                     inout standard_metadata_t standard_metadata) {

    counter<PortId_t>(PORT_COUNT, CounterType.packets_and_bytes) tx_port_counter;
    counter<PortId_t>(PORT_COUNT, CounterType.packets) trim_counter;
    counter<PortId_t>(PORT_COUNT, CounterType.packets) ecn_mark_counter;
    SwitchEgressRewrite() rewrite;
    SwitchEcnMark() ecn;

    apply {
        meta.egress_port = standard_metadata.egress_port;
        meta.enq_qdepth = standard_metadata.enq_qdepth;
        meta.to_cpu = standard_metadata.egress_port == CPU_PORT;
        rewrite.apply(hdr, meta);

        if (meta.transit && standard_metadata.priority == PRIORITY_DATA) {
            data_queue_depth.write(standard_metadata.egress_port,
                                   standard_metadata.deq_qdepth);
        }
        if (meta.trim) {
            // v1model cuts the packet as it leaves egress.
            truncate(meta.trim_length);
            trim_counter.count(standard_metadata.egress_port);
        } else if (meta.ecn_ramp) {
            random(meta.ecn_draw, 19w0, meta.ecn_span - 1);
        }
        ecn.apply(hdr, meta);
        if (meta.ecn_marked) {
            ecn_mark_counter.count(standard_metadata.egress_port);
        }
        tx_port_counter.count(standard_metadata.egress_port);
    }
}

control SwitchComputeChecksum(inout headers_t hdr, inout switch_metadata_t meta) {
    apply { }
}

V1Switch(SwitchParser(),
         SwitchVerifyChecksum(),
         SwitchIngress(),
         SwitchEgress(),
         SwitchComputeChecksum(),
         MrcDeparser()) main;
