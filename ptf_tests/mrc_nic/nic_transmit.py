"""mrc_nic.p4 PTF tests: the transmit path (docs/mrc-nic.md section 3).

    scripts/run_ptf.sh --target bm --p4 p4src/mrc_nic.p4 -I p4src/include \\
        --priority-queues 8 --test-dir ptf_tests/mrc_nic
"""

from __future__ import annotations

from nic_base import MrcNicTest
from nic_packets import PLANE_PORT, host_write, plane_of

from protocol.constants import (
    DSCP_TRIMMABLE_RETX,
    OPCODE_WRITE_FIRST,
    OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_MIDDLE,
    OPCODE_WRITE_ONLY_IMM,
)


class SprayTest(MrcNicTest):
    """64 writes on a QP with 8 EVs over 2 planes (ev_mask 7): PSNs 0..63 in posting
    order; each rotation of 8 consecutive packets uses every slot's EV exactly once (so
    every EV 8 times), in an order that depends on the random r (only the permutation is
    asserted); both plane ports are used. Each frame is compared in full with section 3
    step 4 for its EV: carrier block:src_t0:EV[31:16]:dst_t0:down, UDP sport EV[31:16],
    both flow labels EV[15:0], DSCP 4, ECT(0), NH 41, hop limit 64, UDP checksum 0,
    DestQP = remote QPN. qp_tx_counter counts 64, slot_tx_counter 8 per slot (slot s
    holds EV id s)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=8, ev_mask=7)
        slots = range(qp.ev_slots)
        tx_before = self.counter("qp_tx_counter", qp.qp_index)
        slot_before = [self.counter("slot_tx_counter", self.slot_index(qp, s)) for s in slots]
        evs = self.send_writes(qp, 64, first_psn=0)
        for r in range(8):
            self.assert_rotation(evs[8 * r:8 * r + 8], qp.slot_evs(), f"rotation {r}")
        self.assertEqual({PLANE_PORT[plane_of(ev)] for ev in evs}, {1, 2})
        self.expect_nothing()
        self.assertEqual(self.counter("qp_tx_counter", qp.qp_index) - tx_before, 64)
        self.assertEqual([self.counter("slot_tx_counter", self.slot_index(qp, s)) - b
                          for s, b in zip(slots, slot_before, strict=True)], [8] * 8)


class PartialRotationTest(MrcNicTest):
    """Positions >= ev_slots are passed (section 3 step 2): 7 slots with ev_mask 7 (a
    rotation of 8 positions, one of them unused): 28 writes = 4 rotations of 7 packets,
    each a permutation of the 7 slots' EVs. (With one unused position per rotation no
    packet needs more than NIC_EV_SEARCH checks.)"""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=7, ev_mask=7)
        evs = self.send_writes(qp, 28, first_psn=0)
        for r in range(4):
            self.assert_rotation(evs[7 * r:7 * r + 7], qp.slot_evs(), f"rotation {r}")
        self.expect_nothing()


class TwoQpPsnTest(MrcNicTest):
    """Two QPs number their packets independently (section 3 step 1, section 7): posts
    interleaved A, B, A, B, A leave as A0, B0, A1, B1, A2. A retransmission (BTH
    Retransmit set by the host) keeps the host's PSN, leaves with DSCP 8 and does not
    consume a PSN: A's next new packet is A3, B's is B2. WRITE_FIRST / MIDDLE and the
    *_IMM opcodes (with ImmDt) are numbered and encapsulated like WRITE_ONLY."""

    def runTest(self) -> None:
        qa = self.new_qp(ev_slots=8, ev_mask=7)
        qb = self.new_qp(ev_slots=4, ev_mask=3)
        order = [(qa, 0), (qb, 0), (qa, 1), (qb, 1), (qa, 2)]
        for n, (qp, psn) in enumerate(order):
            posted = host_write(qp, psn=0, seed=n)
            self.post(posted)
            self.expect_sent(posted, qp, psn=psn)
        # Retransmissions: the PSN as posted, DSCP 8 (the Retransmit flag stays set).
        for qp, psn in ((qa, 1), (qb, 0)):
            posted = host_write(qp, psn=psn, retransmit=1, seed=0x40 + psn)
            self.post(posted)
            self.expect_sent(posted, qp, psn=None, dscp=DSCP_TRIMMABLE_RETX)
        # Every write opcode (section 3: METH + RETH [+ ImmDt] + payload) is sprayed alike.
        writes = [(qa, 3, OPCODE_WRITE_FIRST, None), (qb, 2, OPCODE_WRITE_ONLY_IMM, 0xC0FFEE),
                  (qa, 4, OPCODE_WRITE_MIDDLE, None), (qa, 5, OPCODE_WRITE_LAST_IMM, 0xABCD)]
        for qp, psn, opcode, imm in writes:
            posted = host_write(qp, psn=0, seed=0x80 + psn, opcode=opcode, imm=imm)
            self.post(posted)
            self.expect_sent(posted, qp, psn=psn)
        self.expect_nothing()
