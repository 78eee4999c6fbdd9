/*
 * Egress of the NIC: the host's copy of an arriving packet loses its outer
 * header; the fabric's copy becomes the SACK or NACK (docs/mrc-nic.md 4.3).
 *
 * Needs constants.p4, headers.p4, nic_types.p4.
 */

#ifndef _MRC_NIC_REPLY_P4_
#define _MRC_NIC_REPLY_P4_

// The host sees what the peer sent: inner IPv6 and the transport headers.
control NicDecap(inout headers_t hdr) {
    apply {
        if (hdr.inner_ipv6.isValid()) {
            hdr.ipv6 = hdr.inner_ipv6;
            hdr.inner_ipv6.setInvalid();
        }
    }
}

// Turns an arriving packet into its answer, in place.  Returns the frame
// length the packet must be cut to (the payload goes).
control NicReplyBuilder(inout headers_t hdr, in nic_metadata_t meta, out bit<32> frame_len) {
    apply {
        ipv6_addr_t me = hdr.inner_ipv6.dst_addr;
        ipv6_addr_t peer = hdr.inner_ipv6.src_addr;
        bit<20> flow_label = 4w0 ++ meta.ev[15:0];
        bit<16> udp_len = UDP_BYTES + BTH_BYTES;

        hdr.meth.setInvalid();
        hdr.reth.setInvalid();
        hdr.immdt.setInvalid();
        hdr.probe.setInvalid();
        if (meta.reply == NIC_REPLY_SACK) {
            udp_len = udp_len + SACK_BYTES + SACK_CC_BYTES;
            hdr.bth.opcode = OPCODE_SACK;
            hdr.nack.setInvalid();
            hdr.sack.setValid();
            hdr.sack.pds_type = 0;
            hdr.sack.next_hdr = 0;
            hdr.sack.mark = meta.sack_mark;
            hdr.sack.reserved0 = 0;
            hdr.sack.pr = meta.sack_pr;
            if (meta.sack_pr == SACK_PR_PROBE) {
                hdr.sack.ack_psn_offset = 0;
            } else {
                hdr.sack.ack_psn_offset = (int<16>)(meta.psn - meta.cumulative_psn)[15:0];
            }
            hdr.sack.echoed_ev = meta.ev;
            hdr.sack.src_conn_id = hdr.bth.dest_qp[15:0];
            hdr.sack.dst_conn_id = meta.remote_qpn[15:0];
            hdr.sack.reserved1 = 0;
            hdr.sack.cumulative_psn = meta.cumulative_psn;
            hdr.sack.cc_type = 0;
            hdr.sack.cc_flags = 0;
            // The window is MPR x 128 PSNs; the bitmap is one 64-PSN word of
            // it, whose bit 0 is PSN cumulative_psn + sack_offset
            // (docs/mrc-nic.md 4.3).
            hdr.sack.mpr = (bit<8>)NIC_RX_MPR;
            hdr.sack.sack_offset = (int<16>)meta.sack_offset;
            hdr.sack.sack_bitmap = meta.sack_bitmap;
            hdr.sack_cc.setValid();
            hdr.sack_cc.echoed_tx_timestamp = 0;
            hdr.sack_cc.reserved0 = 0;
            hdr.sack_cc.ooo_count = 0;
            hdr.sack_cc.rc = 0;
            hdr.sack_cc.rcv_window_penalty = 0;
            hdr.sack_cc.received_bytes = meta.received_bytes;
        } else {
            udp_len = udp_len + NACK_BYTES;
            hdr.bth.opcode = OPCODE_NACK;
            hdr.sack.setInvalid();
            hdr.sack_cc.setInvalid();
            hdr.nack.setValid();
            hdr.nack.pds_type = 0;
            hdr.nack.next_hdr = 0;
            hdr.nack.reserved0 = 0;
            hdr.nack.reason = meta.nack_reason;
            hdr.nack.vendor = 0;
            hdr.nack.echoed_ev = meta.ev;
            hdr.nack.src_conn_id = hdr.bth.dest_qp[15:0];
            hdr.nack.dst_conn_id = meta.remote_qpn[15:0];
            hdr.nack.reserved1 = 0;
            hdr.nack.nack_psn = meta.psn;
            hdr.nack.cc_type = 0;
            hdr.nack.cc_flags = 0;
            hdr.nack.reserved2 = 0;
            hdr.nack.tx_timestamp = 0;
        }
        hdr.bth.solicited_event = 0;
        hdr.bth.mig_req = 0;
        hdr.bth.pad_count = 0;
        hdr.bth.dest_qp = meta.remote_qpn;
        hdr.bth.ack_req = 0;
        hdr.bth.retransmit = 0;
        hdr.bth.tseth_present = 0;
        hdr.bth.psn = meta.psn;

        hdr.udp.src_port = meta.ev[31:16];
        hdr.udp.dst_port = MRC_UDP_PORT;
        hdr.udp.length = udp_len;
        hdr.udp.checksum = 0;

        // Control traffic: DSCP 46, high priority, never trimmed, not
        // ECN-capable (docs/mrc-protocol.md section 3).
        hdr.inner_ipv6.dscp = DSCP_CONTROL;
        hdr.inner_ipv6.ecn = ECN_NOT_ECT;
        hdr.inner_ipv6.flow_label = flow_label;
        hdr.inner_ipv6.payload_len = udp_len;
        hdr.inner_ipv6.next_hdr = IP_PROTO_UDP;
        hdr.inner_ipv6.hop_limit = NIC_HOP_LIMIT;
        hdr.inner_ipv6.src_addr = me;
        hdr.inner_ipv6.dst_addr = peer;

        hdr.ipv6.version = 6;
        hdr.ipv6.dscp = DSCP_CONTROL;
        hdr.ipv6.ecn = ECN_NOT_ECT;
        hdr.ipv6.flow_label = flow_label;
        hdr.ipv6.payload_len = IPV6_BYTES + udp_len;
        hdr.ipv6.next_hdr = IP_PROTO_IPV6;
        hdr.ipv6.hop_limit = NIC_HOP_LIMIT;
        hdr.ipv6.src_addr = me;
        hdr.ipv6.dst_addr = meta.carrier;

        hdr.ethernet.src_addr = meta.nic_mac;
        hdr.ethernet.dst_addr = meta.next_hop_mac;
        hdr.ethernet.ether_type = ETHERTYPE_IPV6;

        frame_len = (bit<32>)(ETHERNET_BYTES + IPV6_BYTES + IPV6_BYTES + udp_len);
    }
}

#endif  /* _MRC_NIC_REPLY_P4_ */
