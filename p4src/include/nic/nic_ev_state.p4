/*
 * The sender's EV states (docs/mrc-nic.md sections 4.4 and 5): ECN echoes and
 * trims make a slot miss a turn, ALWAYS_SKIP and host loss reports retire an
 * EV and refill its slot from a backup of the same plane, answered probes
 * restore a retired EV.
 *
 * Two stages around the qp_ev lookup: NicEvReaction picks the backup whose
 * path is then looked up, NicEvCommit writes the outcome.
 *
 * Needs constants.p4, headers.p4, nic_types.p4, nic_state.p4.
 */

#ifndef _MRC_NIC_EV_STATE_P4_
#define _MRC_NIC_EV_STATE_P4_

// Whether EV id `id` of the QP waits in the backup pool: a backup id the
// controller configured and nobody took yet, or a restored EV (SPARE).
control NicPoolCheck(in bit<16> qp_index,
                     in bit<16> ev_slots,
                     in bit<16> id,
                     inout bool found,
                     inout bit<16> chosen) {
    apply {
        if (!found) {
            bit<2> pool;
            NIC_REG_READ(pool, ev_pool_state, NIC_EV_INDEX(qp_index, id));
            if (pool == EV_POOL_SPARE || (pool == EV_POOL_CONFIGURED && id >= ev_slots)) {
                found = true;
                chosen = id;
            }
        }
    }
}

// One step of the round robin over a plane's backup ids: the id at the cursor is
// checked and the cursor moves past it, so a search ends right after the backup
// it took and the next one starts there.
control NicBackupStep(in bit<16> qp_index,
                      in bit<16> ev_slots,
                      in bit<16> plane_base,
                      in bit<8> per_plane,
                      inout bit<8> cursor,
                      inout bool found,
                      inout bit<16> chosen,
                      inout bit<8> chosen_cursor) {
    NicPoolCheck() check;

    apply {
        if (!found) {
            chosen_cursor = cursor;
            check.apply(qp_index, ev_slots, plane_base + (bit<16>)cursor, found, chosen);
            if (cursor + 1 >= per_plane) {
                cursor = 0;
            } else {
                cursor = cursor + 1;
            }
        }
    }
}

control NicEvReaction(in headers_t hdr, inout nic_metadata_t meta) {
    NicPoolCheck() own_check;
    // NIC_BACKUP_SEARCH (4) steps: bounded work per pass.
    NicBackupStep() step0;
    NicBackupStep() step1;
    NicBackupStep() step2;
    NicBackupStep() step3;

    apply {
        bit<32> qp = (bit<32>)meta.qp_index;
        if (meta.loss_report) {
            // The host knows the PSN it lost, the NIC knows the EV that
            // carried it.
            NIC_REG_READ(meta.ev, psn_ev, NIC_PSN_INDEX(meta.qp_index, hdr.nack.nack_psn));
            meta.retire = true;
            meta.event_reason = EV_EVENT_HOST_LOSS;
            event_counter.count(NIC_EVENT_LOSS_REPORT);
        } else if (meta.rx_sack) {
            meta.ev = hdr.sack.echoed_ev;
        } else {
            meta.ev = hdr.nack.echoed_ev;
        }
        meta.old_ev_id = (bit<16>)meta.ev[8:0];
        meta.plane = (bit<8>)meta.ev[31:29];

        // Where the EV is: in a slot (its own, or one it refilled), retired,
        // or in the pool.
        bit<2> pool;
        NIC_REG_READ(pool, ev_pool_state, NIC_EV_INDEX(meta.qp_index, meta.old_ev_id));
        // (Spelt as ifs: p4c-dpdk cannot assign a bool from || and &&.)
        bool in_slot = false;
        if (pool == EV_POOL_IN_SLOT) {
            in_slot = true;
        } else if (pool == EV_POOL_CONFIGURED && meta.old_ev_id < meta.ev_slots) {
            in_slot = true;
        }
        bit<16> home;
        NIC_REG_READ(home, ev_home_slot, NIC_EV_INDEX(meta.qp_index, meta.old_ev_id));
        if (pool == EV_POOL_CONFIGURED) {
            meta.slot = meta.old_ev_id;
        } else {
            meta.slot = home - 1;
        }

        if (meta.rx_sack && hdr.sack.mark == SACK_MARK_ALWAYS_SKIP) {
            meta.retire = true;
            meta.event_reason = EV_EVENT_ALWAYS_SKIP;
        }

        if (meta.retire && (meta.ev == 0 || !in_slot)) {
            // Already retired (a second loss on the same EV), or a PSN this
            // QP never sent: nothing to do.
            meta.retire = false;
            meta.event_reason = 0;
            event_counter.count(NIC_EVENT_STALE_REPORT);
        } else if (meta.retire) {
            // A refill of the same plane keeps every plane's share of the
            // traffic [paper]: first the slot's own EV if probes restored it,
            // then up to NIC_BACKUP_SEARCH backups of the plane.
            bool found = false;
            bit<16> chosen = 0;
            if (meta.slot < meta.ev_slots && meta.slot != meta.old_ev_id) {
                own_check.apply(meta.qp_index, meta.ev_slots, meta.slot, found, chosen);
            }
            if (!found && meta.backups_per_plane != 0) {
                bit<8> cursor;
                NIC_REG_READ(cursor, backup_cursor, NIC_PLANE_INDEX(meta.qp_index, meta.plane));
                // base = NIC_EV_BACKUP_BASE + plane * per_plane, by the plane's
                // three bits: p4c-dpdk has no multiplication of two variables.
                bit<16> per_plane = (bit<16>)meta.backups_per_plane;
                bit<16> base = (bit<16>)NIC_EV_BACKUP_BASE;
                if (meta.plane[0:0] == 1) { base = base + per_plane; }
                if (meta.plane[1:1] == 1) { base = base + (per_plane << 1); }
                if (meta.plane[2:2] == 1) { base = base + (per_plane << 2); }
                step0.apply(meta.qp_index, meta.ev_slots, base, meta.backups_per_plane, cursor,
                            found, chosen, meta.backup_cursor);
                step1.apply(meta.qp_index, meta.ev_slots, base, meta.backups_per_plane, cursor,
                            found, chosen, meta.backup_cursor);
                step2.apply(meta.qp_index, meta.ev_slots, base, meta.backups_per_plane, cursor,
                            found, chosen, meta.backup_cursor);
                step3.apply(meta.qp_index, meta.ev_slots, base, meta.backups_per_plane, cursor,
                            found, chosen, meta.backup_cursor);
                backup_cursor.write(NIC_PLANE_INDEX(meta.qp_index, meta.plane), cursor);
                meta.from_backup_range = found;
            }
            if (found) {
                meta.refill = true;
                meta.ev_id = chosen;
                meta.need_ev = true;
            }
        } else if (in_slot) {
            // An ECN echo or a fabric trim: this path is congested now, so it
            // misses its next turn; nothing longer (docs/mrc-protocol.md 4).
            bool skip = false;
            if (meta.rx_sack && hdr.sack.mark == SACK_MARK_SKIP_ONCE) {
                skip = true;
                qp_ecn_counter.count(qp);
                slot_ecn_counter.count(NIC_SLOT_INDEX(meta.qp_index, meta.slot));
            } else if (meta.rx_nack && hdr.nack.reason == NACK_TRIMMED) {
                skip = true;
            }
            if (skip) {
                bit<8> state;
                NIC_REG_READ(state, ev_slot_state, NIC_SLOT_INDEX(meta.qp_index, meta.slot));
                if (state[1:0] == EV_SLOT_GOOD) {
                    ev_slot_state.write(NIC_SLOT_INDEX(meta.qp_index, meta.slot),
                                        state[7:2] ++ EV_SLOT_SKIP);
                }
            }
        }

        if (meta.rx_nack
                && (hdr.nack.reason == NACK_TRIMMED || hdr.nack.reason == NACK_TRIMMED_LASTHOP)) {
            qp_trim_counter.count(qp);
            if (in_slot) {
                slot_trim_counter.count(NIC_SLOT_INDEX(meta.qp_index, meta.slot));
            }
        }

        if (meta.rx_sack && hdr.sack.pr == SACK_PR_PROBE && pool == EV_POOL_RETIRED) {
            // A probe on a retired EV came back: one step toward restoring it.
            bit<8> ok;
            NIC_REG_READ(ok, ev_probe_ok, NIC_EV_INDEX(meta.qp_index, meta.old_ev_id));
            ok = ok + 1;
            ev_probe_ok.write(NIC_EV_INDEX(meta.qp_index, meta.old_ev_id), ok);
            event_counter.count(NIC_EVENT_PROBE_OK);
            if (ok >= meta.probe_threshold) {
                meta.event_reason = EV_EVENT_RESTORED;
            }
        }
    }
}

control NicEvCommit(inout nic_metadata_t meta) {
    apply {
        bit<32> qp = (bit<32>)meta.qp_index;
        bit<32> old_index = NIC_EV_INDEX(meta.qp_index, meta.old_ev_id);
        bit<32> slot_index = NIC_SLOT_INDEX(meta.qp_index, meta.slot);
        meta.event.qp_index = meta.qp_index;
        meta.event.slot = meta.slot;
        meta.event.old_ev = meta.ev;
        meta.event.new_ev = 0;

        if (meta.retire) {
            bit<16> empty;
            NIC_REG_READ(empty, qp_empty_slots, qp);
            if (meta.refill && !meta.ev_hit) {
                if (meta.from_backup_range) {
                    // The id the search took has no path yet: the controller adds a
                    // plane's backups in id order (its top-up), so the search waits
                    // at this id until it is configured.
                    backup_cursor.write(NIC_PLANE_INDEX(meta.qp_index, meta.plane),
                                        meta.backup_cursor);
                }
                meta.refill = false;
            }
            if (meta.refill) {
                meta.event.new_ev = meta.t1_usid ++ 7w0 ++ meta.ev_id[8:0];
                ev_slot_member.write(slot_index, meta.ev_id + 1);
                ev_pool_state.write(NIC_EV_INDEX(meta.qp_index, meta.ev_id), EV_POOL_IN_SLOT);
                ev_home_slot.write(NIC_EV_INDEX(meta.qp_index, meta.ev_id), meta.slot + 1);
                // The backup is of the retired EV's plane, so is the slot.
                ev_slot_state.write(slot_index, NIC_SLOT_STATE(meta.plane, EV_SLOT_GOOD));
            } else if (meta.ev_slots - empty > meta.min_active) {
                // No backup: the slot stays empty, the QP keeps spraying over
                // the others, as long as the floor allows [public].
                ev_slot_state.write(slot_index, NIC_SLOT_STATE(meta.plane, EV_SLOT_EMPTY));
                qp_empty_slots.write(qp, empty + 1);
                event_counter.count(NIC_EVENT_NO_BACKUP);
            } else {
                // At the floor: too many EVs are bad at once, which says more
                // about the receiver or the fabric than about this path.
                meta.retire = false;
                meta.event_reason = EV_EVENT_FLOOR;
                event_counter.count(NIC_EVENT_FLOOR_HELD);
            }
            if (meta.retire) {
                ev_pool_state.write(old_index, EV_POOL_RETIRED);
                ev_probe_ok.write(old_index, 0);
                // A retired EV remembers its slot, for its return.
                ev_home_slot.write(old_index, meta.slot + 1);
                qp_retire_counter.count(qp);
                slot_retire_counter.count(slot_index);
            }
        } else if (meta.event_reason == EV_EVENT_RESTORED) {
            bit<8> state;
            NIC_REG_READ(state, ev_slot_state, slot_index);
            meta.event.old_ev = 0;
            meta.event.new_ev = meta.ev;
            ev_probe_ok.write(old_index, 0);
            if (state[1:0] == EV_SLOT_EMPTY) {
                bit<16> empty;
                NIC_REG_READ(empty, qp_empty_slots, qp);
                qp_empty_slots.write(qp, empty - 1);
                ev_slot_member.write(slot_index, meta.old_ev_id + 1);
                ev_pool_state.write(old_index, EV_POOL_IN_SLOT);
                ev_slot_state.write(slot_index, NIC_SLOT_STATE(meta.plane, EV_SLOT_GOOD));
            } else {
                ev_pool_state.write(old_index, EV_POOL_SPARE);
                meta.event.slot = (bit<16>)NIC_EV_SLOTS;
            }
        }
        meta.event.reason = meta.event_reason;
    }
}

#endif  /* _MRC_NIC_EV_STATE_P4_ */
