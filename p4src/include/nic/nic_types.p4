/*
 * Types of the MRC smart NIC (docs/mrc-nic.md): the metadata one packet
 * carries through the NIC's controls, and the digest the controller receives.
 *
 * Architecture-neutral: nothing here names v1model; the top level
 * (p4src/mrc_nic.p4) maps the out_* fields onto its intrinsic metadata.
 */

#ifndef _MRC_NIC_TYPES_P4_
#define _MRC_NIC_TYPES_P4_

// Sent when an EV is retired, refused retirement (floor) or restored
// (docs/mrc-nic.md section 5).  new_ev is 0 when no EV took the slot; slot is
// NIC_EV_SLOTS when a restored EV went to the backup pool, not a slot.
struct ev_event_t {
    bit<24> local_qpn;
    bit<16> qp_index;
    bit<16> slot;
    bit<32> old_ev;
    bit<32> new_ev;
    bit<8> reason;            // an EV_EVENT_* constant
}

// What ingress decided to send back for an arriving packet.
const bit<2> NIC_REPLY_NONE = 0;
const bit<2> NIC_REPLY_SACK = 1;
const bit<2> NIC_REPLY_NACK = 2;

struct nic_metadata_t {
    bit<9> ingress_port;
    // PNA without __TARGET_BMV2__ (p4c-dpdk; bm with -U __TARGET_BMV2__): the
    // frame's length for byte counters (NIC_COUNT_BYTES); v1model and BMv2
    // count the packet's own length.
    bit<32> frame_len;

    /* ---- classification ---- */
    bit<8> drop_reason;            // non-zero: dropped (NIC_DROP_*)
    bool tx_data;                  // a write posted by the host
    bool tx_probe;                 // a probe posted by the host or the controller
    bool loss_report;              // a host loss report
    bool rx_data;                  // from the fabric, for this NIC
    bool rx_probe;
    bool rx_sack;
    bool rx_nack;
    bool rx_port_status;           // a peer's port-status update (NACK_PORT_STATUS)
    bool local;                    // nic_address hit
    bool transport;                // one of the eight kinds above: MRC work to do

    /* ---- QP context (qp_context) ---- */
    bool qp_hit;
    bit<16> qp_index;
    bit<24> remote_qpn;
    bit<16> ev_slots;
    bit<8> ev_mask;
    bit<16> min_active;
    bit<8> backups_per_plane;
    bit<8> sack_every;
    bit<8> probe_threshold;

    /* ---- the EV concerned ---- */
    bit<32> ev;                    // sent on, arrived on, echoed or reported
    bit<8> plane;                  // ev[31:29]
    bit<16> slot;
    bool need_ev;                  // look ev_id up in qp_ev
    bit<16> ev_id;
    bool ev_hit;
    bit<16> t1_usid;

    /* ---- paths (plane_port, qp_plane) ---- */
    bool need_path;
    bool path_hit;
    bit<9> plane_port;
    bit<48> nic_mac;
    bit<48> next_hop_mac;
    bit<32> usid_block;
    bit<16> src_t0_usid;
    bit<16> dst_t0_usid;
    bit<16> down_usid;
    bit<128> carrier;

    /* ---- transmit ---- */
    bit<24> psn;
    bit<6> dscp;
    bit<8> planes_down;            // this NIC's (nic_planes) and the peer's, bit p = plane p
    bit<8> slot_state;             // ev_slot_state of the chosen slot, as read
    bool learn_plane;              // the chosen slot's plane is not known yet

    /* ---- EV reactions and retirement ---- */
    bool retire;
    bit<8> event_reason;           // EV_EVENT_* of the digest to send, 0 = none
    bit<16> old_ev_id;
    bool refill;                   // a backup was found for the slot
    bool from_backup_range;        // ... by the round robin over the plane's backups
    bit<8> backup_cursor;          // the round robin's position of that backup
    ev_event_t event;

    /* ---- receive and replies ---- */
    bool deliver;                  // a copy goes to the host port
    bit<2> reply;                  // NIC_REPLY_*
    bit<8> nack_reason;
    bit<2> sack_mark;
    bit<1> sack_pr;
    bit<24> cumulative_psn;
    bit<16> sack_offset;           // the bitmap's first PSN - cumulative_psn
    bit<64> sack_bitmap;
    bit<24> received_bytes;

    /* ---- where the packet goes (mapped by the architecture) ---- */
    bit<9> out_port;
    bit<16> out_mcast_group;
    bit<3> out_priority;
}

#endif  /* _MRC_NIC_TYPES_P4_ */
