"""mrc_nic.p4 PTF tests: the sender's reactions (docs/mrc-nic.md sections 4.4 and 5).

A rotation (section 3 step 2) visits every slot once in a random order, so these tests
send whole rotations (as many packets as there are usable slots) and assert which EVs a
rotation used, never their order. Signals (SACK, NACK, loss report) are injected between
rotations. Every SACK/NACK from the fabric is also delivered to the host, decapsulated.
"""

from __future__ import annotations

from nic_base import MrcNicTest
from nic_packets import (
    BACKUP_T1_BASE,
    Qp,
    fabric_nack,
    fabric_sack,
    host_loss_report,
    host_probe,
    host_write,
    plane_of,
)

from protocol.constants import (
    EV_EVENT_ALWAYS_SKIP,
    EV_EVENT_FLOOR,
    EV_EVENT_HOST_LOSS,
    EV_EVENT_RESTORED,
    NACK_PSN_OUT_OF_WINDOW,
    NACK_TRIMMED,
    NACK_TRIMMED_LASTHOP,
    NIC_EVENT_FLOOR_HELD,
    NIC_EVENT_NO_BACKUP,
    NIC_EVENT_PROBE_OK,
    NIC_EVENT_SEARCH_FALLBACK,
    NIC_EVENT_STALE_REPORT,
    SACK_MARK_ALWAYS_SKIP,
    SACK_MARK_SKIP_ONCE,
    SACK_PR_PROBE,
    ev_id_of,
)


class SkipOnceTest(MrcNicTest):
    """SACK mark SKIP_ONCE (an ECN echo) for the EV of slot 3: that slot misses exactly
    its next turn (4.4). 8 slots, ev_mask 7: rotation 1 uses all 8 EVs; a SACK with mark
    NONE for that EV changes nothing (rotation 2 uses all 8); the SKIP_ONCE SACK comes
    in; the next 7 packets use the 7 other EVs; the next 8 use all 8 again. The SACKs
    are delivered to the host; qp_ecn_counter and slot_ecn_counter[slot 3] count the
    SKIP_ONCE one only."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=8, ev_mask=7)
        skipped = qp.ev(3)
        ecn_before = (self.counter("qp_ecn_counter", qp.qp_index),
                      self.counter("slot_ecn_counter", self.slot_index(qp, 3)))
        self.assert_rotation(self.send_writes(qp, 8, first_psn=0), qp.slot_evs(), "before")
        # A plain SACK (mark NONE) changes nothing: the next rotation uses all 8.
        self.expect_forwarded_to_host(fabric_sack(qp, skipped, psn=3, cumulative_psn=3))
        self.assert_rotation(self.send_writes(qp, 8, first_psn=8), qp.slot_evs(), "NONE")
        self.expect_forwarded_to_host(fabric_sack(qp, skipped, mark=SACK_MARK_SKIP_ONCE,
                                                  psn=13, cumulative_psn=15))
        others = [ev for ev in qp.slot_evs() if ev != skipped]
        self.assert_rotation(self.send_writes(qp, 7, first_psn=16), others, "skipping")
        self.assert_rotation(self.send_writes(qp, 8, first_psn=23), qp.slot_evs(), "after")
        self.assertEqual((self.counter("qp_ecn_counter", qp.qp_index) - ecn_before[0],
                          self.counter("slot_ecn_counter", self.slot_index(qp, 3))
                          - ecn_before[1]), (1, 1))


class TrimNackSenderTest(MrcNicTest):
    """NACK TRIMMED for slot 2's EV: the slot misses its next turn, like an ECN echo;
    NACK TRIMMED_LASTHOP for slot 5's EV: no penalty, the next rotation uses all 8
    (4.4); a NACK PSN_OUT_OF_WINDOW for slot 6's EV: host only, no penalty either. The
    NACKs reach the host decapsulated. Assumed (4.4 says "counted" for both trims): each
    trim counts in qp_trim_counter and in its slot's slot_trim_counter."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=8, ev_mask=7)
        before = (self.counter("qp_trim_counter", qp.qp_index),
                  self.counter("slot_trim_counter", self.slot_index(qp, 2)),
                  self.counter("slot_trim_counter", self.slot_index(qp, 5)))
        everything = qp.slot_evs()
        self.assert_rotation(self.send_writes(qp, 8, first_psn=0), everything, "first")
        self.expect_forwarded_to_host(fabric_nack(qp, qp.ev(2), NACK_TRIMMED, psn=2))
        self.assert_rotation(self.send_writes(qp, 7, first_psn=8),
                             [ev for ev in everything if ev != qp.ev(2)], "after TRIMMED")
        self.assert_rotation(self.send_writes(qp, 8, first_psn=15), everything, "back")
        self.expect_forwarded_to_host(fabric_nack(qp, qp.ev(5), NACK_TRIMMED_LASTHOP,
                                                  psn=20))
        self.assert_rotation(self.send_writes(qp, 8, first_psn=23), everything,
                             "after TRIMMED_LASTHOP")
        # Other NACKs go to the host only: no EV penalty.
        self.expect_forwarded_to_host(fabric_nack(qp, qp.ev(6), NACK_PSN_OUT_OF_WINDOW,
                                                  psn=30))
        self.assert_rotation(self.send_writes(qp, 8, first_psn=31), everything,
                             "after PSN_OUT_OF_WINDOW")
        after = (self.counter("qp_trim_counter", qp.qp_index),
                 self.counter("slot_trim_counter", self.slot_index(qp, 2)),
                 self.counter("slot_trim_counter", self.slot_index(qp, 5)))
        self.assertEqual(tuple(a - b for a, b in zip(after, before, strict=True)), (2, 1, 1))


class AlwaysSkipRetireTest(MrcNicTest):
    """SACK mark ALWAYS_SKIP retires the EV (section 5): 4 slots (planes 0, 1, 0, 1),
    one configured backup per plane (ids 256 for plane 0 and 258 for plane 1 with
    backups_per_plane 2). Retiring slot 1's EV (plane 1): backup 258 of plane 1 takes
    slot 1 -- digest ev_event_t(local_qpn, qp_index, 1, EV(1), EV(258), ALWAYS_SKIP) --
    and later rotations use {EV0, EV258, EV2, EV3}. Retiring slot 0 (plane 0) then brings
    in 256. qp_retire_counter +2, slot_retire_counter of slots 0 and 1 +1 each. Plane
    1's backup 259 has no qp_ev entry, so retiring slot 3 finds no backup (slot 3
    EMPTY, new_ev 0); once the controller adds qp_ev for 257, retiring slot 2 (plane 0)
    brings 257 in."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=2, configured_backups=1)
        b0, b1 = qp.backup_id(0, 0), qp.backup_id(1, 0)
        self.assertEqual((b0, b1), (256, 258))
        every = [qp.ev(i) for i in (0, 1, 2, 3, b0, b1)]
        before = [self.counter("qp_retire_counter", qp.qp_index)] + [
            self.counter("slot_retire_counter", self.slot_index(qp, s)) for s in (0, 1)]
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "first")

        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(1), mark=SACK_MARK_ALWAYS_SKIP,
                                                  psn=1))
        self.expect_digest(qp, slot=1, old_ev=qp.ev(1), new_ev=qp.ev(b1),
                           reason=EV_EVENT_ALWAYS_SKIP)
        self.assertEqual(plane_of(qp.ev(b1)), plane_of(qp.ev(1)))
        now = [qp.ev(0), qp.ev(b1), qp.ev(2), qp.ev(3)]
        for r in range(2):
            self.assert_rotation(self.send_writes(qp, 4, first_psn=4 + 4 * r, evs=every),
                                 now, f"after retiring slot 1, rotation {r}")

        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(0), mark=SACK_MARK_ALWAYS_SKIP,
                                                  psn=12))
        self.expect_digest(qp, slot=0, old_ev=qp.ev(0), new_ev=qp.ev(b0),
                           reason=EV_EVENT_ALWAYS_SKIP)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=12, evs=every),
                             [qp.ev(b0), qp.ev(b1), qp.ev(2), qp.ev(3)], "after slot 0")
        after = [self.counter("qp_retire_counter", qp.qp_index)] + [
            self.counter("slot_retire_counter", self.slot_index(qp, s)) for s in (0, 1)]
        self.assertEqual([a - b for a, b in zip(after, before, strict=True)], [2, 1, 1])

        # Plane 1's other backup id (259) has no qp_ev entry: never used. Retiring slot
        # 3 (plane 1) finds no backup: slot 3 becomes EMPTY (3 usable >= min_active 1).
        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(3), mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=3, old_ev=qp.ev(3), new_ev=0,
                           reason=EV_EVENT_ALWAYS_SKIP)
        self.assert_rotation(self.send_writes(qp, 3, first_psn=16, evs=every),
                             [qp.ev(b0), qp.ev(b1), qp.ev(2)], "slot 3 empty")
        # The controller tops plane 0 up with id 257: retiring slot 2 (plane 0) takes it.
        topped = self.add_ev(qp, qp.backup_id(0, 1), BACKUP_T1_BASE[0] + 1)
        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(2), mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=2, old_ev=qp.ev(2), new_ev=topped,
                           reason=EV_EVENT_ALWAYS_SKIP)
        self.assert_rotation(self.send_writes(qp, 3, first_psn=19, evs=[*every, topped]),
                             [qp.ev(b0), qp.ev(b1), topped], "topped up")
        self.verify_no_digest(timeout=0.2)


class HostLossReportTest(MrcNicTest):
    """A host loss report (NACK reason NACK_HOST_LOSS_REPORT, nack_psn = 2) retires the
    EV that carried PSN 2 (psn_ev, section 3): a backup of the same plane takes its
    slot (digest reason HOST_LOSS) and the next rotations use it instead. The report is
    consumed: nothing leaves. The same report again is stale (the EV is no longer in a
    slot): event_counter[STALE_REPORT] +1, no digest, nothing changes."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=2, configured_backups=2)
        backups = {p: [qp.ev(qp.backup_id(p, i)) for i in range(2)] for p in (0, 1)}
        every = qp.slot_evs() + backups[0] + backups[1]
        first = self.send_writes(qp, 4, first_psn=0)
        self.assert_rotation(first, qp.slot_evs(), "first")
        lost_ev = first[2]
        slot = ev_id_of(lost_ev)  # slot s holds EV id s until a retirement
        retired_before = self.counter("qp_retire_counter", qp.qp_index)

        self.post(host_loss_report(qp, 2))
        (entry,) = self.verify_digest("ev_event_t")
        self.expect_nothing()
        self.assertEqual(entry[:4] + entry[5:], (qp.local_qpn, qp.qp_index, slot, lost_ev,
                                                 EV_EVENT_HOST_LOSS))
        new_ev = entry[4]
        self.assertIn(new_ev, backups[plane_of(lost_ev)],
                      f"replacement {new_ev:#x} is not a backup of plane {plane_of(lost_ev)}")
        self.assertEqual(self.counter("qp_retire_counter", qp.qp_index) - retired_before, 1)
        now = [new_ev if ev == lost_ev else ev for ev in qp.slot_evs()]
        for r in range(2):
            self.assert_rotation(self.send_writes(qp, 4, first_psn=4 + 4 * r, evs=every),
                                 now, f"after the loss report, rotation {r}")

        stale_before = self.counter("event_counter", NIC_EVENT_STALE_REPORT)
        self.post(host_loss_report(qp, 2))
        self.wait_counter("event_counter", NIC_EVENT_STALE_REPORT, stale_before, 1)
        self.expect_nothing()
        self.verify_no_digest(timeout=0.2)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=12, evs=every), now,
                             "after the stale report")


class FloorTest(MrcNicTest):
    """The floor (section 5): 4 slots, min_active 3, no backups. Retiring slot 0's EV
    (ALWAYS_SKIP) leaves 3 usable slots: slot 0 becomes EMPTY, digest (slot 0, EV0,
    new_ev 0, ALWAYS_SKIP), event_counter[NO_BACKUP] +1, rotations use {EV1, EV2, EV3}.
    Retiring slot 1's EV would leave 2 < 3: nothing changes, digest (slot 1, EV1, 0,
    EV_EVENT_FLOOR), event_counter[FLOOR_HELD] +1, rotations still use {EV1, EV2,
    EV3}."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, min_active=3, backups_per_plane=0)
        events = (NIC_EVENT_NO_BACKUP, NIC_EVENT_FLOOR_HELD)
        before = {e: self.counter("event_counter", e) for e in events}
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "first")

        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(0), mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=0, old_ev=qp.ev(0), new_ev=0, reason=EV_EVENT_ALWAYS_SKIP)
        left = [qp.ev(1), qp.ev(2), qp.ev(3)]
        for r in range(2):
            self.assert_rotation(self.send_writes(qp, 3, first_psn=4 + 3 * r), left,
                                 f"slot 0 empty, rotation {r}")

        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(1), mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=1, old_ev=qp.ev(1), new_ev=0, reason=EV_EVENT_FLOOR)
        for r in range(2):
            self.assert_rotation(self.send_writes(qp, 3, first_psn=10 + 3 * r), left,
                                 f"at the floor, rotation {r}")
        self.assertEqual({e: self.counter("event_counter", e) - b for e, b in before.items()},
                         {NIC_EVENT_NO_BACKUP: 1, NIC_EVENT_FLOOR_HELD: 1})


class ProbeRestoreTest(MrcNicTest):
    """Restoring a retired EV (4.4): 4 slots, no backups, min_active 1,
    probe_threshold 2. Slot 2's EV is retired (slot 2 EMPTY). One SACK with pr = 1
    echoing it: counted (event_counter[PROBE_OK] +1), no digest, rotations still skip
    it. The second: the EV goes back into its EMPTY slot, digest EV_EVENT_RESTORED, and
    it is sprayed again. Assumed for the RESTORED digest (section 5 defines its fields
    for retirements only): slot = the slot it returns to, new_ev = the EV, old_ev = 0
    (the slot was empty) or the EV itself. Both SACKs reach the host."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, min_active=1, backups_per_plane=0,
                         probe_threshold=2)
        ev2 = qp.ev(2)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "first")
        self.expect_forwarded_to_host(fabric_sack(qp, ev2, mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=2, old_ev=ev2, new_ev=0, reason=EV_EVENT_ALWAYS_SKIP)
        left = [qp.ev(0), qp.ev(1), qp.ev(3)]
        self.assert_rotation(self.send_writes(qp, 3, first_psn=4), left, "retired")

        ok_before = self.counter("event_counter", NIC_EVENT_PROBE_OK)
        self.expect_forwarded_to_host(fabric_sack(qp, ev2, pr=SACK_PR_PROBE, psn=0x42))
        self.verify_no_digest(timeout=0.3)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_PROBE_OK) - ok_before, 1)
        self.assert_rotation(self.send_writes(qp, 3, first_psn=7), left, "one probe answer")

        self.expect_forwarded_to_host(fabric_sack(qp, ev2, pr=SACK_PR_PROBE, psn=0x43))
        (entry,) = self.verify_digest("ev_event_t")
        local_qpn, qp_index, slot, old_ev, new_ev, reason = entry
        self.assertEqual((local_qpn, qp_index, slot, new_ev, reason),
                         (qp.local_qpn, qp.qp_index, 2, ev2, EV_EVENT_RESTORED))
        self.assertIn(old_ev, (0, ev2))
        # Slot 2 may be used once more in the rotation in progress (its position may not
        # have been passed yet): over the next 8 packets every EV is used.
        used = self.send_writes(qp, 8, first_psn=10)
        self.assertEqual(set(used), set(qp.slot_evs()), [hex(e) for e in used])


class HostProbeOnRetiredEvTest(MrcNicTest):
    """A PROBE the host posts goes out on the EV it wrote, whatever that EV's state
    (section 3, Probe): on a GOOD EV and on a retired one alike, encapsulated like data
    (carrier of the EV, DSCP 4, ECT(0), DestQP = remote QPN) with the BTH PSN left as
    posted; no PSN is consumed (the next write is PSN 4). qp_tx_counter counts probes."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=1, configured_backups=1)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "first")
        self.expect_forwarded_to_host(fabric_sack(qp, qp.ev(3), mark=SACK_MARK_ALWAYS_SKIP))
        self.expect_digest(qp, slot=3, old_ev=qp.ev(3), new_ev=qp.ev(qp.backup_id(1, 0)),
                           reason=EV_EVENT_ALWAYS_SKIP)
        tx_before = self.counter("qp_tx_counter", qp.qp_index)
        for ev, psn in ((qp.ev(3), 0x000100), (qp.ev(0), 0xFFFFFE)):
            probe = host_probe(qp, ev, psn=psn)
            self.post(probe)
            self.expect_sent(probe, qp, psn=None, evs=[ev])
        self.assertEqual(self.counter("qp_tx_counter", qp.qp_index) - tx_before, 2)
        posted = host_write(qp, seed=9)
        self.post(posted)
        self.expect_sent(posted, qp, psn=4, evs=[qp.ev(i) for i in (0, 1, 2)]
                         + [qp.ev(qp.backup_id(1, 0))])
        self.expect_nothing()


class SparePoolTest(MrcNicTest):
    """A restored EV whose old slot is taken goes back to the backup pool as SPARE and
    is picked by a later retirement (4.4, section 5). 4 slots, plane-0 backups 256 and
    257 (backups_per_plane 2), probe_threshold 1: retiring slot 0's EV brings in a
    plane-0 backup b1; retiring b1 brings in the other one, b2; one probe answer (SACK
    pr = 1) for b1 restores it -- digest RESTORED, into the pool since slot 0 is not
    EMPTY, so rotations keep b2; retiring b2 then brings b1 back into slot 0."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=2, configured_backups=2,
                         probe_threshold=1)
        plane0 = [qp.ev(qp.backup_id(0, i)) for i in range(2)]
        every = qp.slot_evs() + plane0 + [qp.ev(qp.backup_id(1, i)) for i in range(2)]
        rest = [qp.ev(1), qp.ev(2), qp.ev(3)]
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "first")

        b1 = self.retire_slot0(qp, qp.ev(0), plane0)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=4, evs=every), [b1, *rest],
                             "b1 in slot 0")
        b2 = self.retire_slot0(qp, b1, [ev for ev in plane0 if ev != b1])
        self.assert_rotation(self.send_writes(qp, 4, first_psn=8, evs=every), [b2, *rest],
                             "b2 in slot 0")

        self.expect_forwarded_to_host(fabric_sack(qp, b1, pr=SACK_PR_PROBE, psn=0x50))
        (entry,) = self.verify_digest("ev_event_t")
        self.assertEqual((entry[0], entry[1], entry[5]),
                         (qp.local_qpn, qp.qp_index, EV_EVENT_RESTORED))
        self.assertIn(b1, (entry[3], entry[4]), [hex(v) for v in entry])
        self.assert_rotation(self.send_writes(qp, 4, first_psn=12, evs=every), [b2, *rest],
                             "b1 restored to the pool, slot 0 keeps b2")

        self.assertEqual(self.retire_slot0(qp, b2, [b1]), b1)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=16, evs=every), [b1, *rest],
                             "the spare b1 back in slot 0")

    def retire_slot0(self, qp: Qp, ev: int, candidates: list[int]) -> int:
        """ALWAYS_SKIP for ``ev`` (in slot 0): a digest (slot 0, ev, replacement,
        ALWAYS_SKIP) whose replacement is one of ``candidates``; returns it."""
        self.expect_forwarded_to_host(fabric_sack(qp, ev, mark=SACK_MARK_ALWAYS_SKIP))
        (entry,) = self.verify_digest("ev_event_t")
        self.assertEqual(entry[:4] + entry[5:], (qp.local_qpn, qp.qp_index, 0, ev,
                                                 EV_EVENT_ALWAYS_SKIP))
        self.assertIn(entry[4], candidates,
                      f"replacement {entry[4]:#x} of {ev:#x} not in {list(map(hex, candidates))}")
        return entry[4]


class SearchFallbackTest(MrcNicTest):
    """No usable slot within NIC_EV_SEARCH positions: the packet takes the QP's last
    used slot and event_counter[SEARCH_FALLBACK] counts it (section 3 step 2). 2 slots,
    min_active 0 (the floor allows emptying every slot), no backups: after one rotation
    both EVs are retired (slots EMPTY, digests with new_ev 0); the next 3 writes all
    leave on the EV of the last packet sent (its slot, still holding its own id), each
    counted as a fallback."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=2, ev_mask=1, min_active=0, backups_per_plane=0)
        first = self.send_writes(qp, 2, first_psn=0)
        self.assert_rotation(first, qp.slot_evs(), "first")
        for ev in first:
            self.expect_forwarded_to_host(fabric_sack(qp, ev, mark=SACK_MARK_ALWAYS_SKIP))
            self.expect_digest(qp, slot=ev_id_of(ev), old_ev=ev, new_ev=0,
                               reason=EV_EVENT_ALWAYS_SKIP)
        before = self.counter("event_counter", NIC_EVENT_SEARCH_FALLBACK)
        self.assertEqual(self.send_writes(qp, 3, first_psn=2), [first[-1]] * 3)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_SEARCH_FALLBACK) - before, 3)


class SearchPastSevenDeadTest(MrcNicTest):
    """NIC_EV_SEARCH (8) positions per packet (section 3 step 2): a packet passes 7
    unusable positions and takes the live slot at the 8th. 8 slots, min_active 0, no
    backups; slots 0..6 retired (ALWAYS_SKIP, before any send, so the rotation is still
    at position 0 with r = 0: position i is slot i). The first write checks slots 0..6
    (EMPTY) and leaves on slot 7's EV, and no fallback is counted."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=8, ev_mask=7, min_active=0, backups_per_plane=0)
        evs = qp.slot_evs()
        for slot, ev in enumerate(evs[:7]):
            self.expect_forwarded_to_host(fabric_sack(qp, ev, mark=SACK_MARK_ALWAYS_SKIP))
            self.expect_digest(qp, slot=slot, old_ev=ev, new_ev=0,
                               reason=EV_EVENT_ALWAYS_SKIP)
        before = self.counter("event_counter", NIC_EVENT_SEARCH_FALLBACK)
        self.assertEqual(self.send_writes(qp, 1, first_psn=0), [evs[7]])
        self.assertEqual(self.counter("event_counter", NIC_EVENT_SEARCH_FALLBACK), before)
