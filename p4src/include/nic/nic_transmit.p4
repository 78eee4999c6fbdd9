/*
 * Transmit: PSN assignment, the EV rotation, and MRC encapsulation
 * (docs/mrc-nic.md section 3).
 *
 * Needs constants.p4, headers.p4, nic_types.p4, nic_state.p4.
 */

#ifndef _MRC_NIC_TRANSMIT_P4_
#define _MRC_NIC_TRANSMIT_P4_

// One position of a QP's rotation.  Position i is slot (i XOR r) & ev_mask,
// with r redrawn at each wrap, as htsim walks an EV set
// (docs/mrc-protocol.md section 4): every rotation visits every slot once,
// in a new order.  A SKIP slot (ECN echo, trim) misses this one turn.
control NicSlotCheck(in bit<16> qp_index,
                     in bit<16> ev_slots,
                     in bit<8> ev_mask,
                     inout bit<8> position,
                     inout bit<8> rotation_xor,
                     inout bool found,
                     inout bit<16> chosen) {
    apply {
        if (!found) {
            bit<16> slot = (bit<16>)((position ^ rotation_xor) & ev_mask);
            if (position >= ev_mask) {
                position = 0;
                NIC_RANDOM(rotation_xor, ev_mask);
            } else {
                position = position + 1;
            }
            if (slot < ev_slots) {
                bit<2> state;
                NIC_REG_READ(state, ev_slot_state, NIC_SLOT_INDEX(qp_index, slot));
                if (state == EV_SLOT_GOOD) {
                    found = true;
                    chosen = slot;
                } else if (state == EV_SLOT_SKIP) {
                    ev_slot_state.write(NIC_SLOT_INDEX(qp_index, slot), EV_SLOT_GOOD);
                }
            }
        }
    }
}

// PSN and slot of a write posted by the host.
control NicTransmit(in headers_t hdr, inout nic_metadata_t meta) {
    // NIC_EV_SEARCH (4) positions per packet: bounded work per pass.
    NicSlotCheck() check0;
    NicSlotCheck() check1;
    NicSlotCheck() check2;
    NicSlotCheck() check3;

    apply {
        // Retransmissions keep the PSN the host gives them and travel as
        // DSCP 8 (trimmable retransmission, docs/mrc-protocol.md section 3).
        if (hdr.bth.retransmit == 1) {
            meta.psn = hdr.bth.psn;
            meta.dscp = DSCP_TRIMMABLE_RETX;
        } else {
            NIC_REG_READ(meta.psn, nic_next_psn, (bit<32>)meta.qp_index);
            nic_next_psn.write((bit<32>)meta.qp_index, meta.psn + 1);
            meta.dscp = DSCP_TRIMMABLE;
        }

        bit<8> position;
        bit<8> rotation_xor;
        NIC_REG_READ(position, nic_rot_cursor, (bit<32>)meta.qp_index);
        NIC_REG_READ(rotation_xor, nic_rot_xor, (bit<32>)meta.qp_index);
        bool found = false;
        bit<16> chosen = 0;
        check0.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, position, rotation_xor,
                     found, chosen);
        check1.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, position, rotation_xor,
                     found, chosen);
        check2.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, position, rotation_xor,
                     found, chosen);
        check3.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, position, rotation_xor,
                     found, chosen);
        nic_rot_cursor.write((bit<32>)meta.qp_index, position);
        nic_rot_xor.write((bit<32>)meta.qp_index, rotation_xor);

        if (found) {
            nic_last_slot.write((bit<32>)meta.qp_index, chosen);
        } else {
            // Nothing usable within the bound: the last slot used is the best
            // guess (recirculating would cost a pass exactly when many paths
            // are bad).
            NIC_REG_READ(chosen, nic_last_slot, (bit<32>)meta.qp_index);
            event_counter.count(NIC_EVENT_SEARCH_FALLBACK);
        }
        meta.slot = chosen;

        // A slot holds its own EV id until a backup refills it.
        bit<16> member;
        NIC_REG_READ(member, ev_slot_member, NIC_SLOT_INDEX(meta.qp_index, chosen));
        if (member == 0) {
            meta.ev_id = chosen;
        } else {
            meta.ev_id = member - 1;
        }
        meta.need_ev = true;
    }
}

// Outer IPv6 around the host's packet (docs/mrc-protocol.md section 3): the
// fabric routes on the carrier alone, the EV rides in the UDP source port and
// the flow labels so the receiver can echo it.
control NicEncap(inout headers_t hdr, inout nic_metadata_t meta) {
    apply {
        hdr.inner_ipv6 = hdr.ipv6;
        hdr.inner_ipv6.dscp = meta.dscp;
        // RFC 6040 normal mode: both headers ECN-capable, so a switch marks
        // the outer one and the receiving NIC reads it there.
        hdr.inner_ipv6.ecn = ECN_ECT0;
        hdr.inner_ipv6.flow_label = 4w0 ++ meta.ev[15:0];

        hdr.ipv6.dscp = meta.dscp;
        hdr.ipv6.ecn = ECN_ECT0;
        hdr.ipv6.flow_label = 4w0 ++ meta.ev[15:0];
        hdr.ipv6.payload_len = hdr.inner_ipv6.payload_len + IPV6_BYTES;
        hdr.ipv6.next_hdr = IP_PROTO_IPV6;
        hdr.ipv6.hop_limit = NIC_HOP_LIMIT;
        hdr.ipv6.dst_addr = meta.carrier;

        hdr.udp.src_port = meta.ev[31:16];
        // RoCEv2 practice: UDP checksum 0 (the source port changed here).
        hdr.udp.checksum = 0;
        hdr.bth.dest_qp = meta.remote_qpn;
        if (meta.tx_data) {
            hdr.bth.psn = meta.psn;
        }
        hdr.ethernet.src_addr = meta.nic_mac;
        hdr.ethernet.dst_addr = meta.next_hop_mac;

        meta.out_port = meta.plane_port;
        meta.out_priority = PRIORITY_DATA;
    }
}

#endif  /* _MRC_NIC_TRANSMIT_P4_ */
