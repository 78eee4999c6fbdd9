/*
 * Egress of the MRC fabric switch, architecture-neutral: packet-in toward the
 * CPU, the trim rewrite and the ECN decision (docs/switch.md,
 * docs/mrc-protocol.md section 6).  What needs the architecture is left to the
 * top level: cutting the packet (v1model truncate(), a truncating mirror
 * session on TNA), drawing the random number of the RED ramp, counters.
 *
 * ecn_config and its actions keep their P4Info names (SwitchEgress.x, see
 * switch_ingress.p4 for why the names are absolute).
 *
 * Needs constants.p4, headers.p4 and switch/switch_types.p4.
 */

#ifndef _MRC_SWITCH_EGRESS_P4_
#define _MRC_SWITCH_EGRESS_P4_

// Before the architecture's part: packet_in, the trim decision and rewrite,
// the ECN thresholds of the port.  Sets meta.trim (with meta.trim_length) or
// meta.ecn_mark / meta.ecn_ramp.
control SwitchEgressRewrite(inout headers_t hdr, inout switch_metadata_t meta) {

    // low/high: queue depths between which the marking probability of ECT
    // packets rises linearly from 0 to 1.
    @name(".SwitchEgress.set_ecn_thresholds")
    action set_ecn_thresholds(bit<19> low, bit<19> high) {
        meta.ecn_enabled = true;
        meta.ecn_low = low;
        meta.ecn_high = high;
    }

    // Ports toward NICs: ECN signals imbalance in the fabric, not receiver
    // incast, so the last hop never marks [paper].
    @name(".SwitchEgress.disable_ecn_marking")
    action disable_ecn_marking() {
        meta.ecn_enabled = false;
    }

    @name(".SwitchEgress.ecn_config")
    table ecn_config {
        key = {
            meta.egress_port: exact @name("egress_port");
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
        if (meta.to_cpu) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = (bit<16>)meta.ingress_port;
            hdr.packet_in.reason = meta.punt_reason;
        } else if (!meta.from_cpu && hdr.ipv6.isValid()) {
            meta.transit = true;
            // Second chance: the queue this packet met was over the threshold
            // although the ingress estimate (if the architecture has one) was not.
            if (meta.trim_eligible && !meta.trim
                    && meta.enq_qdepth >= meta.trim_threshold) {
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
                meta.trim_length = (bit<32>)(ETHERNET_BYTES + IPV6_BYTES + hdr.ipv6.payload_len);
            } else {
                ecn_config.apply();
                // Only ECT(0)/ECT(1) packets are marked; CE stays CE and
                // Not-ECT is never touched (RFC 3168 section 5).
                if (meta.ecn_enabled
                        && (hdr.ipv6.ecn == ECN_ECT0 || hdr.ipv6.ecn == ECN_ECT1)) {
                    if (meta.enq_qdepth >= meta.ecn_high) {
                        meta.ecn_mark = true;
                    } else if (meta.enq_qdepth > meta.ecn_low) {
                        // RED ramp: P(mark) = (depth - low) / (high - low).
                        meta.ecn_ramp = true;
                        meta.ecn_span = meta.ecn_high - meta.ecn_low;
                        meta.ecn_excess = meta.enq_qdepth - meta.ecn_low;
                    }
                }
            }
        }
    }
}

// After the architecture drew meta.ecn_draw (on the ramp only): CE or not.
// Marking the outer header is enough: the decapsulating NIC carries CE inward
// (RFC 6040).
control SwitchEcnMark(inout headers_t hdr, inout switch_metadata_t meta) {
    apply {
        if (meta.ecn_mark || (meta.ecn_ramp && meta.ecn_draw < meta.ecn_excess)) {
            hdr.ipv6.ecn = ECN_CE;
            meta.ecn_marked = true;
        }
    }
}

#endif  /* _MRC_SWITCH_EGRESS_P4_ */
