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
// in a new order.  A SKIP slot (ECN echo, trim) misses this one turn, and the
// first one passed in a packet is GOOD again (at most one restore per packet:
// SKIP is one bit per EV, cleared as the rotation passes it).  A slot on a
// plane that is down (docs/mrc-nic.md 3.1) and the slot a retransmission must
// avoid are passed and keep their state.
control NicSlotCheck(in bit<16> qp_index,
                     in bit<16> ev_slots,
                     in bit<8> ev_mask,
                     in bit<8> planes_down,
                     in bit<16> avoid_slot,
                     inout bit<8> position,
                     inout bit<8> rotation_xor,
                     inout bool restored,
                     inout bool found,
                     inout bit<16> chosen,
                     inout bit<8> chosen_state) {
    apply {
        if (!found) {
            bit<16> slot = (bit<16>)((position ^ rotation_xor) & ev_mask);
            if (position >= ev_mask) {
                position = 0;
                NIC_RANDOM(rotation_xor, ev_mask);
            } else {
                position = position + 1;
            }
            if (slot < ev_slots && slot != avoid_slot) {
                bit<8> state;
                NIC_REG_READ(state, ev_slot_state, NIC_SLOT_INDEX(qp_index, slot));
                bool up = true;
                if (planes_down != 0 && state[5:2] != 0) {
                    up = (planes_down & (8w1 << (bit<8>)(state[5:2] - 1))) == 0;
                }
                if (up && state[1:0] == EV_SLOT_GOOD) {
                    found = true;
                    chosen = slot;
                    chosen_state = state;
                } else if (up && state[1:0] == EV_SLOT_SKIP && !restored) {
                    restored = true;
                    ev_slot_state.write(NIC_SLOT_INDEX(qp_index, slot),
                                        state[7:2] ++ EV_SLOT_GOOD);
                }
            }
        }
    }
}

// PSN and slot of a write posted by the host.
control NicTransmit(in headers_t hdr, inout nic_metadata_t meta) {
    // NIC_EV_SEARCH (8) positions per packet, one per plane: bounded work per
    // pass, and with plane-interleaved slots 8 positions of one rotation pass
    // every dead plane's slot to a live one (docs/mrc-nic.md section 3).  Only
    // a rotation's wrap, where r is redrawn, can break that run; then the
    // packet falls back on the last slot used.
    NicSlotCheck() check0;
    NicSlotCheck() check1;
    NicSlotCheck() check2;
    NicSlotCheck() check3;
    NicSlotCheck() check4;
    NicSlotCheck() check5;
    NicSlotCheck() check6;
    NicSlotCheck() check7;

    apply {
        bit<32> qp = (bit<32>)meta.qp_index;
        // A retransmission goes on another EV than the transmission it replaces
        // (docs/mrc-protocol.md 4: "retransmit that PSN at once on another EV"):
        // psn_ev still names that EV, so its slot is avoided.  Retransmissions
        // keep the PSN the host gives them and travel as DSCP 8 (trimmable
        // retransmission, docs/mrc-protocol.md section 3).
        bit<16> avoid_slot = 0xFFFF;
        if (hdr.bth.retransmit == 1) {
            meta.psn = hdr.bth.psn;
            meta.dscp = DSCP_TRIMMABLE_RETX;
            bit<32> old_ev;
            NIC_REG_READ(old_ev, psn_ev, NIC_PSN_INDEX(meta.qp_index, meta.psn));
            bit<16> old_id = (bit<16>)old_ev[8:0];
            if (old_ev == 0) {
                // Never sent, or dropped by the NIC: nothing to avoid.
            } else if (old_id < meta.ev_slots) {
                // A slot's own EV sits in that slot only.
                avoid_slot = old_id;
            } else {
                bit<16> home;
                NIC_REG_READ(home, ev_home_slot, NIC_EV_INDEX(meta.qp_index, old_id));
                avoid_slot = home - 1;
            }
        } else {
            NIC_REG_READ(meta.psn, nic_next_psn, qp);
            nic_next_psn.write(qp, meta.psn + 1);
            meta.dscp = DSCP_TRIMMABLE;
        }

        // Planes down at this end (nic_planes) or at the peer's (its last
        // port-status update) carry nothing toward it.
        bit<8> peer_down;
        NIC_REG_READ(peer_down, qp_peer_planes_down, qp);
        meta.planes_down = meta.planes_down | peer_down;

        bit<8> position;
        bit<8> rotation_xor;
        NIC_REG_READ(position, nic_rot_cursor, qp);
        NIC_REG_READ(rotation_xor, nic_rot_xor, qp);
        bool restored = false;
        bool found = false;
        bit<16> chosen = 0;
        check0.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check1.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check2.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check3.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check4.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check5.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check6.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        check7.apply(meta.qp_index, meta.ev_slots, meta.ev_mask, meta.planes_down, avoid_slot,
                     position, rotation_xor, restored, found, chosen, meta.slot_state);
        nic_rot_cursor.write(qp, position);
        nic_rot_xor.write(qp, rotation_xor);

        if (found) {
            nic_last_slot.write(qp, chosen);
            // The slot's plane is learnt from its first send (NicSettle).
            meta.learn_plane = meta.slot_state[5:2] == 0;
        } else {
            // Nothing usable within the bound: the last slot used is the best
            // guess (recirculating would cost a pass exactly when many paths
            // are bad).
            NIC_REG_READ(chosen, nic_last_slot, qp);
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
