"""``MrcNicTest``: the scenario base class of the ``mrc_nic.p4`` PTF suite (no tests).

It programs the NIC as docs/mrc-nic.md section 2 describes: ``nic_address``, one
``plane_port`` entry per plane (plane 0 on port 1, plane 1 on port 2), the reply
multicast groups ``NIC_REPLY_MCAST_BASE + plane`` = {host port (rid 0), plane port (rid
1)}, the ``ev_event_t`` digest, and per QP ``qp_context``, ``qp_ev`` and ``qp_plane``.

NIC registers live as long as the target does and tests share one target, so every QP
gets a qp_index (and QPNs) no earlier test used: a test always starts from a fresh QP
(PSN 0, empty receive window, every slot GOOD). Counters are not reset either: every
counter check is a difference.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence

import ptf.testutils as tu
from base_test import P4RuntimeTest
from nic_packets import (
    BLOCK,
    DOWN,
    DST_T0,
    HOST_PORT,
    NEXT_HOP_MAC,
    NIC_ADDR,
    NIC_MAC,
    PLANE_PORT,
    PLANES,
    REPLY_BTH_OFFSET,
    REPLY_INNER_IPV6_OFFSET,
    SRC_T0,
    Qp,
    delivered,
    ev_of,
    host_write,
    nack_reply,
    plane_of,
    sack_reply,
    sent,
)
from ptf.mask import Mask
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from protocol.constants import (
    DSCP_TRIMMABLE,
    NIC_EV_SLOTS,
    NIC_REPLY_MCAST_BASE,
    SACK_MARK_NONE,
)
from protocol.headers import BTH

POLL_TIMEOUT = 2.0      # seconds to wait for a packet that must come
COUNTER_TIMEOUT = 2.0   # seconds to wait for a counter that must move (a drop)
DIGEST = "ev_event_t"



class AnyPsn:
    """``expect_sent(psn=ANY_PSN)``: the PSN is not checked (the spec leaves it open)."""


ANY_PSN = AnyPsn()

# qp_index values handed out in this PTF process (one target per run_ptf.sh run).
_QP_INDEXES = itertools.count(1)


class MrcNicTest(P4RuntimeTest):
    """Common set-up and checks; subclasses are the tests (one behaviour each)."""

    def setUp(self) -> None:
        super().setUp()
        self.program_nic()

    # -- programming (section 2) --------------------------------------------------------
    def program_nic(self) -> None:
        self.insert_table_entry("NicIngress.lookup.nic_address", {"dst_addr": NIC_ADDR},
                                "accept_local")
        for p in PLANES:
            self.insert_table_entry(
                "NicIngress.path.plane_port", {"plane": p}, "set_plane_port",
                {"port": PLANE_PORT[p], "nic_mac": NIC_MAC[p],
                 "next_hop_mac": NEXT_HOP_MAC[p], "usid_block": BLOCK,
                 "src_t0_usid": SRC_T0[p]})
            self.add_multicast_group(NIC_REPLY_MCAST_BASE + p,
                                     [(HOST_PORT, 0), (PLANE_PORT[p], 1)])
        self.enable_digest(DIGEST)

    def new_qp(self, *, without_ev: Iterable[int] = (), without_planes: Iterable[int] = (),
               **config: int) -> Qp:
        """A fresh QP (section 2): qp_context, a qp_ev entry per configured EV id (but
        ``without_ev``), and qp_plane for both planes (but ``without_planes``)."""
        index = next(_QP_INDEXES)
        qp = Qp(qp_index=index, local_qpn=0xA00000 + index, remote_qpn=0xB00000 + index,
                **config)
        missing_ev, missing_planes = set(without_ev), set(without_planes)
        self.insert_table_entry(
            "NicIngress.lookup.qp_context", {"local_qpn": qp.local_qpn}, "set_qp",
            {"qp_index": qp.qp_index, "remote_qpn": qp.remote_qpn,
             "ev_slots": qp.ev_slots, "ev_mask": qp.ev_mask, "min_active": qp.min_active,
             "backups_per_plane": qp.backups_per_plane, "sack_every": qp.sack_every,
             "probe_threshold": qp.probe_threshold})
        for ev_id, t1 in sorted(qp.t1.items()):
            if ev_id not in missing_ev:
                self.add_ev(qp, ev_id, t1)
        for p in PLANES:
            if p in missing_planes:
                continue
            self.insert_table_entry("NicIngress.path.qp_plane",
                                    {"qp_index": qp.qp_index, "plane": p}, "set_qp_path",
                                    {"dst_t0_usid": DST_T0[p], "down_usid": DOWN[p]})
        return qp

    def add_ev(self, qp: Qp, ev_id: int, t1: int) -> int:
        """qp_ev entry for ``ev_id`` (a path through T1 ``t1``); returns its EV. The
        controller tops backups up this way (section 2)."""
        qp.t1[ev_id] = t1
        self.insert_table_entry("NicIngress.ev.qp_ev", {"qp_index": qp.qp_index,
                                                        "ev_id": ev_id}, "set_ev",
                                {"t1_usid": t1})
        return qp.ev(ev_id)

    # -- sending --------------------------------------------------------------------------
    def post(self, pkt: Packet) -> None:
        """The host posts ``pkt`` (host port)."""
        tu.send_packet(self, HOST_PORT, pkt)

    def inject(self, pkt: Packet, plane: int | None = None) -> None:
        """``pkt`` arrives from the fabric on its plane's port (from its EV unless
        ``plane`` is given)."""
        tu.send_packet(self, PLANE_PORT[plane_of(ev_of(pkt)) if plane is None else plane],
                       pkt)

    # -- receiving ------------------------------------------------------------------------
    def receive(self) -> tuple[int, Packet]:
        """The oldest packet that left the NIC on any port, as (port, Ether)."""
        result = tu.dp_poll(self, device_number=0, timeout=POLL_TIMEOUT)
        if not isinstance(result, self.dataplane.PollSuccess):
            self.fail(f"no packet left the NIC within {POLL_TIMEOUT} s")
        return result.port, Ether(bytes(result.packet))

    def expect_sent(self, posted: Packet, qp: Qp, *, psn: int | None | AnyPsn,
                    dscp: int = DSCP_TRIMMABLE, evs: Iterable[int] | None = None) -> int:
        """Receive the NIC's transmission of ``posted`` and return its EV. The EV must be
        one of ``evs`` (default: the QP's slot EVs as configured); the frame must be
        exactly ``sent(posted, qp, ev, psn=psn, dscp=dscp)`` (section 3), which fixes
        the carrier, the EV fields, PSN, DSCP/ECN and DestQP, and leave on the port of
        the EV's plane."""
        allowed = set(qp.slot_evs() if evs is None else evs)
        port, frame = self.receive()
        self.assertIn(frame.haslayer(UDP) and ev_of(frame), allowed,
                      f"a packet on port {port} with an EV outside {sorted(map(hex, allowed))}"
                      f": {frame!r}")
        ev = ev_of(frame)
        if psn is ANY_PSN:
            psn = frame[BTH].psn
        expected = sent(posted, qp, ev, psn=psn, dscp=dscp)
        self.assert_same_frame(bytes(frame), bytes(expected), f"EV {ev:#010x}")
        self.assertEqual(port, PLANE_PORT[plane_of(ev)], f"EV {ev:#010x} left on port {port}")
        return ev

    def send_writes(self, qp: Qp, count: int, *, first_psn: int,
                    evs: Iterable[int] | None = None) -> list[int]:
        """Post ``count`` writes on ``qp``; each must leave with the next PSN from
        ``first_psn`` (section 3 step 1). Returns their EVs in posting order."""
        allowed = None if evs is None else list(evs)
        used = []
        for i in range(count):
            posted = self.host_write_seeded(qp, first_psn + i)
            self.post(posted)
            used.append(self.expect_sent(posted, qp, psn=first_psn + i, evs=allowed))
        return used

    @staticmethod
    def host_write_seeded(qp: Qp, n: int) -> Packet:
        # A distinct payload per packet: a packet cannot be mistaken for another one.
        return host_write(qp, psn=0, seed=n & 0xFF)

    def assert_same_frame(self, got: bytes, expected: bytes, what: str) -> None:
        if got != expected:
            self.fail(f"{what}: frame differs from the spec\n"
                      f"  expected {expected.hex()}\n  received {got.hex()}\n"
                      f"  expected {Ether(expected)!r}\n  received {Ether(got)!r}")

    def expect_packets(self, expected: Sequence[tuple[Packet | Mask, int]]) -> None:
        """Exactly the (packet or Mask, port) pairs leave the NIC, in any order between
        ports, and nothing else: every frame that leaves must match one of them (PTF's
        verify_packet would skip a wrong frame that comes before the right one)."""
        pending = list(expected)
        while pending:
            port, frame = self.receive()
            data = bytes(frame)
            for i, (pkt, want_port) in enumerate(pending):
                if want_port == port and _matches(pkt, data):
                    del pending[i]
                    break
            else:
                wanted = "\n".join(f"  port {p}: {_expected_hex(e)}" for e, p in pending)
                self.fail(f"unexpected frame on port {port}: {data.hex()}\n  {frame!r}\n"
                          f"still expected:\n{wanted}")
        self.expect_nothing()

    def expect_nothing(self) -> None:
        tu.verify_no_other_packets(self, timeout=0.2)

    # -- what the PNA NIC cannot do (README, "Architectures") ---------------------------
    def skip_on_pna(self, why: str) -> None:
        """Skip the rest of the test on the PNA NIC (p4src/pna/mrc_nic.p4, P4Info arch
        "pna"), which lacks what v1model's multicast, egress and truncate() give."""
        if self.helper.p4info.pkg_info.arch == "pna":
            self.skipTest(f"PNA NIC: {why}")

    def skip_reply_with_payload_on_pna(self, data: Packet) -> None:
        if Raw in data:
            self.skip_on_pna("no truncate in pna.p4: a reply keeps the arriving payload")

    # -- receive-side exchanges (section 4) -------------------------------------------------
    def expect_delivered_and_sack(self, qp: Qp, data: Packet, *, cumulative_psn: int,
                                  offset: int, bitmap: int, received_bytes: int,
                                  mark: int = SACK_MARK_NONE,
                                  bth_flags_open: bool = False) -> None:
        """``data`` arrives: delivered to the host decapsulated *and* answered at once
        with a SACK on its plane's port (multicast group NIC_REPLY_MCAST_BASE + plane,
        4.1), nothing else."""
        self.skip_on_pna("no multicast in pna.p4: one packet leaves per pass, so the "
                         "data is delivered and its SACK is not sent")
        self.inject(data)
        sack = sack_reply(data, qp, cumulative_psn=cumulative_psn, offset=offset,
                          bitmap=bitmap, received_bytes=received_bytes, mark=mark)
        self.expect_packets([(self.delivered_mask(data), HOST_PORT),
                             (self.reply_mask(sack, bth_flags_open=bth_flags_open),
                              self.plane_port_of(data))])

    def expect_delivered_only(self, data: Packet) -> None:
        """``data`` arrives: delivered to the host, no SACK (4.1, coalescing)."""
        self.inject(data)
        self.expect_packets([(self.delivered_mask(data), HOST_PORT)])

    def expect_sack_only(self, qp: Qp, data: Packet, *, cumulative_psn: int, offset: int,
                         bitmap: int, received_bytes: int, pr: int = 0) -> None:
        """``data`` (a duplicate or a probe) arrives: a SACK on its plane, no delivery."""
        self.skip_reply_with_payload_on_pna(data)
        self.inject(data)
        sack = sack_reply(data, qp, cumulative_psn=cumulative_psn, offset=offset,
                          bitmap=bitmap, received_bytes=received_bytes, pr=pr)
        self.expect_packets([(self.reply_mask(sack), self.plane_port_of(data))])

    def expect_nack_only(self, qp: Qp, data: Packet, reason: int) -> None:
        """``data`` arrives: a NACK ``reason`` on its plane, no delivery."""
        self.skip_reply_with_payload_on_pna(data)
        self.inject(data)
        self.expect_packets([(self.reply_mask(nack_reply(data, qp, reason)),
                              self.plane_port_of(data))])

    def expect_forwarded_to_host(self, pkt: Packet) -> None:
        """A SACK/NACK for our own connection arrives: the host gets it decapsulated
        (4.4), nothing else leaves."""
        self.inject(pkt)
        self.expect_packets([(self.delivered_mask(pkt), HOST_PORT)])

    @staticmethod
    def plane_port_of(pkt: Packet) -> int:
        return PLANE_PORT[plane_of(ev_of(pkt))]

    def expect_dropped(self, reason: int, sends: Sequence[tuple[int, Packet]]) -> None:
        """Send every (port, frame); each is dropped and counted once in
        drop_counter[reason] (section 6); nothing leaves on any port."""
        before = self.counter("drop_counter", reason)
        for port, pkt in sends:
            tu.send_packet(self, port, pkt)
        self.wait_counter("drop_counter", reason, before, len(sends))
        self.expect_nothing()
        self.verify_no_packet_in(timeout=0.2)

    # -- masks for what the spec leaves open ------------------------------------------------
    @staticmethod
    def delivered_mask(arrived: Packet) -> Mask:
        """The delivered form of ``arrived`` (section 4.1); the Ethernet MACs are not
        specified for frames toward the host, so they are not compared."""
        mask = Mask(delivered(arrived))
        mask.set_do_not_care_scapy(Ether, "src")
        mask.set_do_not_care_scapy(Ether, "dst")
        return mask

    @staticmethod
    def reply_mask(reply: Packet, *, bth_flags_open: bool = False) -> Mask:
        """A SACK/NACK as section 4.3 builds it. Section 4.3 gives the inner IPv6 header
        DSCP 46 but no ECN: the inner ECN bits are not compared. With
        ``bth_flags_open`` the BTH flags byte (AckReq, Retransmit) is not compared either
        (4.3 fixes only the opcode, DestQP and PSN of the reply's BTH; the data packet's
        flags may or may not be copied)."""
        mask = Mask(reply)
        mask.set_do_not_care(REPLY_INNER_IPV6_OFFSET * 8 + 4 + 6, 2)
        if bth_flags_open:
            mask.set_do_not_care((REPLY_BTH_OFFSET + 8) * 8, 8)
        return mask

    # -- counters and digests ----------------------------------------------------------------
    def counter(self, name: str, index: int) -> int:
        return self.read_counter(name, index)[0]

    def slot_index(self, qp: Qp, slot: int) -> int:
        """Index of a per-slot counter (section 6)."""
        return qp.qp_index * NIC_EV_SLOTS + slot

    def wait_counter(self, name: str, index: int, before: int, delta: int) -> None:
        """Poll ``name[index]`` until it is ``before + delta`` packets (a dropped or
        consumed packet leaves no other trace), then assert exactly that."""
        deadline = time.monotonic() + COUNTER_TIMEOUT
        now = self.counter(name, index)
        while now - before < delta and time.monotonic() < deadline:
            time.sleep(0.02)
            now = self.counter(name, index)
        self.assertEqual(now - before, delta, f"{name}[{index}]: {before} -> {now}")

    def expect_digest(self, qp: Qp, *, slot: int, old_ev: int, new_ev: int,
                      reason: int) -> None:
        """One ev_event_t {local_qpn, qp_index, slot, old_ev, new_ev, reason} (section 5)."""
        entries = self.verify_digest(DIGEST)
        self.assertEqual(entries, [(qp.local_qpn, qp.qp_index, slot, old_ev, new_ev,
                                    reason)],
                         f"expected ev_event_t for slot {slot}: {old_ev:#x} -> {new_ev:#x}, "
                         f"reason {reason}")

    # -- rotations (section 3 step 2) ----------------------------------------------------------
    def assert_rotation(self, used: Sequence[int], usable: Iterable[int], what: str) -> None:
        """``used`` (the EVs of consecutive packets) is one rotation: every usable slot's
        EV exactly once, in any order (the order depends on the random r)."""
        self.assertEqual(sorted(used), sorted(usable),
                         f"{what}: {[hex(e) for e in used]} is not a permutation of the "
                         f"usable EVs {[hex(e) for e in sorted(usable)]}")


def _matches(expected: Packet | Mask, data: bytes) -> bool:
    if isinstance(expected, Mask):
        return bool(expected.pkt_match(data))
    return bytes(expected) == data


def _expected_hex(expected: Packet | Mask) -> str:
    if isinstance(expected, Mask):
        return f"{bytes(expected.exp_pkt).hex()} (masked: {expected.exp_pkt!r})"
    return f"{bytes(expected).hex()} ({expected!r})"
