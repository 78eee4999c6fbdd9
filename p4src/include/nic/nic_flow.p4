/*
 * The NIC's pass between its table stages (docs/mrc-nic.md sections 3-5),
 * architecture-neutral: each control works on headers_t and nic_metadata_t
 * only and leaves the packet's fate in meta.drop_reason and meta.out_*, which
 * the architecture's top level turns into its own forwarding calls.
 *
 * A top level's main control applies, in this order:
 *   classify (NicClassify), lookup (NicLookup), work (NicWork),
 *   ev (NicEvLookup), settle (NicSettle), [digest of meta.event],
 *   path (NicPathLookup), forward (NicForward).
 *
 * Needs constants.p4, headers.p4, nic_types.p4, nic_state.p4 and the
 * transmit, receive and EV-state controls.
 */

#ifndef _MRC_NIC_FLOW_P4_
#define _MRC_NIC_FLOW_P4_

// What the packet asks of the QP: a PSN and slot (write), an EV (probe), the
// window (arrival), or an EV reaction (SACK, NACK, loss report).
control NicWork(in headers_t hdr, inout nic_metadata_t meta) {
    NicTransmit() transmit;
    NicReceive() receive;
    NicEvReaction() react;

    apply {
        if (meta.drop_reason == 0 && meta.transport) {
            if (meta.tx_data) {
                transmit.apply(hdr, meta);
            } else if (meta.tx_probe) {
                // A probe goes on the EV the host chose, whatever its state, as
                // trimmable data (docs/mrc-protocol.md section 3).
                meta.ev = hdr.udp.src_port ++ hdr.ipv6.flow_label[15:0];
                meta.dscp = DSCP_TRIMMABLE;
            } else if (meta.rx_data || meta.rx_probe) {
                meta.ev = hdr.udp.src_port ++ hdr.ipv6.flow_label[15:0];
                receive.apply(hdr, meta);
            } else if (meta.rx_port_status) {
                // The peer's ports that are down (docs/mrc-nic.md 3.1): this
                // NIC's rotation toward it passes their slots from now on.
                qp_peer_planes_down.write((bit<32>)meta.qp_index, hdr.nack.vendor);
                event_counter.count(NIC_EVENT_PORT_STATUS);
            } else {
                react.apply(hdr, meta);
            }
        }
    }
}

// After the qp_ev lookup: the write's EV is fixed and remembered for loss
// reports, or the EV reaction is committed (meta.event_reason != 0 then asks
// the top level for an ev_event_t digest).  Decides which packets need a path.
control NicSettle(in headers_t hdr, inout nic_metadata_t meta) {
    NicEvCommit() commit;

    apply {
        if (meta.drop_reason == 0 && meta.transport) {
            if (meta.tx_data) {
                if (meta.ev_hit) {
                    meta.ev = meta.t1_usid ++ 7w0 ++ meta.ev_id[8:0];
                    bit<8> plane = (bit<8>)meta.ev[31:29];
                    if (meta.learn_plane) {
                        ev_slot_state.write(NIC_SLOT_INDEX(meta.qp_index, meta.slot),
                                            NIC_SLOT_STATE(plane, meta.slot_state[1:0]));
                    }
                    // Every transmission, retransmissions included, names its EV
                    // here: a loss report for the PSN blames the copy that was
                    // lost (docs/mrc-nic.md 3).
                    bit<32> carried = meta.ev;
                    if (meta.planes_down != 0
                            && (meta.planes_down & (8w1 << plane)) != 0) {
                        // A slot first used since its plane went down: its plane
                        // is learnt now; the packet is not sent into a dead port
                        // and blames no EV (the host resends it).
                        meta.drop_reason = NIC_DROP_PLANE_DOWN;
                        carried = 0;
                    } else {
                        slot_tx_counter.count(NIC_SLOT_INDEX(meta.qp_index, meta.slot));
                    }
                    psn_ev.write(NIC_PSN_INDEX(meta.qp_index, meta.psn), carried);
                } else {
                    meta.drop_reason = NIC_DROP_NO_EV;
                }
            } else if (meta.loss_report || meta.rx_sack || meta.rx_nack) {
                commit.apply(meta);
                if (meta.event_reason != 0) {
                    meta.event.local_qpn = hdr.bth.dest_qp;
                }
            }
            meta.plane = (bit<8>)meta.ev[31:29];
            if (meta.tx_data || meta.tx_probe) {
                meta.need_path = meta.drop_reason == 0;
            }
        }
    }
}

// Where the packet goes, in the NIC's own terms: out_port (DROP_PORT: nowhere),
// out_mcast_group (deliver and reply at once), out_priority; drops counted.
control NicForward(inout headers_t hdr, inout nic_metadata_t meta) {
    NicEncap() encap;

    apply {
        if (meta.drop_reason == 0 && meta.transport) {
            if (meta.tx_data || meta.tx_probe) {
                encap.apply(hdr, meta);
                NIC_COUNT_BYTES(qp_tx_counter, (bit<32>)meta.qp_index);
            } else if (meta.loss_report || meta.rx_port_status) {
                // Consumed: the report or update was for the NIC alone.
                meta.out_port = DROP_PORT;
            } else if (meta.rx_sack || meta.rx_nack) {
                // The host frees, retransmits and times on what the peer said.
                meta.deliver = true;
                meta.out_port = NIC_HOST_PORT;
            } else if (meta.deliver && meta.reply != NIC_REPLY_NONE) {
                meta.out_mcast_group = NIC_REPLY_MCAST_BASE + (bit<16>)meta.plane;
                meta.out_priority = PRIORITY_HIGH;
            } else if (meta.deliver) {
                meta.out_port = NIC_HOST_PORT;
            } else if (meta.reply != NIC_REPLY_NONE) {
                meta.out_port = meta.plane_port;
                meta.out_priority = PRIORITY_HIGH;
            }
        }
        if (meta.drop_reason != 0) {
            NIC_COUNT_BYTES(drop_counter, meta.drop_reason);
        }
    }
}

#endif  /* _MRC_NIC_FLOW_P4_ */
