/*
 * Ingress of the MRC fabric switch, architecture-neutral: local SIDs (uN, uA,
 * SRH End), routes, hop limit, queue class and the trim configuration of the
 * egress port (docs/switch.md, docs/mrc-protocol.md sections 2
 * and 6).
 *
 * The tables and actions keep the P4Info names they have always had
 * (SwitchIngress.my_sid, ...): the controller and the PTF suites use them, and
 * the TNA port has the same ones.  Hence the absolute @name(".SwitchIngress.x")
 * on every one of them: without it p4c would put this control's instance name
 * in between.  Every top level names its ingress control SwitchIngress.
 *
 * Needs constants.p4, headers.p4 and switch/switch_types.p4.
 */

#ifndef _MRC_SWITCH_INGRESS_P4_
#define _MRC_SWITCH_INGRESS_P4_

// cpu_port: the architecture's CPU port, where punted packets go and which a
// packet-out may not name.
control SwitchForward(inout headers_t hdr, inout switch_metadata_t meta)
                     (switch_port_t cpu_port) {

    @name(".SwitchIngress.drop_packet")
    action drop_packet(bit<8> reason) {
        meta.drop_reason = reason;
        meta.forward = false;
        meta.punt_reason = 0;
    }

    /* ---- local SIDs -------------------------------------------------------- */

    // uN (RFC 9800 section 4.1, End with NEXT-CSID).
    @name(".SwitchIngress.usid_un")
    action usid_un(bit<1> end_to_cpu) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_USID_END;
    }

    // uA (RFC 9800 section 4.2, End.X with NEXT-CSID): as uN, but the packet
    // leaves through the given adjacency instead of a route lookup.
    @name(".SwitchIngress.usid_ua")
    action usid_ua(bit<1> end_to_cpu, switch_port_t port, mac_addr_t next_hop_mac) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_USID_END;
        meta.use_adjacency = true;
        meta.adjacency_port = port;
        meta.adjacency_mac = next_hop_mac;
    }

    // Key: block:uSID, written as a /48 prefix of the outer destination.
    @name(".SwitchIngress.my_sid")
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
    @name(".SwitchIngress.srh_end")
    action srh_end(bit<1> end_to_cpu) {
        meta.local_sid = true;
        meta.end_to_cpu = end_to_cpu;
        meta.end_punt_reason = PUNT_REASON_SRH_END;
    }

    @name(".SwitchIngress.srv6_end")
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

    @name(".SwitchIngress.set_next_hop")
    action set_next_hop(switch_port_t port, mac_addr_t next_hop_mac) {
        meta.egress_port = port;
        // The frame was addressed to this switch, so its destination MAC is
        // our own: it becomes the source toward the next hop.
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = next_hop_mac;
        meta.forward = true;
    }

    // Static uSID plan: one /48 (block:uSID of the next node, or of a NIC
    // downlink) per entry, exact match on the top 48 bits of the DA.  The key
    // is copied to metadata first so every target sees a plain 48-bit field.
    @name(".SwitchIngress.usid_route")
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
    @name(".SwitchIngress.send_to_cpu")
    action send_to_cpu() {
        meta.punt_reason = PUNT_REASON_LOCAL_ADDRESS;
    }

    // Plain IPv6 routes for traffic outside the uSID plan.
    @name(".SwitchIngress.ipv6_route")
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

    // threshold: queue depth from which trimmable packets are trimmed;
    // last_hop = 1 on ports toward a NIC (DSCP TRIMMED_LASTHOP).
    @name(".SwitchIngress.set_trim_threshold")
    action set_trim_threshold(bit<19> threshold, bit<1> last_hop) {
        meta.trim_eligible = true;
        meta.trim_threshold = threshold;
        meta.last_hop = last_hop;
    }

    @name(".SwitchIngress.trim_config")
    table trim_config {
        key = {
            meta.egress_port: exact @name("egress_port");
        }
        actions = {
            set_trim_threshold;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = PORT_COUNT;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            // The controller built the whole frame (probes, debugging): it
            // leaves as it is, without lookups or hop-limit change.
            if (hdr.packet_out.egress_port >= (bit<16>)PORT_COUNT
                    || (switch_port_t)hdr.packet_out.egress_port == cpu_port
                    || (switch_port_t)hdr.packet_out.egress_port == DROP_PORT) {
                drop_packet(DROP_REASON_BAD_PACKET_OUT);
            } else {
                meta.egress_port = (switch_port_t)hdr.packet_out.egress_port;
                meta.from_cpu = true;
            }
            hdr.packet_out.setInvalid();
        } else if (meta.parser_error) {
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
                    // case keeps this within what every target takes.
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
                meta.priority = PRIORITY_HIGH;
            } else {
                meta.priority = PRIORITY_DATA;
            }

            // Trimming needs the transport headers to know where to cut, so
            // only MRC packets (BTH parsed) of a trimmable class qualify.
            // Whether the queue calls for a trim is the architecture's part.
            if (meta.forward
                    && (hdr.ipv6.dscp == DSCP_TRIMMABLE || hdr.ipv6.dscp == DSCP_TRIMMABLE_RETX)
                    && hdr.bth.isValid()) {
                trim_config.apply();
            }

            if (meta.punt_reason != 0) {
                meta.egress_port = cpu_port;
            }
        }
    }
}

#endif  /* _MRC_SWITCH_INGRESS_P4_ */
