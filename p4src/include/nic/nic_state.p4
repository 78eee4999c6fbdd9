/*
 * State of the MRC smart NIC (docs/mrc-nic.md section 2): registers the NIC
 * keeps for itself and counters the controller reads.
 *
 * BMv2's P4Runtime server does not serve registers, so nothing here is
 * control-plane configuration: every register starts at 0 and 0 means "as the
 * controller configured through the tables".  Indexes:
 *   per QP        qp_index
 *   per slot      qp_index * NIC_EV_SLOTS + slot           (<< 8)
 *   per EV id     qp_index * NIC_EV_IDS + ev_id            (<< 9)
 *   per plane     qp_index * NIC_MAX_PLANES + plane        (<< 3)
 *   per PSN       qp_index * NIC_PSN_TRACK + psn % 256     (<< 8)
 * Declared at the top level because several controls of one pass use them
 * (v1model allows it; p4c's BMv2 back end treats them as globals).
 *
 * Needs constants.p4 and v1model (register, counter).
 */

#ifndef _MRC_NIC_STATE_P4_
#define _MRC_NIC_STATE_P4_

const bit<32> NIC_SLOT_ENTRIES = NIC_QP_COUNT * NIC_EV_SLOTS;
const bit<32> NIC_EV_ID_ENTRIES = NIC_QP_COUNT * NIC_EV_IDS;
const bit<32> NIC_PLANE_ENTRIES = NIC_QP_COUNT * NIC_MAX_PLANES;
const bit<32> NIC_PSN_ENTRIES = NIC_QP_COUNT * NIC_PSN_TRACK;

/* ---- sender ---- */
register<bit<24>, bit<32>>(NIC_QP_COUNT) nic_next_psn;
register<bit<8>, bit<32>>(NIC_QP_COUNT) nic_rot_cursor;
register<bit<8>, bit<32>>(NIC_QP_COUNT) nic_rot_xor;
register<bit<16>, bit<32>>(NIC_QP_COUNT) nic_last_slot;
register<bit<16>, bit<32>>(NIC_QP_COUNT) qp_empty_slots;
register<bit<2>, bit<32>>(NIC_SLOT_ENTRIES) ev_slot_state;
register<bit<16>, bit<32>>(NIC_SLOT_ENTRIES) ev_slot_member;
register<bit<2>, bit<32>>(NIC_EV_ID_ENTRIES) ev_pool_state;
register<bit<16>, bit<32>>(NIC_EV_ID_ENTRIES) ev_home_slot;
register<bit<8>, bit<32>>(NIC_EV_ID_ENTRIES) ev_probe_ok;
register<bit<8>, bit<32>>(NIC_PLANE_ENTRIES) backup_cursor;
register<bit<32>, bit<32>>(NIC_PSN_ENTRIES) psn_ev;

/* ---- receiver ---- */
register<bit<24>, bit<32>>(NIC_QP_COUNT) rx_expected;
register<bit<64>, bit<32>>(NIC_QP_COUNT) rx_bitmap;
register<bit<8>, bit<32>>(NIC_QP_COUNT) rx_unacked;
register<bit<24>, bit<32>>(NIC_QP_COUNT) rx_bytes;

/* ---- counters (docs/mrc-nic.md section 6) ---- */
counter<bit<32>>(NIC_QP_COUNT, CounterType.packets_and_bytes) qp_tx_counter;
counter<bit<32>>(NIC_QP_COUNT, CounterType.packets_and_bytes) qp_rx_counter;
counter<bit<32>>(NIC_QP_COUNT, CounterType.packets) qp_ecn_counter;
counter<bit<32>>(NIC_QP_COUNT, CounterType.packets) qp_trim_counter;
counter<bit<32>>(NIC_QP_COUNT, CounterType.packets) qp_retire_counter;
counter<bit<32>>(NIC_SLOT_ENTRIES, CounterType.packets) slot_tx_counter;
counter<bit<32>>(NIC_SLOT_ENTRIES, CounterType.packets) slot_ecn_counter;
counter<bit<32>>(NIC_SLOT_ENTRIES, CounterType.packets) slot_trim_counter;
counter<bit<32>>(NIC_SLOT_ENTRIES, CounterType.packets) slot_retire_counter;
counter<bit<8>>(NIC_DROP_REASON_COUNT, CounterType.packets_and_bytes) drop_counter;
counter<bit<32>>(NIC_EVENT_COUNT, CounterType.packets) event_counter;

// Index helpers: the shifts are the sizes above (powers of two).
#define NIC_SLOT_INDEX(qp, slot) (((bit<32>)(qp) << 8) | (bit<32>)(slot))
#define NIC_EV_INDEX(qp, id) (((bit<32>)(qp) << 9) | (bit<32>)(id))
#define NIC_PLANE_INDEX(qp, plane) (((bit<32>)(qp) << 3) | (bit<32>)(plane))

#endif  /* _MRC_NIC_STATE_P4_ */
