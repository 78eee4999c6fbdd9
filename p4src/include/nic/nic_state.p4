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
 *   per PSN       qp_index * NIC_PSN_TRACK + psn % 1024    (<< 10)
 *   per rx word   qp_index * NIC_RX_WORDS + psn[10:6]      (<< 5)
 * Declared at the top level because several controls of one pass use them
 * (v1model and PNA allow it; p4c's BMv2 back ends treat them as globals), and
 * so named alike, without a control's prefix, on every architecture.
 *
 * The architecture's top level says how state is declared and used, before
 * including this file (the names of its externs differ, the behaviour not):
 *   NIC_REGISTER(T, size)          a register array of T indexed by bit<32>
 *   NIC_REG_READ(dst, reg, index)  dst = reg[index]
 *   NIC_COUNTER(I, size, unit)     a counter array indexed by I, unit one of
 *   NIC_PACKETS, NIC_PACKETS_AND_BYTES
 *   NIC_COUNT_BYTES(ctr, index)    counts the packet on a NIC_PACKETS_AND_BYTES
 *                                  counter (p4c-dpdk needs the length spelt
 *                                  out: meta.frame_len, see pna/mrc_nic.p4)
 *   NIC_RANDOM(dst, mask)          dst = a uniform draw from 0..mask (mask is
 *                                  2^k - 1, from the QP's ev_mask)
 * Writes (reg.write(index, value)) and counts of NIC_PACKETS counters
 * (ctr.count(index)) are spelt alike in v1model and PNA.
 *
 * Needs constants.p4.
 */

#ifndef _MRC_NIC_STATE_P4_
#define _MRC_NIC_STATE_P4_

const bit<32> NIC_SLOT_ENTRIES = NIC_QP_COUNT * NIC_EV_SLOTS;
const bit<32> NIC_EV_ID_ENTRIES = NIC_QP_COUNT * NIC_EV_IDS;
const bit<32> NIC_PLANE_ENTRIES = NIC_QP_COUNT * NIC_MAX_PLANES;
const bit<32> NIC_PSN_ENTRIES = NIC_QP_COUNT * NIC_PSN_TRACK;
const bit<32> NIC_RX_WORD_ENTRIES = NIC_QP_COUNT * NIC_RX_WORDS;

/* ---- sender ---- */
NIC_REGISTER(bit<24>, NIC_QP_COUNT) nic_next_psn;
NIC_REGISTER(bit<8>, NIC_QP_COUNT) nic_rot_cursor;
NIC_REGISTER(bit<8>, NIC_QP_COUNT) nic_rot_xor;
NIC_REGISTER(bit<16>, NIC_QP_COUNT) nic_last_slot;
NIC_REGISTER(bit<16>, NIC_QP_COUNT) qp_empty_slots;
// The peer's planes-down mask, from its last port-status update (bit p = plane p).
NIC_REGISTER(bit<8>, NIC_QP_COUNT) qp_peer_planes_down;
// [1:0] EV_SLOT_*, [5:2] the slot's plane + 1 (0: not sent on yet).
NIC_REGISTER(bit<8>, NIC_SLOT_ENTRIES) ev_slot_state;
NIC_REGISTER(bit<16>, NIC_SLOT_ENTRIES) ev_slot_member;
NIC_REGISTER(bit<2>, NIC_EV_ID_ENTRIES) ev_pool_state;
NIC_REGISTER(bit<16>, NIC_EV_ID_ENTRIES) ev_home_slot;
NIC_REGISTER(bit<8>, NIC_EV_ID_ENTRIES) ev_probe_ok;
NIC_REGISTER(bit<8>, NIC_PLANE_ENTRIES) backup_cursor;
NIC_REGISTER(bit<32>, NIC_PSN_ENTRIES) psn_ev;

/* ---- receiver ---- */
NIC_REGISTER(bit<24>, NIC_QP_COUNT) rx_expected;
NIC_REGISTER(bit<64>, NIC_RX_WORD_ENTRIES) rx_bitmap;
NIC_REGISTER(bit<8>, NIC_QP_COUNT) rx_unacked;
// One past the highest PSN a SACK of this QP has shown received (4.1): a hole
// below it is one the sender knows of.
NIC_REGISTER(bit<24>, NIC_QP_COUNT) rx_sack_high;
NIC_REGISTER(bit<24>, NIC_QP_COUNT) rx_bytes;

/* ---- counters (docs/mrc-nic.md section 6) ---- */
NIC_COUNTER(bit<32>, NIC_QP_COUNT, NIC_PACKETS_AND_BYTES) qp_tx_counter;
NIC_COUNTER(bit<32>, NIC_QP_COUNT, NIC_PACKETS_AND_BYTES) qp_rx_counter;
NIC_COUNTER(bit<32>, NIC_QP_COUNT, NIC_PACKETS) qp_ecn_counter;
NIC_COUNTER(bit<32>, NIC_QP_COUNT, NIC_PACKETS) qp_trim_counter;
NIC_COUNTER(bit<32>, NIC_QP_COUNT, NIC_PACKETS) qp_retire_counter;
NIC_COUNTER(bit<32>, NIC_SLOT_ENTRIES, NIC_PACKETS) slot_tx_counter;
NIC_COUNTER(bit<32>, NIC_SLOT_ENTRIES, NIC_PACKETS) slot_ecn_counter;
NIC_COUNTER(bit<32>, NIC_SLOT_ENTRIES, NIC_PACKETS) slot_trim_counter;
NIC_COUNTER(bit<32>, NIC_SLOT_ENTRIES, NIC_PACKETS) slot_retire_counter;
NIC_COUNTER(bit<8>, NIC_DROP_REASON_COUNT, NIC_PACKETS_AND_BYTES) drop_counter;
NIC_COUNTER(bit<32>, NIC_EVENT_COUNT, NIC_PACKETS) event_counter;

// Index helpers: the shifts are the sizes above (powers of two).
#define NIC_SLOT_INDEX(qp, slot) (((bit<32>)(qp) << 8) | (bit<32>)(slot))
#define NIC_EV_INDEX(qp, id) (((bit<32>)(qp) << 9) | (bit<32>)(id))
#define NIC_PLANE_INDEX(qp, plane) (((bit<32>)(qp) << 3) | (bit<32>)(plane))
#define NIC_PSN_INDEX(qp, psn) (((bit<32>)(qp) << 10) | ((bit<32>)(psn) & (NIC_PSN_TRACK - 1)))
#define NIC_RX_WORD_INDEX(qp, psn) \
    (((bit<32>)(qp) << 5) | (((bit<32>)(psn) >> 6) & (NIC_RX_WORDS - 1)))
// An ev_slot_state value: state `state` of a slot on plane `plane`.
// (EV_SLOT_PLANE_SHIFT = 2: the plane + 1 in bits [5:2], the state in [1:0].)
#define NIC_SLOT_STATE(plane, state) (2w0 ++ ((bit<4>)(plane) + 4w1) ++ (bit<2>)(state))

#endif  /* _MRC_NIC_STATE_P4_ */
