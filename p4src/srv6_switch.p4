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
 * Needs: p4c-bm2-ss (v1model), or `python -m behavioral_model`; the shared
 * files are included relative to this one, so no -I is needed.
 */

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

#include "include/constants.p4"
#include "include/headers.p4"
#include "include/parser.p4"

const bit<32> PORT_COUNT = 512;   // v1model ports are 9 bits wide

struct switch_metadata_t {
    // Set by my_sid/srv6_end: what to do when this node's segment is used up.
    bool local_sid;
    bit<1> end_to_cpu;
    bit<8> end_punt_reason;
    // uA: the adjacency replaces the route lookup.
    bool use_adjacency;
    PortId_t adjacency_port;
    mac_addr_t adjacency_mac;
    // Key of usid_route: block:uSID of the DA after SID processing.
    bit<48> dst_usid_prefix;
    // The DA (possibly rewritten) still has to be looked up.
    bool route_lookup;
    // Outcome of ingress forwarding: at most one of the next three is set.
    bool forward;               // egress_spec is a front-panel port
    bit<8> punt_reason;         // non-zero: to the CPU port
    bit<8> drop_reason;         // non-zero: dropped
    bool from_cpu;
    // Trimming, decided in ingress and carried to egress.
    bool trim_eligible;         // trimmable packet toward a port with trim_config
    bool trim;
    bit<1> last_hop;            // the egress port faces a NIC
    bit<19> trim_threshold;
    // ECN, from ecn_config in egress.
    bool ecn_enabled;
    bit<19> ecn_low;
    bit<19> ecn_high;
}

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

    action drop_packet(bit<8> reason) {
        meta.drop_reason = reason;
        meta.forward = false;
        meta.punt_reason = 0;
        mark_to_drop(standard_metadata);
    }

    /* ---- local SIDs -------------------------------------------------------- */

    // uN (RFC 9800 section 4.1, End with NEXT-CSID).
    action usid_un(bit<1> end_to_cpu) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_USID_END;
    }

    // uA (RFC 9800 section 4.2, End.X with NEXT-CSID): as uN, but the packet
    // leaves through the given adjacency instead of a route lookup.
    action usid_ua(bit<1> end_to_cpu, PortId_t port, mac_addr_t next_hop_mac) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_USID_END;
        meta.use_adjacency = true;
        meta.adjacency_port = port;
        meta.adjacency_mac = next_hop_mac;
    }

    // Key: block:uSID, written as a /48 prefix of the outer destination.
    table my_sid {
        key = {
            hdr.ipv6.dst_addr: lpm @name("dst_addr");
        }
        actions = {
            usid_un;
            usid_ua;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 256;
    }

    // End (RFC 8986 section 4.1) on a full 128-bit SID.
    action srh_end(bit<1> end_to_cpu) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_SRH_END;
    }

    table srv6_end {
        key = {
            hdr.ipv6.dst_addr: exact @name("dst_addr");
        }
        actions = {
            srh_end;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 64;
    }

    /* ---- routes ------------------------------------------------------------ */

    action set_next_hop(PortId_t port, mac_addr_t next_hop_mac) {
        standard_metadata.egress_spec = port;
        // The frame was addressed to this switch, so its destination MAC is
        // our own: it becomes the source toward the next hop.
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = next_hop_mac;
        meta.forward = true;
    }

    // Static uSID plan: one /48 (block:uSID of the next node, or of a NIC
    // downlink) per entry, exact match on the top 48 bits of the DA.  The key
    // is copied to metadata first so every target sees a plain 48-bit field.
    table usid_route {
        key = {
            meta.dst_usid_prefix: exact @name("dst_usid_prefix");
        }
        actions = {
            set_next_hop;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 1024;
    }

    // Addresses of this switch (management, controller probes).
    action send_to_cpu() {
        meta.punt_reason = PUNT_REASON_LOCAL_ADDRESS;
    }

    // Plain IPv6 routes for traffic outside the uSID plan.
    table ipv6_route {
        key = {
            hdr.ipv6.dst_addr: lpm @name("dst_addr");
        }
        actions = {
            set_next_hop;
            send_to_cpu;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 1024;
    }

    /* ---- trimming ---------------------------------------------------------- */

    // threshold: data-queue depth (packets) from which trimmable packets are
    // trimmed; last_hop = 1 on ports toward a NIC (DSCP TRIMMED_LASTHOP).
    action set_trim_threshold(bit<19> threshold, bit<1> last_hop) {
        meta.trim_eligible = true;
        meta.trim_threshold = threshold;
        meta.last_hop = last_hop;
    }

    table trim_config {
        key = {
            standard_metadata.egress_spec: exact @name("egress_port");
        }
        actions = {
            set_trim_threshold;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = PORT_COUNT;
    }

    apply {
        rx_port_counter.count(standard_metadata.ingress_port);

        if (hdr.packet_out.isValid()) {
            // The controller built the whole frame (probes, debugging): it
            // leaves as it is, without lookups or hop-limit change.
            if (hdr.packet_out.egress_port >= (bit<16>)PORT_COUNT
                    || (PortId_t)hdr.packet_out.egress_port == CPU_PORT
                    || (PortId_t)hdr.packet_out.egress_port == DROP_PORT) {
                drop_packet(DROP_REASON_BAD_PACKET_OUT);
            } else {
                standard_metadata.egress_spec = (PortId_t)hdr.packet_out.egress_port;
                meta.from_cpu = true;
            }
            hdr.packet_out.setInvalid();
        } else if (standard_metadata.parser_error != error.NoError) {
            drop_packet(DROP_REASON_PARSER_ERROR);
        } else if (!hdr.ipv6.isValid()) {
            drop_packet(DROP_REASON_NOT_IPV6);
        } else {
            /* -- which SID, if any, is this node's -- */
            if (my_sid.apply().hit) {
                if (hdr.ipv6.dst_addr[79:0] != 0) {
                    // RFC 9800 4.1 S05-S06 (F3216: block 32, uSID 16, argument
                    // 80): the argument moves up into the uSID slot, zeros fill
                    // the last 16 bits.
                    hdr.ipv6.dst_addr = hdr.ipv6.dst_addr[127:96] ++ hdr.ipv6.dst_addr[79:0] ++ 16w0;
                    meta.route_lookup = true;
                    meta.local_sid = false;
                }
            } else if (!srv6_end.apply().hit) {
                // Not a local SID: plain forwarding on the DA.  A transit
                // node never looks at an SRH (RFC 8754 section 4.2).
                meta.route_lookup = true;
            }

            // The end of this node's segment: RFC 8754 4.3.1.1 (SRH processing
            // at the node the DA names), which RFC 9800 also applies when a
            // uSID carrier is used up.
            if (meta.local_sid) {
                if (!hdr.srh.isValid() || hdr.srh.segments_left == 0) {
                    // RFC 8754 4.3.1.1 S02-S03 / RFC 8986 4.1 S02-S03: no
                    // segment left, the packet is for this node.
                    if (meta.end_to_cpu == 1) {
                        meta.punt_reason = meta.end_punt_reason;
                    } else {
                        drop_packet(DROP_REASON_NO_LOCAL_DELIVERY);
                    }
                } else if (hdr.srh.routing_type != SRH_ROUTING_TYPE
                        // S09-S11: max_last_entry = Hdr Ext Len / 2 - 1; written
                        // without the -1 so Hdr Ext Len 0 cannot underflow.
                        || (bit<9>)hdr.srh.last_entry + 1 > (bit<9>)(hdr.srh.hdr_ext_len >> 1)
                        || (bit<9>)hdr.srh.segments_left > (bit<9>)hdr.srh.last_entry + 1) {
                    // S12 (RFC 8200 4.4 for an unknown Routing Type with
                    // Segments Left > 0): discard.  No ICMP from the fabric:
                    // the drop counter records it.
                    drop_packet(DROP_REASON_BAD_SRH);
                } else {
                    // S15-S16: Segments Left - 1, Segment List[Segments Left]
                    // into the DA.  The list holds at most SRH_MAX_SEGMENTS
                    // (the parser rejects longer ones), so a constant index per
                    // case keeps this within what every v1model target takes.
                    bit<8> sl = hdr.srh.segments_left - 1;
                    hdr.srh.segments_left = sl;
                    if (sl == 0) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[0].sid;
                    } else if (sl == 1) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[1].sid;
                    } else if (sl == 2) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[2].sid;
                    } else if (sl == 3) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[3].sid;
                    } else if (sl == 4) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[4].sid;
                    } else if (sl == 5) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[5].sid;
                    } else if (sl == 6) {
                        hdr.ipv6.dst_addr = hdr.srh_segments[6].sid;
                    } else {
                        hdr.ipv6.dst_addr = hdr.srh_segments[7].sid;
                    }
                    meta.route_lookup = true;
                }
            }

            /* -- where it goes -- */
            if (meta.route_lookup) {
                meta.dst_usid_prefix = hdr.ipv6.dst_addr[127:80];
                if (meta.use_adjacency) {
                    set_next_hop(meta.adjacency_port, meta.adjacency_mac);
                } else if (!usid_route.apply().hit) {
                    if (!ipv6_route.apply().hit) {
                        drop_packet(DROP_REASON_NO_ROUTE);
                    }
                }
            }

            // RFC 8200 section 3 (and RFC 8754 S17-S21, RFC 9800 S02-S04):
            // a forwarding node decrements the hop limit and discards the
            // packet if it was <= 1.  Packets for this node keep theirs.
            if (meta.forward) {
                if (hdr.ipv6.hop_limit <= 1) {
                    drop_packet(DROP_REASON_HOP_LIMIT);
                } else {
                    hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
                }
            }

            // Control traffic and trimmed headers take the high-priority queue
            // at every hop (MRC: a trimmed header must reach the receiver fast
            // so its NACK comes back fast; control is never trimmed).
            if (hdr.ipv6.dscp == DSCP_CONTROL || hdr.ipv6.dscp == DSCP_TRIMMED
                    || hdr.ipv6.dscp == DSCP_TRIMMED_LASTHOP) {
                standard_metadata.priority = PRIORITY_HIGH;
            } else {
                standard_metadata.priority = PRIORITY_DATA;
            }

            // Trimming needs the transport headers to know where to cut, so
            // only MRC packets (BTH parsed) of a trimmable class qualify.
            if (meta.forward
                    && (hdr.ipv6.dscp == DSCP_TRIMMABLE || hdr.ipv6.dscp == DSCP_TRIMMABLE_RETX)
                    && hdr.bth.isValid()) {
                if (trim_config.apply().hit) {
                    bit<19> depth;
                    data_queue_depth.read(depth, standard_metadata.egress_spec);
                    if (depth >= meta.trim_threshold) {
                        meta.trim = true;
                        standard_metadata.priority = PRIORITY_HIGH;
                    }
                }
            }

            if (meta.punt_reason != 0) {
                standard_metadata.egress_spec = CPU_PORT;
            }
        }

        if (meta.drop_reason != 0) {
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

    // low/high: data-queue depths (packets) between which the marking
    // probability of ECT packets rises linearly from 0 to 1.
    action set_ecn_thresholds(bit<19> low, bit<19> high) {
        meta.ecn_enabled = true;
        meta.ecn_low = low;
        meta.ecn_high = high;
    }

    // Ports toward NICs: ECN signals imbalance in the fabric, not receiver
    // incast, so the last hop never marks [paper].
    action disable_ecn_marking() {
        meta.ecn_enabled = false;
    }

    table ecn_config {
        key = {
            standard_metadata.egress_port: exact @name("egress_port");
        }
        actions = {
            set_ecn_thresholds;
            disable_ecn_marking;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = PORT_COUNT;
    }

    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = (bit<16>)standard_metadata.ingress_port;
            hdr.packet_in.reason = meta.punt_reason;
        } else if (!meta.from_cpu && hdr.ipv6.isValid()) {
            if (standard_metadata.priority == PRIORITY_DATA) {
                data_queue_depth.write(standard_metadata.egress_port,
                                       standard_metadata.deq_qdepth);
            }
            // Second chance: the queue this packet met was over the threshold
            // although the ingress estimate was not.
            if (meta.trim_eligible && !meta.trim
                    && standard_metadata.enq_qdepth >= meta.trim_threshold) {
                meta.trim = true;
            }

            if (meta.trim) {
                // Keep every header through the MRC transport headers; the
                // parser guarantees nothing unparsed lies before them (an SRH
                // with TLVs stops the parse, so BTH is not valid then).
                bit<16> srh_bytes = 0;
                if (hdr.srh.isValid()) {
                    srh_bytes = SRH_FIXED_BYTES + ((bit<16>)hdr.srh.hdr_ext_len << 3);
                }
                bit<16> udp_len = UDP_BYTES + BTH_BYTES;
                if (hdr.meth.isValid()) { udp_len = udp_len + METH_BYTES; }
                if (hdr.reth.isValid()) { udp_len = udp_len + RETH_BYTES; }
                if (hdr.immdt.isValid()) { udp_len = udp_len + IMMDT_BYTES; }
                if (hdr.sack.isValid()) { udp_len = udp_len + SACK_BYTES; }
                if (hdr.sack_cc.isValid()) { udp_len = udp_len + SACK_CC_BYTES; }
                if (hdr.nack.isValid()) { udp_len = udp_len + NACK_BYTES; }
                if (hdr.probe.isValid()) { udp_len = udp_len + PROBE_BYTES; }

                hdr.udp.length = udp_len;
                // RoCEv2 sends UDP checksum 0 and relies on the ICRC; a
                // non-zero sum would be stale after the cut.
                hdr.udp.checksum = 0;
                if (hdr.inner_ipv6.isValid()) {
                    hdr.inner_ipv6.payload_len = udp_len;
                    hdr.ipv6.payload_len = srh_bytes + IPV6_BYTES + udp_len;
                } else {
                    hdr.ipv6.payload_len = srh_bytes + udp_len;
                }
                // The switch rewrites only the outer header, the one the
                // fabric and the receiving NIC classify on.
                if (meta.last_hop == 1) {
                    hdr.ipv6.dscp = DSCP_TRIMMED_LASTHOP;
                } else {
                    hdr.ipv6.dscp = DSCP_TRIMMED;
                }
                truncate((bit<32>)(ETHERNET_BYTES + IPV6_BYTES + hdr.ipv6.payload_len));
                trim_counter.count(standard_metadata.egress_port);
            } else {
                ecn_config.apply();
                // Only ECT(0)/ECT(1) packets are marked; CE stays CE and
                // Not-ECT is never touched (RFC 3168 section 5).  Marking the
                // outer header is enough: the decapsulating NIC carries CE
                // inward (RFC 6040).
                if (meta.ecn_enabled
                        && (hdr.ipv6.ecn == ECN_ECT0 || hdr.ipv6.ecn == ECN_ECT1)) {
                    bit<19> depth = standard_metadata.enq_qdepth;
                    bool mark = false;
                    if (depth >= meta.ecn_high) {
                        mark = true;
                    } else if (depth > meta.ecn_low) {
                        // RED ramp: P(mark) = (depth - low) / (high - low).
                        bit<19> draw;
                        random(draw, 19w0, meta.ecn_high - meta.ecn_low - 1);
                        if (draw < depth - meta.ecn_low) {
                            mark = true;
                        }
                    }
                    if (mark) {
                        hdr.ipv6.ecn = ECN_CE;
                        ecn_mark_counter.count(standard_metadata.egress_port);
                    }
                }
            }
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
