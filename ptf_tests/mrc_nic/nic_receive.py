"""mrc_nic.p4 PTF tests: the receive path (docs/mrc-nic.md sections 4.1 to 4.3).

Every test starts from a fresh QP (rx_expected 0, empty window, no bytes received), so
the expected window is written out by hand: ``cumulative_psn = expected - 1``; the SACK
carries one 64-PSN window word, the one holding the arriving PSN (for PSNs behind the
window: the one holding ``expected``; for probes, see ProbeNamedPsnTest), with
``offset`` (sack_offset) = the word's first PSN - cumulative, so bit i of ``bitmap`` is
PSN ``cumulative + offset + i`` (4.3); for word 0 (PSNs 0..63) that is
``offset = 1 - expected`` and the bitmap is the set of PSNs that arrived.
``received_bytes`` = the sum of the inner IPv6 payload lengths delivered
(WRITE_INNER_PLEN = 104 per write here). A SACK that answers a new packet includes that
packet (it is delivered in the same pass; assumed, 4.3 says "the QP's delivered ...
bytes").
"""

from __future__ import annotations

from nic_base import MrcNicTest
from nic_packets import (
    PEER_EVS,
    WRITE_INNER_PLEN,
    fabric_data,
    fabric_probe,
    fabric_trimmed,
)

from protocol.constants import (
    DSCP_TRIMMABLE_RETX,
    DSCP_TRIMMED,
    DSCP_TRIMMED_LASTHOP,
    ECN_CE,
    NACK_PSN_OUT_OF_WINDOW,
    NACK_TRIMMED,
    NACK_TRIMMED_LASTHOP,
    NIC_EVENT_DUPLICATE,
    NIC_EVENT_NACK_SENT,
    NIC_EVENT_OUT_OF_WINDOW,
    NIC_EVENT_PROBE_ANSWERED,
    NIC_EVENT_SACK_SENT,
    SACK_MARK_SKIP_ONCE,
    SACK_PR_PROBE,
)

B = WRITE_INNER_PLEN
NO_PSN = 0xFFFFFF  # cumulative PSN before PSN 0 arrived (expected 0 - 1, 24 bits)
EV0, EV1, EV2, EV3 = PEER_EVS


class ReceiveInOrderTest(MrcNicTest):
    """PSNs 0, 1, 2 in order (sack_every 1), over both planes: each is delivered to the
    host decapsulated (inner IPv6 as sent, UDP, BTH with DestQP = local QPN) and
    SACKed on the plane it came from: cumulative = PSN, word 0 = PSNs 0..PSN at offset
    -PSN, ack_psn_offset 0, echoed EV, received bytes 104, 208, 312. qp_rx_counter +3,
    SACK_SENT +3."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        rx_before = self.counter("qp_rx_counter", qp.qp_index)
        sacks_before = self.counter("event_counter", NIC_EVENT_SACK_SENT)
        for psn, ev in ((0, EV0), (1, EV1), (2, EV2)):
            self.expect_delivered_and_sack(qp, fabric_data(qp, ev, psn), cumulative_psn=psn,
                                           offset=-psn, bitmap=(2 << psn) - 1,
                                           received_bytes=B * (psn + 1))
        self.assertEqual(self.counter("qp_rx_counter", qp.qp_index) - rx_before, 3)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_SACK_SENT) - sacks_before,
                         3)


class ReceiveOutOfOrderTest(MrcNicTest):
    """Out of order (sack_every 1): PSN 2 first -> delivered, word 0 = 0b100,
    cumulative 0xFFFFFF, offset 1; PSN 0 -> expected 1, cumulative 0, 0b101 at offset 0;
    PSN 1 fills the gap -> expected 3, cumulative 2, 0b111 at offset -2; PSN 5 ->
    0b100111 at offset -2. Every one delivered."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        steps = [  # (psn, EV, cumulative, offset, bitmap)
            (2, EV1, NO_PSN, 1, 0b100),
            (0, EV0, 0, 0, 0b101),
            (1, EV3, 2, -2, 0b111),
            (5, EV2, 2, -2, 0b100111),
        ]
        for n, (psn, ev, cumulative, offset, bitmap) in enumerate(steps, 1):
            self.expect_delivered_and_sack(qp, fabric_data(qp, ev, psn),
                                           cumulative_psn=cumulative, offset=offset,
                                           bitmap=bitmap, received_bytes=B * n)


class DuplicateTest(MrcNicTest):
    """Duplicates are SACKed but not delivered (4.1): PSN 0 again once expected is 1
    (behind), and PSN 2 again while its bit is set. The duplicate SACK reports the same
    window and received bytes as the last one. event_counter[DUPLICATE] +2, and only the
    two new packets count in qp_rx_counter."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        rx_before = self.counter("qp_rx_counter", qp.qp_index)
        dup_before = self.counter("event_counter", NIC_EVENT_DUPLICATE)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0), cumulative_psn=0,
                                       offset=0, bitmap=0b1, received_bytes=B)
        self.expect_sack_only(qp, fabric_data(qp, EV1, 0), cumulative_psn=0, offset=0,
                              bitmap=0b1, received_bytes=B)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV2, 2), cumulative_psn=0,
                                       offset=0, bitmap=0b101, received_bytes=2 * B)
        self.expect_sack_only(qp, fabric_data(qp, EV3, 2), cumulative_psn=0, offset=0,
                              bitmap=0b101, received_bytes=2 * B)
        self.assertEqual(self.counter("qp_rx_counter", qp.qp_index) - rx_before, 2)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_DUPLICATE) - dup_before, 2)


class OutOfWindowTest(MrcNicTest):
    """The 1,024-PSN window (NIC_RX_WINDOW), expected 0: PSN 1024 (d = 1024) and
    0x7FFFFF (d = 2^23 - 1) are NACKed PSN_OUT_OF_WINDOW with nack_psn = the PSN and not
    delivered; 0x800000 (d = 2^23) is behind, a duplicate: SACK of expected's word 0
    (empty, offset 0 - 0xFFFFFF = 1), ack_psn_offset 0x800000 - 0xFFFFFF = 1 (16 bits);
    PSN 1023 (d = 1023) is new: bit 63 of word 15 (PSNs 960..1023), reported at offset
    960 - 0xFFFFFF = 961. event_counter OUT_OF_WINDOW +2, NACK_SENT +2, DUPLICATE +1."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        before = {e: self.counter("event_counter", e) for e in (
            NIC_EVENT_OUT_OF_WINDOW, NIC_EVENT_NACK_SENT, NIC_EVENT_DUPLICATE)}
        for psn, ev in ((1024, EV0), (0x7FFFFF, EV1)):
            self.expect_nack_only(qp, fabric_data(qp, ev, psn), NACK_PSN_OUT_OF_WINDOW)
        self.expect_sack_only(qp, fabric_data(qp, EV2, 0x800000), cumulative_psn=NO_PSN,
                              offset=1, bitmap=0, received_bytes=0)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV3, 1023),
                                       cumulative_psn=NO_PSN, offset=961, bitmap=1 << 63,
                                       received_bytes=B)
        after = {e: self.counter("event_counter", e) - b for e, b in before.items()}
        self.assertEqual(after, {NIC_EVENT_OUT_OF_WINDOW: 2, NIC_EVENT_NACK_SENT: 2,
                                 NIC_EVENT_DUPLICATE: 1})


class TrimmedNackTest(MrcNicTest):
    """Trimmed arrivals (outer DSCP 12 / 16) get NACK TRIMMED / TRIMMED_LASTHOP with
    their PSN and EV and are not delivered; the window is not touched: PSN 0 arriving
    whole afterwards is the first new packet (cumulative 0, word 0 = 0b1, 104 bytes).
    event_counter[NACK_SENT] +2, qp_rx_counter +1."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        rx_before = self.counter("qp_rx_counter", qp.qp_index)
        nacks_before = self.counter("event_counter", NIC_EVENT_NACK_SENT)
        self.expect_nack_only(qp, fabric_trimmed(qp, EV0, 5, DSCP_TRIMMED), NACK_TRIMMED)
        self.expect_nack_only(qp, fabric_trimmed(qp, EV1, 0, DSCP_TRIMMED_LASTHOP),
                              NACK_TRIMMED_LASTHOP)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV2, 0), cumulative_psn=0,
                                       offset=0, bitmap=0b1, received_bytes=B)
        self.assertEqual(self.counter("qp_rx_counter", qp.qp_index) - rx_before, 1)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_NACK_SENT) - nacks_before,
                         2)


class CeSackTest(MrcNicTest):
    """An outer ECN CE data packet is SACKed at once with mark SKIP_ONCE echoing its EV,
    even with sack_every 4 (4.1); a non-CE packet right after is only delivered (fewer
    than 4 new packets either way); PSN 2 CE on the other plane: SKIP_ONCE again."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=4)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0, ecn=ECN_CE),
                                       cumulative_psn=0, offset=0, bitmap=0b1,
                                       received_bytes=B, mark=SACK_MARK_SKIP_ONCE)
        self.expect_delivered_only(fabric_data(qp, EV2, 1))
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV1, 2, ecn=ECN_CE),
                                       cumulative_psn=2, offset=-2, bitmap=0b111,
                                       received_bytes=3 * B, mark=SACK_MARK_SKIP_ONCE)


class SackCoalescingTest(MrcNicTest):
    """sack_every 3: one SACK per 3 new packets (4.1): PSNs 0 and 1 are only delivered,
    PSN 2 is delivered and SACKed (cumulative 2, 312 bytes), 3 and 4 only delivered,
    5 SACKed (cumulative 5, 624 bytes)."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=3)
        evs = (EV0, EV1, EV2, EV3, EV0, EV1)
        for psn, ev in enumerate(evs):
            data = fabric_data(qp, ev, psn)
            if psn % 3 == 2:
                self.expect_delivered_and_sack(qp, data, cumulative_psn=psn, offset=-psn,
                                               bitmap=(2 << psn) - 1,
                                               received_bytes=B * (psn + 1))
            else:
                self.expect_delivered_only(data)


class GapFillSackTest(MrcNicTest):
    """sack_every 4. A new packet at the cumulative PSN that fills a hole a SACK has
    shown the sender is SACKed at once (4.1, RFC 5681 4.2): PSN 3 is only delivered;
    PSN 1 with AckReq is SACKed at once (cumulative 0xFFFFFF, word 0 = 0b1010 at
    offset 1: the sender now sees PSNs 0 and 2 missing); PSN 0 fills the first hole
    (cumulative 1, 0b1011 at offset -1) and PSN 2 the second (cumulative 3, 0b1111 at
    offset -3): each SACKed at once, though fewer than 4 packets came since the last
    SACK. Then PSN 5 is only delivered and PSN 4 fills a hole no SACK showed (the
    highest PSN shown is 3): only delivered, as GapFillCoalescedTest."""

    def runTest(self) -> None:
        self.skip_on_pna("no multicast in pna.p4: the SACKs of new data are not sent")
        qp = self.new_qp(sack_every=4)
        self.expect_delivered_only(fabric_data(qp, EV3, 3))
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV1, 1, ack_req=1),
                                       cumulative_psn=NO_PSN, offset=1, bitmap=0b1010,
                                       received_bytes=2 * B, bth_flags_open=True)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0), cumulative_psn=1,
                                       offset=-1, bitmap=0b1011, received_bytes=3 * B)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV2, 2), cumulative_psn=3,
                                       offset=-3, bitmap=0b1111, received_bytes=4 * B)
        self.expect_delivered_only(fabric_data(qp, EV1, 5))
        self.expect_delivered_only(fabric_data(qp, EV0, 4))


class GapFillCoalescedTest(MrcNicTest):
    """sack_every 4. A packet that fills a hole no SACK has shown is coalesced like any
    other (4.1): the sender cannot have taken the PSN for lost. PSNs 1 and 2 arrive
    before 0 and are only delivered; PSN 0 moves the cumulative PSN to 2 and is only
    delivered (3 packets since the last SACK); PSN 3 is the 4th: SACKed (cumulative
    3, word 0 = 0b1111 at offset -3, 416 bytes)."""

    def runTest(self) -> None:
        self.skip_on_pna("no multicast in pna.p4: the SACKs of new data are not sent")
        qp = self.new_qp(sack_every=4)
        self.expect_delivered_only(fabric_data(qp, EV1, 1))
        self.expect_delivered_only(fabric_data(qp, EV2, 2))
        self.expect_delivered_only(fabric_data(qp, EV0, 0))
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV3, 3), cumulative_psn=3,
                                       offset=-3, bitmap=0b1111, received_bytes=4 * B)


class AckReqSackTest(MrcNicTest):
    """With sack_every 8, BTH AckReq and BTH Retransmit (DSCP 8) each get a SACK at
    once (4.1); a plain packet between them is only delivered. (The reply's BTH flags
    byte is not compared: 4.3 fixes only its opcode, DestQP and PSN.)"""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=8)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0, ack_req=1),
                                       cumulative_psn=0, offset=0, bitmap=0b1,
                                       received_bytes=B, bth_flags_open=True)
        self.expect_delivered_only(fabric_data(qp, EV1, 1))
        self.expect_delivered_and_sack(
            qp, fabric_data(qp, EV3, 2, retransmit=1, dscp=DSCP_TRIMMABLE_RETX),
            cumulative_psn=2, offset=-2, bitmap=0b111, received_bytes=3 * B,
            bth_flags_open=True)


class ProbeAnswerTest(MrcNicTest):
    """A PROBE from the fabric gets a SACK with pr = 1 echoing the probe's EV,
    ack_psn_offset 0, and the QP's current window (4.2); it is not delivered. On a fresh
    QP: cumulative 0xFFFFFF, word 0 empty at offset 1, 0 bytes; after PSNs 0 and 2:
    cumulative 0, word 0 = 0b101 at offset 0, 208 bytes. event_counter[PROBE_ANSWERED] +2."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=1)
        before = self.counter("event_counter", NIC_EVENT_PROBE_ANSWERED)
        self.expect_sack_only(qp, fabric_probe(qp, EV1), cumulative_psn=NO_PSN, offset=1,
                              bitmap=0, received_bytes=0, pr=SACK_PR_PROBE)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0), cumulative_psn=0,
                                       offset=0, bitmap=0b1, received_bytes=B)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 2), cumulative_psn=0,
                                       offset=0, bitmap=0b101, received_bytes=2 * B)
        self.expect_sack_only(qp, fabric_probe(qp, EV3, psn=0x123456), cumulative_psn=0,
                              offset=0, bitmap=0b101, received_bytes=2 * B,
                              pr=SACK_PR_PROBE)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_PROBE_ANSWERED) - before, 2)


class ProbeNamedPsnTest(MrcNicTest):
    """A probe names a PSN in its BTH [ours] (4.2): inside the window, its answer reports
    the window word holding that PSN; outside it, or when that word is empty, the word at
    ``expected``, as before. The cumulative PSN is the real one. sack_every 255: PSNs 1, 2,
    3 (word 0), 66, 70 (word 1) and 130 (word 2) arrive, delivered and not SACKed; PSN 0
    is missing (expected 0, cumulative 0xFFFFFF). Probes naming PSN 0: word 0 = 0b1110 at
    offset 1; 68: word 1 = bits 2 and 6 at offset 65; 129: word 2 = bit 2 at offset 129;
    200 (word 3 empty) and 0x777 (d = 1,911, outside): word 0 at offset 1. Not delivered;
    received_bytes 6 writes. event_counter[PROBE_ANSWERED] +5."""

    def runTest(self) -> None:
        qp = self.new_qp(sack_every=255)
        for psn in (1, 2, 3, 66, 70, 130):
            self.expect_delivered_only(fabric_data(qp, PEER_EVS[psn % 4], psn))
        before = self.counter("event_counter", NIC_EVENT_PROBE_ANSWERED)
        word0 = dict(offset=1, bitmap=0b1110)
        for psn, word in ((0, word0), (68, dict(offset=65, bitmap=1 << 2 | 1 << 6)),
                          (129, dict(offset=129, bitmap=1 << 2)), (200, word0),
                          (0x777, word0)):
            self.expect_sack_only(qp, fabric_probe(qp, EV1, psn=psn), cumulative_psn=NO_PSN,
                                  received_bytes=6 * B, pr=SACK_PR_PROBE, **word)
        self.assertEqual(self.counter("event_counter", NIC_EVENT_PROBE_ANSWERED) - before, 5)


class WindowWordsTest(MrcNicTest):
    """The window in 64-PSN words (4.1), sack_every 255 (only AckReq is SACKed here):
    PSNs 1..191 arrive (delivered, expected stays 0); PSN 0 with AckReq completes words
    0 and 1: expected moves over at most NIC_RX_ADVANCE_WORDS (2) words per packet, to
    128 (cumulative 127); the arriving word is behind it, so the SACK reports nothing
    past expected (bitmap 0 at offset 1). A duplicate (PSN 5, behind) continues the
    walk over the complete word 2 to expected 192, and reports word 3 (empty) at
    offset 1 with cumulative 191. PSN 200 (word 3, bit 8) with AckReq: cumulative 191,
    word 3 = 1 << 8 at offset 192 - 191 = 1."""

    def runTest(self) -> None:
        self.skip_on_pna("no multicast in pna.p4: the AckReq SACKs of new data are not "
                         "sent")
        qp = self.new_qp(sack_every=255)
        for psn in range(1, 192):
            self.expect_delivered_only(fabric_data(qp, PEER_EVS[psn % 4], psn))
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV0, 0, ack_req=1),
                                       cumulative_psn=127, offset=1, bitmap=0,
                                       received_bytes=192 * B, bth_flags_open=True)
        self.expect_sack_only(qp, fabric_data(qp, EV1, 5), cumulative_psn=191, offset=1,
                              bitmap=0, received_bytes=192 * B)
        self.expect_delivered_and_sack(qp, fabric_data(qp, EV2, 200, ack_req=1),
                                       cumulative_psn=191, offset=1, bitmap=1 << 8,
                                       received_bytes=193 * B, bth_flags_open=True)
