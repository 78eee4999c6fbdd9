"""PTF suite for ``p4src/srv6_switch.p4``, the MRC fabric switch: one class per behaviour.

    scripts/run_ptf.sh --target bm --p4 p4src/srv6_switch.p4 -I p4src/include \\
        --priority-queues 8 --test-dir ptf_tests/srv6_switch [srv6_switch.UsidShiftTest ...]

Target-agnostic (bm or BMv2 ``simple_switch_grpc --cpu-port 255``): tables, actions and
counters are found by name in the P4Info, counters are read over P4Runtime (BMv2 serves
counter reads; no test needs a register read, so nothing is ``@model_only``). Expected
packets are built with scapy in ``srv6_packets.py`` from ``docs/mrc-protocol.md`` and
RFC 8200 / 8754 / 8986 / 9800; each new field value (shifted DA, Segments Left, DSCP,
lengths) is written out in the test.

Priority queues. The program queues control traffic (DSCP 46), trimmed headers (DSCP
12/16) and every packet it trims at ``standard_metadata.priority`` 7; simple_switch (and
bm) drop a packet whose priority is not below the number of priority queues per port, so
the target must run with ``--priority-queues 8`` (run_ptf.sh passes it on).

Congestion. PTF sends one packet at a time, so every queue the tests meet is idle
(depth 0). The ECN and trimming tests
therefore use the program's *forced-threshold* entries, documented in each docstring:
``set_trim_threshold(threshold=0, ...)`` (depth >= 0: every trimmable packet is trimmed)
and ``set_ecn_thresholds(low=0, high=0)`` (depth >= high: every ECT packet is marked);
"below the low threshold" is an idle queue (depth 0) under ``low=10``.

Counters are not reset between tests: every counter check is a difference, and drops
are waited for by polling the drop counter (the only sign a dropped packet leaves).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable

import ptf.testutils as tu
from base_test import P4RuntimeTest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from srv6_packets import (
    DOWN_A,
    DOWN_B,
    MY_USID,
    MY_USID_NO_CPU,
    NEXT_HOP_MAC,
    NIC_A,
    SENDER_MAC,
    SWITCH_MAC,
    T1_A,
    T1_B,
    carrier,
    control_packet,
    forwarded,
    mrc_packet,
    nack_headers,
    payload_bytes,
    probe_headers,
    sack_headers,
    srh,
    trimmed,
    write_headers,
)

from protocol.constants import (
    DROP_REASON_BAD_PACKET_OUT,
    DROP_REASON_BAD_SRH,
    DROP_REASON_HOP_LIMIT,
    DROP_REASON_NO_LOCAL_DELIVERY,
    DROP_REASON_NO_ROUTE,
    DSCP_CONTROL,
    DSCP_DATA,
    DSCP_TRIMMABLE,
    DSCP_TRIMMABLE_RETX,
    DSCP_TRIMMED,
    DSCP_TRIMMED_LASTHOP,
    ECN_CE,
    ECN_ECT0,
    ECN_ECT1,
    ECN_NOT_ECT,
    OPCODE_WRITE_MIDDLE,
    OPCODE_WRITE_ONLY_IMM,
    PUNT_REASON_LOCAL_ADDRESS,
    PUNT_REASON_SRH_END,
    PUNT_REASON_USID_END,
)
from protocol.headers import dscp_ecn_tc

# Local full 128-bit SIDs (srv6_end) and addresses outside the uSID plan.
SID_X = "2001:db8:ff::100"
SID_Y = "2001:db8:ff::101"
SID_Z = "2001:db8:ff::102"
SWITCH_ADDR = "2001:db8:ff::1"  # the switch's own address (ipv6_route send_to_cpu)

COUNTER_TIMEOUT = 2.0

class Srv6SwitchTest(P4RuntimeTest):
    """Common set-up: PTF port indexes 1-4 and helpers for the fabric tables."""

    def setUp(self) -> None:
        super().setUp()
        self.port = {i: self.swports(i) for i in (1, 2, 3, 4)}

    # -- tables -------------------------------------------------------------------------
    def add_my_sid(self, usid: int, end_to_cpu: int = 1) -> None:
        self.insert_table_entry("my_sid", {"dst_addr": (carrier(usid), 48)}, "usid_un",
                                {"end_to_cpu": end_to_cpu})

    def add_usid_route(self, usid: int, port_index: int) -> None:
        block_usid = int(ipaddress.IPv6Address(carrier(usid))) >> 80  # block:uSID, 48 bits
        self.insert_table_entry("usid_route", {"dst_usid_prefix": block_usid},
                                "set_next_hop", {"port": self.port[port_index],
                                                 "next_hop_mac": NEXT_HOP_MAC[port_index]})

    def add_ipv6_route(self, prefix: str, length: int, port_index: int) -> None:
        self.insert_table_entry("ipv6_route", {"dst_addr": (prefix, length)}, "set_next_hop",
                                {"port": self.port[port_index],
                                 "next_hop_mac": NEXT_HOP_MAC[port_index]})

    def install_fabric(self) -> None:
        """This T0's uSID plan: own uSID 0x0200 (end of carrier -> CPU), the T1s
        0x1000/0x1001 on ports 1/2, the NIC downlinks 0x0201/0x0202 on ports 3/4."""
        self.add_my_sid(MY_USID, end_to_cpu=1)
        for usid, index in ((T1_A, 1), (T1_B, 2), (DOWN_A, 3), (DOWN_B, 4)):
            self.add_usid_route(usid, index)

    # -- checks ---------------------------------------------------------------------------
    def send(self, port_index: int, pkt: object) -> None:
        tu.send_packet(self, self.port[port_index], pkt)

    def expect(self, pkt: object, port_index: int) -> None:
        self.verify_packets(pkt, [self.port[port_index]])

    def counter(self, name: str, index: int) -> int:
        return self.read_counter(name, index)[0]

    def wait_counter(self, name: str, index: int, before: int, delta: int) -> None:
        """Poll ``name[index]`` until it is ``before + delta`` packets (a dropped packet
        leaves no other trace), then assert exactly that."""
        deadline = time.monotonic() + COUNTER_TIMEOUT
        now = self.counter(name, index)
        while now - before < delta and time.monotonic() < deadline:
            time.sleep(0.02)
            now = self.counter(name, index)
        self.assertEqual(now - before, delta, f"{name}[{index}]: {before} -> {now}")

    def expect_dropped(self, reason: int, sends: Iterable[tuple[int, object]]) -> None:
        """Send every (port index, packet); each must be dropped and counted once in
        ``drop_counter[reason]``; nothing leaves on any port or toward the CPU."""
        sends = list(sends)
        before = self.counter("drop_counter", reason)
        for index, pkt in sends:
            self.send(index, pkt)
        self.wait_counter("drop_counter", reason, before, len(sends))
        tu.verify_no_other_packets(self, timeout=0.2)
        self.verify_no_packet_in(timeout=0.2)


class UsidShiftTest(Srv6SwitchTest):
    """uN (RFC 9800 4.1, NEXT-CSID, F3216) through one switch: block:0200 matches
    my_sid, the 80 bits after the block move up 16 bits, zeros fill the last 16, the
    new DA's block:uSID selects the usid_route entry; hop limit 64 -> 63, next-hop MAC
    rewritten, source MAC = the switch's; the inner packet is untouched."""

    def runTest(self) -> None:
        self.install_fabric()
        # Six uSIDs: 0200:1000:0300:0301:0a0b:0c0d -> 1000:0300:0301:0a0b:0c0d:0000.
        pkt = mrc_packet("fcbb:bb00:200:1000:300:301:a0b:c0d")
        shifted = "fcbb:bb00:1000:300:301:a0b:c0d:0"
        self.assertEqual(shifted, carrier(T1_A, 0x300, 0x301, 0xA0B, 0xC0D))
        self.send(3, pkt)
        self.expect(forwarded(pkt, 1, dst=shifted, hlim=63), 1)
        # Three uSIDs: 0200:1001:0300 -> 1001:0300, toward T1 0x1001 on port 2.
        pkt = mrc_packet("fcbb:bb00:200:1001:300::", hlim=2)
        self.send(4, pkt)
        self.expect(forwarded(pkt, 2, dst="fcbb:bb00:1001:300::", hlim=1), 2)
        # A carrier of another node (first uSID not ours) is routed on its /48 as it
        # is: no shift.
        pkt = mrc_packet("fcbb:bb00:1000:300:301::")
        self.send(2, pkt)
        self.expect(forwarded(pkt, 1, hlim=63), 1)


class LastUsidToNicTest(Srv6SwitchTest):
    """The last uSID toward a NIC: 0200:0201 shifts to 0201 (the downlink's /48), which
    usid_route sends out of port 3 with the NIC's MAC; likewise 0200:0202 -> port 4."""

    def runTest(self) -> None:
        self.install_fabric()
        for down, index in ((DOWN_A, 3), (DOWN_B, 4)):
            pkt = mrc_packet(carrier(MY_USID, down))
            self.send(1, pkt)
            self.expect(forwarded(pkt, index, dst=f"fcbb:bb00:{down:x}::", hlim=63), index)


class EndOfCarrierWithSrhTest(Srv6SwitchTest):
    """A carrier used up at this node (nothing after 0200) with an SRH: RFC 8754
    4.3.1.1 End -- Segments Left - 1 and Segment List[Segments Left] into the DA
    (copied, not shifted), then routed; the SRH is otherwise unchanged. At Segments
    Left 0 the packet is for this node: packet-in, reason PUNT_REASON_USID_END. A uSID
    left after ours is a plain shift that does not touch the SRH."""

    def runTest(self) -> None:
        self.install_fabric()
        seg0 = "fcbb:bb00:1001:202::"       # last segment
        seg1 = "fcbb:bb00:1000:300:301::"
        here = "fcbb:bb00:200::"           # this node's carrier, used up
        pkt = mrc_packet(here, srh=srh([seg0, seg1, here], segleft=2))
        self.send(3, pkt)
        self.expect(forwarded(pkt, 1, dst=seg1, segleft=1, hlim=63), 1)
        pkt = mrc_packet(here, srh=srh([seg0, seg1, here], segleft=1))
        self.send(3, pkt)
        self.expect(forwarded(pkt, 2, dst=seg0, segleft=0, hlim=63), 2)
        # Segments Left 0: for this node, unchanged, to the CPU.
        pkt = mrc_packet(here, srh=srh([here], segleft=0))
        self.send(4, pkt)
        self.verify_packet_in(pkt, {"ingress_port": self.port[4],
                                    "reason": PUNT_REASON_USID_END})
        # Not used up (0200:1000): shift only, Segments Left stays 1.
        pkt = mrc_packet("fcbb:bb00:200:1000::", srh=srh([seg0, seg1], segleft=1))
        self.send(3, pkt)
        self.expect(forwarded(pkt, 1, dst="fcbb:bb00:1000::", hlim=63), 1)
        tu.verify_no_other_packets(self)


class EndOfCarrierWithoutSrhTest(Srv6SwitchTest):
    """A carrier used up at this node without an SRH is for this node (RFC 8986 4.1
    S02-S03): with usid_un(end_to_cpu=1) it reaches the controller as a PacketIn
    (ingress_port, reason PUNT_REASON_USID_END, frame unchanged: no hop-limit
    change); with end_to_cpu=0 it is dropped and counted (DROP_REASON_NO_LOCAL_DELIVERY).
    Changing the entry changes the outcome."""

    def runTest(self) -> None:
        self.install_fabric()
        self.add_my_sid(MY_USID_NO_CPU, end_to_cpu=0)
        pkt = mrc_packet("fcbb:bb00:200::", hlim=1)
        self.send(2, pkt)
        self.verify_packet_in(pkt, {"ingress_port": self.port[2],
                                    "reason": PUNT_REASON_USID_END})
        tu.verify_no_other_packets(self)
        self.expect_dropped(DROP_REASON_NO_LOCAL_DELIVERY,
                            [(1, mrc_packet("fcbb:bb00:2ff::"))])
        # The same entry, now without delivery to the CPU: dropped.
        self.modify(self.table_entry("my_sid", {"dst_addr": (carrier(MY_USID), 48)},
                                     "usid_un", {"end_to_cpu": 0}))
        self.expect_dropped(DROP_REASON_NO_LOCAL_DELIVERY, [(2, pkt)])


class SrhEndFullSidTest(Srv6SwitchTest):
    """Classic End (RFC 8986 4.1, RFC 8754 4.3.1.1) on full 128-bit SIDs, Segments
    Left 2 -> 1 -> 0 in three packets. The SRH's Segment List is [Z, Y, X] (X first
    visited); X, Y and Z are all SIDs of this switch, and ports 1 and 2 stand for loop
    cables: the routes for Y and Z point out of them, and each packet that leaves is
    sent back in on the same port.

    1. DA X, SL 2 -> SL 1, DA Y (List[1]), hop limit 64 -> 63, out of port 1.
    2. DA Y, SL 1 -> SL 0, DA Z (List[0]), hop limit 63 -> 62, out of port 2.
    3. DA Z, SL 0 -> for this node: PacketIn, reason PUNT_REASON_SRH_END, unchanged.
    """

    def runTest(self) -> None:
        self.install_fabric()
        for sid in (SID_X, SID_Y, SID_Z):
            self.insert_table_entry("srv6_end", {"dst_addr": sid}, "srh_end",
                                    {"end_to_cpu": 1})
        self.add_ipv6_route(SID_Y, 128, 1)
        self.add_ipv6_route(SID_Z, 128, 2)

        first = mrc_packet(SID_X, srh=srh([SID_Z, SID_Y, SID_X], segleft=2))
        self.send(3, first)
        second = forwarded(first, 1, dst=SID_Y, segleft=1, hlim=63)
        self.expect(second, 1)

        self.send(1, second)
        third = forwarded(second, 2, dst=SID_Z, segleft=0, hlim=62)
        self.assertEqual(third[Ether].src, NEXT_HOP_MAC[1])  # the looped frame's dst
        self.expect(third, 2)

        self.send(2, third)
        self.verify_packet_in(third, {"ingress_port": self.port[2],
                                      "reason": PUNT_REASON_SRH_END})
        tu.verify_no_other_packets(self)


class BadSrhTest(Srv6SwitchTest):
    """An SRH that fails the RFC 8754 4.3.1.1 checks at a local SID is dropped and
    counted in drop_counter[DROP_REASON_BAD_SRH] (read over P4Runtime):
    Segments Left > Last Entry + 1 (S09-S11 compare it with the list), Last Entry
    beyond what Hdr Ext Len holds, Hdr Ext Len 0 with Segments Left 1, and a Routing
    Type other than 4 with Segments Left > 0 (RFC 8200 4.4) -- at a full SID and at the
    end of a uSID carrier."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("srv6_end", {"dst_addr": SID_X}, "srh_end",
                                {"end_to_cpu": 1})
        seg = ["fcbb:bb00:1001:202::", "fcbb:bb00:1000:300::", SID_X]
        bad = [
            # Segments Left 4 > Last Entry (2) + 1.
            srh(seg, segleft=4),
            # Last Entry 3 with Hdr Ext Len 6 (room for 3 segments: max Last Entry 2).
            srh(seg, segleft=1, lastentry=3),
            # Hdr Ext Len 0: no segment list at all, yet Segments Left 1.
            srh([], segleft=1, lastentry=0, len=0),
            # Routing Type 3 (not an SRH) with Segments Left 1.
            srh(seg, segleft=1, type=3),
        ]
        sends = [(1, mrc_packet(SID_X, srh=h)) for h in bad]
        # The same check at the end of a uSID carrier.
        sends.append((2, mrc_packet("fcbb:bb00:200::", srh=srh(seg[:2], segleft=3))))
        self.expect_dropped(DROP_REASON_BAD_SRH, sends)
        # A good SRH on the same SID still works (SL 2 -> 1, DA = List[1]).
        good = mrc_packet(SID_X, srh=srh(seg, segleft=2))
        self.send(1, good)
        self.expect(forwarded(good, 1, dst=seg[1], segleft=1, hlim=63), 1)


class HopLimitTest(Srv6SwitchTest):
    """RFC 8200 3: a forwarding node decrements the hop limit and discards a packet
    whose hop limit was <= 1 (uSID shift, SRH End, plain IPv6 route alike), counted in
    drop_counter[DROP_REASON_HOP_LIMIT]; hop limit 2 leaves with 1."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("srv6_end", {"dst_addr": SID_X}, "srh_end",
                                {"end_to_cpu": 1})
        self.add_ipv6_route("2001:db8:b::", 48, 2)
        sends = [
            (3, mrc_packet("fcbb:bb00:200:1000::", hlim=1)),
            (3, mrc_packet("fcbb:bb00:200:1000::", hlim=0)),
            (1, mrc_packet("fcbb:bb00:1001:202::", hlim=1)),   # transit, no shift
            (1, mrc_packet(SID_X, hlim=1,
                           srh=srh(["fcbb:bb00:1000::", SID_X], segleft=1))),
            (2, mrc_packet("2001:db8:b::9", hlim=1)),          # plain IPv6
        ]
        rx_before = self.counter("rx_port_counter", self.port[3])
        self.expect_dropped(DROP_REASON_HOP_LIMIT, sends)
        self.assertEqual(self.counter("rx_port_counter", self.port[3]) - rx_before, 2)
        pkt = mrc_packet("fcbb:bb00:200:1000::", hlim=2)
        self.send(3, pkt)
        self.expect(forwarded(pkt, 1, dst="fcbb:bb00:1000::", hlim=1), 1)


class UnknownSidTest(Srv6SwitchTest):
    """Addresses no table knows are dropped and counted in
    drop_counter[DROP_REASON_NO_ROUTE]: a carrier whose first uSID (0x0999) is neither
    ours nor routed, our uSID followed by an unrouted one (0x0777 after the shift), and
    a full SID next to ours that is not in srv6_end."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("srv6_end", {"dst_addr": SID_X}, "srh_end",
                                {"end_to_cpu": 1})
        self.expect_dropped(DROP_REASON_NO_ROUTE, [
            (1, mrc_packet("fcbb:bb00:999:1000::")),
            (1, mrc_packet("fcbb:bb00:200:777::")),
            (2, mrc_packet("2001:db8:ff::1ff", srh=srh(["fcbb:bb00:1000::", SID_X], 1))),
        ])


class Ipv6LpmTest(Srv6SwitchTest):
    """Non-SR traffic (management, probes) takes ipv6_route, longest prefix first:
    /128 over /64 over /48; MACs rewritten, hop limit - 1, nothing else changes."""

    def runTest(self) -> None:
        self.install_fabric()
        self.add_ipv6_route("2001:db8:b::", 48, 2)
        self.add_ipv6_route("2001:db8:b:1::", 64, 3)
        self.add_ipv6_route("2001:db8:b:1::7", 128, 4)
        cases = [("2001:db8:b:9::1", 2), ("2001:db8:b:1::8", 3), ("2001:db8:b:1::7", 4)]
        for dst, index in cases:
            # Plain IPv6/UDP, not MRC.
            pkt = (Ether(dst=SWITCH_MAC, src=SENDER_MAC)
                   / IPv6(src=NIC_A, dst=dst, hlim=17, tc=dscp_ecn_tc(DSCP_DATA))
                   / UDP(sport=5555, dport=9999) / Raw(b"management" * 4))
            self.send(1, pkt)
            self.expect(forwarded(pkt, index, hlim=16), index)
        # An MRC packet without SRv6 (outer DA = the peer NIC) is routed the same way.
        pkt = mrc_packet("2001:db8:b:1::8")
        self.send(4, pkt)
        self.expect(forwarded(pkt, 3, hlim=63), 3)


class EcnMarkAboveHighTest(Srv6SwitchTest):
    """ECN-capable packets are marked CE when the queue depth is at or above the high
    threshold. Forced threshold: ecn_config[port 1] = set_ecn_thresholds(low=0,
    high=0), so even an idle queue (depth 0) is >= high. ECT(0) and ECT(1) become CE
    in the outer header only (the inner one keeps its ECN), and ecn_mark_counter[port 1]
    counts both."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("ecn_config", {"egress_port": self.port[1]},
                                "set_ecn_thresholds", {"low": 0, "high": 0})
        before = self.counter("ecn_mark_counter", self.port[1])
        for ecn in (ECN_ECT0, ECN_ECT1):
            pkt = mrc_packet("fcbb:bb00:200:1000::", ecn=ecn)
            self.send(3, pkt)
            exp = forwarded(pkt, 1, dst="fcbb:bb00:1000::", hlim=63,
                            tc=dscp_ecn_tc(DSCP_TRIMMABLE, ECN_CE))
            self.assertEqual(exp[IPv6:2].tc, dscp_ecn_tc(DSCP_TRIMMABLE, ecn))
            self.expect(exp, 1)
        self.assertEqual(self.counter("ecn_mark_counter", self.port[1]) - before, 2)


class EcnBelowLowTest(Srv6SwitchTest):
    """Below the low threshold nothing is marked: ecn_config[port 2] =
    set_ecn_thresholds(low=10, high=20) and the queue is idle (depth 0 <= low), so an
    ECT(0) packet leaves unchanged and ecn_mark_counter[port 2] does not move."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("ecn_config", {"egress_port": self.port[2]},
                                "set_ecn_thresholds", {"low": 10, "high": 20})
        before = self.counter("ecn_mark_counter", self.port[2])
        for i in range(3):
            pkt = mrc_packet("fcbb:bb00:200:1001::", ecn=ECN_ECT0,
                             transport=write_headers(psn=i))
            self.send(3, pkt)
            self.expect(forwarded(pkt, 2, dst="fcbb:bb00:1001::", hlim=63), 2)
        self.assertEqual(self.counter("ecn_mark_counter", self.port[2]), before)


class EcnLastHopTest(Srv6SwitchTest):
    """No ECN marking toward a NIC (the last hop: ECN signals fabric imbalance, not
    receiver incast). Port 3 first gets a forced-marking entry (set_ecn_thresholds(0,
    0)) and marks, proving the packet would be marked; the entry is then changed to
    disable_ecn_marking and the same ECT(0) packet leaves unmarked."""

    def runTest(self) -> None:
        self.install_fabric()
        key = {"egress_port": self.port[3]}
        self.insert_table_entry("ecn_config", key, "set_ecn_thresholds",
                                {"low": 0, "high": 0})
        pkt = mrc_packet("fcbb:bb00:200:201::", ecn=ECN_ECT0)
        self.send(1, pkt)
        self.expect(forwarded(pkt, 3, dst="fcbb:bb00:201::", hlim=63,
                              tc=dscp_ecn_tc(DSCP_TRIMMABLE, ECN_CE)), 3)
        self.modify(self.table_entry("ecn_config", key, "disable_ecn_marking"))
        before = self.counter("ecn_mark_counter", self.port[3])
        for ecn in (ECN_ECT0, ECN_ECT1):
            pkt = mrc_packet("fcbb:bb00:200:201::", ecn=ecn)
            self.send(1, pkt)
            self.expect(forwarded(pkt, 3, dst="fcbb:bb00:201::", hlim=63), 3)
        self.assertEqual(self.counter("ecn_mark_counter", self.port[3]), before)


class EcnCeKeptTest(Srv6SwitchTest):
    """A packet already CE keeps CE (RFC 3168 5) toward a forced-marking port
    (set_ecn_thresholds(low=0, high=0)), and is not counted as a new mark."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("ecn_config", {"egress_port": self.port[1]},
                                "set_ecn_thresholds", {"low": 0, "high": 0})
        before = self.counter("ecn_mark_counter", self.port[1])
        pkt = mrc_packet("fcbb:bb00:200:1000::", ecn=ECN_CE)
        self.send(3, pkt)
        self.expect(forwarded(pkt, 1, dst="fcbb:bb00:1000::", hlim=63), 1)
        self.assertEqual(self.counter("ecn_mark_counter", self.port[1]), before)


class EcnNotEctTest(Srv6SwitchTest):
    """Not-ECT packets are never marked (RFC 3168 5), even toward a forced-marking port
    (set_ecn_thresholds(low=0, high=0)): trimmable data (DSCP 4) and data that must not
    be trimmed (DSCP 0) leave with ECN 00. (Not-ECT control traffic is checked in
    ControlNeverTrimmedTest.)"""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("ecn_config", {"egress_port": self.port[1]},
                                "set_ecn_thresholds", {"low": 0, "high": 0})
        before = self.counter("ecn_mark_counter", self.port[1])
        for dscp in (DSCP_TRIMMABLE, DSCP_DATA):
            pkt = mrc_packet("fcbb:bb00:200:1000::", dscp=dscp, ecn=ECN_NOT_ECT)
            self.send(3, pkt)
            self.expect(forwarded(pkt, 1, dst="fcbb:bb00:1000::", hlim=63), 1)
        self.assertEqual(self.counter("ecn_mark_counter", self.port[1]), before)


class TrimFabricPortTest(Srv6SwitchTest):
    """Trimming toward a fabric port. Forced threshold: trim_config[port 1] =
    set_trim_threshold(threshold=0, last_hop=0), so every trimmable packet (DSCP 4 or
    8 with MRC headers) is trimmed even on an idle queue. A trimmed packet keeps every
    header through the MRC transport headers, gets DSCP TRIMMED (12), ECN kept, hop
    limit - 1, UDP checksum 0, and lengths that cover only what is left:

    - WRITE_ONLY, 64-byte payload: UDP 8+12+4+16 = 40, inner payload 40, outer 40+40 =
      80, frame 14+40+80 = 134 bytes;
    - WRITE_ONLY_IMM retransmission (DSCP 8), 200-byte payload: ImmDt kept, UDP 44,
      inner 44, outer 84;
    - with a 3-segment SRH (8+3*16 = 56 bytes, kept whole): outer 56+40+40 = 136.

    trim_counter[port 1] counts the three."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("trim_config", {"egress_port": self.port[1]},
                                "set_trim_threshold", {"threshold": 0, "last_hop": 0})
        before = self.counter("trim_counter", self.port[1])
        da = "fcbb:bb00:1000::"
        cases = [
            (mrc_packet("fcbb:bb00:200:1000::", ecn=ECN_ECT0), 40, 80),
            (mrc_packet("fcbb:bb00:200:1000::", dscp=DSCP_TRIMMABLE_RETX, ecn=ECN_NOT_ECT,
                        transport=write_headers(OPCODE_WRITE_ONLY_IMM, payload=200,
                                                imm=0xCAFEF00D)), 44, 84),
            (mrc_packet("fcbb:bb00:200:1000::",
                        srh=srh(["fcbb:bb00:1001:202::", "fcbb:bb00:1000:300::",
                                 "fcbb:bb00:200:1000::"], segleft=2)), 40, 136),
        ]
        for pkt, udp_len, outer_plen in cases:
            exp = trimmed(pkt, 1, DSCP_TRIMMED, dst=da)
            self.assertEqual((exp[UDP].len, exp[IPv6:2].plen, exp[IPv6].plen),
                             (udp_len, udp_len, outer_plen))
            self.assertEqual(len(bytes(exp)), 14 + 40 + outer_plen)
            self.assertEqual(exp[IPv6].tc & 3, pkt[IPv6].tc & 3)  # ECN kept
            self.send(3, pkt)
            self.expect(exp, 1)
        self.assertEqual(self.counter("trim_counter", self.port[1]) - before, len(cases))


class TrimLastHopTest(Srv6SwitchTest):
    """Trimming toward a NIC. Forced threshold: trim_config[port 3] =
    set_trim_threshold(threshold=0, last_hop=1): DSCP TRIMMED_LASTHOP (16) instead of
    12, otherwise the same format (WRITE_MIDDLE, 512-byte payload: UDP 40, inner 40,
    outer 80). A PROBE (trimmable, no payload) has nothing to cut: its lengths keep
    their values (UDP 8+12+16 = 36, inner 36, outer 76), DSCP 16, UDP checksum 0."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("trim_config", {"egress_port": self.port[3]},
                                "set_trim_threshold", {"threshold": 0, "last_hop": 1})
        before = self.counter("trim_counter", self.port[3])
        data = mrc_packet("fcbb:bb00:200:201::",
                          transport=write_headers(OPCODE_WRITE_MIDDLE, payload=512))
        probe = mrc_packet("fcbb:bb00:200:201::", transport=probe_headers())
        for pkt, udp_len, outer_plen in ((data, 40, 80), (probe, 36, 76)):
            exp = trimmed(pkt, 3, DSCP_TRIMMED_LASTHOP, dst="fcbb:bb00:201::")
            self.assertEqual((exp[UDP].len, exp[IPv6:2].plen, exp[IPv6].plen),
                             (udp_len, udp_len, outer_plen))
            self.assertEqual(exp[IPv6].tc >> 2, DSCP_TRIMMED_LASTHOP)
            self.send(1, pkt)
            self.expect(exp, 3)
        self.assertEqual(self.counter("trim_counter", self.port[3]) - before, 2)


class NotTrimmedTest(Srv6SwitchTest):
    """Only trimmable MRC packets are trimmed. Toward a port that trims everything
    trimmable (forced threshold: trim_config[port 1] = set_trim_threshold(threshold=0,
    last_hop=0)), data of DSCP 0 (must not be trimmed) and a DSCP 4 packet that is not
    MRC (UDP port 9999: no transport headers to keep) leave whole, only forwarded. A
    DSCP 4 MRC packet toward port 2, whose threshold (50) an idle queue never meets, is
    not trimmed either. trim_counter does not move."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("trim_config", {"egress_port": self.port[1]},
                                "set_trim_threshold", {"threshold": 0, "last_hop": 0})
        self.insert_table_entry("trim_config", {"egress_port": self.port[2]},
                                "set_trim_threshold", {"threshold": 50, "last_hop": 0})
        before = {i: self.counter("trim_counter", self.port[i]) for i in (1, 2)}
        not_mrc = (Ether(dst=SWITCH_MAC, src=SENDER_MAC)
                   / IPv6(src=NIC_A, dst="fcbb:bb00:200:1000::",
                          tc=dscp_ecn_tc(DSCP_TRIMMABLE, ECN_ECT0))
                   / IPv6(src=NIC_A, dst="2001:db8:b::1") / UDP(sport=4660, dport=9999)
                   / Raw(payload_bytes(64)))
        cases = [
            (mrc_packet("fcbb:bb00:200:1000::", dscp=DSCP_DATA,
                        transport=write_headers(payload=256)), 1, "fcbb:bb00:1000::"),
            (not_mrc, 1, "fcbb:bb00:1000::"),
            (mrc_packet("fcbb:bb00:200:1001::"), 2, "fcbb:bb00:1001::"),
        ]
        for pkt, index, da in cases:
            self.send(3, pkt)
            self.expect(forwarded(pkt, index, dst=da, hlim=63), index)
        self.assertEqual({i: self.counter("trim_counter", self.port[i]) for i in (1, 2)},
                         before)


class ControlNeverTrimmedTest(Srv6SwitchTest):
    """Control traffic (DSCP 46: SACK, NACK) is never trimmed toward a port that trims
    everything trimmable (forced threshold: trim_config[port 1] =
    set_trim_threshold(threshold=0, last_hop=0)): it leaves whole, only forwarded (DA
    shifted, hop limit - 1). With forced ECN marking on the same port
    (set_ecn_thresholds(0, 0)) an ECT(0) SACK is marked CE like any ECT packet and a
    Not-ECT NACK is not. A trimmable packet sent alongside is trimmed, proving the
    trim entry is in force."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("trim_config", {"egress_port": self.port[1]},
                                "set_trim_threshold", {"threshold": 0, "last_hop": 0})
        self.insert_table_entry("ecn_config", {"egress_port": self.port[1]},
                                "set_ecn_thresholds", {"low": 0, "high": 0})
        before = self.counter("trim_counter", self.port[1])
        da = "fcbb:bb00:1000::"
        sack = control_packet("fcbb:bb00:200:1000::", sack_headers(), ecn=ECN_ECT0)
        self.send(3, sack)
        self.expect(forwarded(sack, 1, dst=da, hlim=63,
                              tc=dscp_ecn_tc(DSCP_CONTROL, ECN_CE)), 1)
        nack = control_packet("fcbb:bb00:200:1000::", nack_headers(), ecn=ECN_NOT_ECT)
        self.send(3, nack)
        self.expect(forwarded(nack, 1, dst=da, hlim=63), 1)
        self.assertEqual(self.counter("trim_counter", self.port[1]), before)
        data = mrc_packet("fcbb:bb00:200:1000::")
        self.send(3, data)
        self.expect(trimmed(data, 1, DSCP_TRIMMED, dst=da), 1)
        self.assertEqual(self.counter("trim_counter", self.port[1]) - before, 1)


class PacketOutTest(Srv6SwitchTest):
    """A PacketOut whose packet_out.egress_port names a port leaves there exactly as
    the controller built it: no lookup, no hop-limit change (here a frame whose DA is
    this switch's own carrier end, and a probe with hop limit 1). PacketOuts to the CPU
    port (255), the drop port (511) or past the last port (600) are dropped and counted
    in drop_counter[DROP_REASON_BAD_PACKET_OUT]."""

    def runTest(self) -> None:
        self.install_fabric()
        own = mrc_packet("fcbb:bb00:200:201::", hlim=1, eth_dst=NEXT_HOP_MAC[3],
                         eth_src=SWITCH_MAC)
        probe = mrc_packet("fcbb:bb00:1000:300::", transport=probe_headers(), hlim=1,
                           eth_dst=NEXT_HOP_MAC[1], eth_src=SWITCH_MAC)
        for pkt, index in ((own, 3), (probe, 1)):
            self.send_packet_out(pkt, egress_port=self.port[index])
            self.expect(pkt, index)
        before = self.counter("drop_counter", DROP_REASON_BAD_PACKET_OUT)
        for port in (255, 511, 600):
            self.send_packet_out(own, egress_port=port)
        self.wait_counter("drop_counter", DROP_REASON_BAD_PACKET_OUT, before, 3)
        tu.verify_no_other_packets(self, timeout=0.2)
        self.verify_no_packet_in(timeout=0.2)


class PacketInTest(Srv6SwitchTest):
    """A packet for the switch itself (its own address, ipv6_route send_to_cpu)
    reaches the controller as a PacketIn: packet_in.ingress_port = where it entered,
    reason PUNT_REASON_LOCAL_ADDRESS, the frame as it arrived (a packet for this node
    keeps its hop limit, even 1). Nothing leaves on the data ports, and
    tx_port_counter[CPU port] counts it."""

    def runTest(self) -> None:
        self.install_fabric()
        self.insert_table_entry("ipv6_route", {"dst_addr": (SWITCH_ADDR, 128)},
                                "send_to_cpu")
        self.add_ipv6_route("2001:db8:ff::", 48, 2)   # the rest of the /48 goes on
        tx_before = self.counter("tx_port_counter", self.cpu_port)
        for index, hlim in ((1, 64), (4, 1)):
            pkt = (Ether(dst=SWITCH_MAC, src=SENDER_MAC)
                   / IPv6(src=NIC_A, dst=SWITCH_ADDR, hlim=hlim, tc=dscp_ecn_tc(DSCP_DATA))
                   / UDP(sport=40000, dport=9559) / Raw(b"hello switch"))
            self.send(index, pkt)
            self.verify_packet_in(pkt, {"ingress_port": self.port[index],
                                        "reason": PUNT_REASON_LOCAL_ADDRESS})
        tu.verify_no_other_packets(self)
        self.assertEqual(self.counter("tx_port_counter", self.cpu_port) - tx_before, 2)
        # Another address of the /48 is forwarded, not punted.
        pkt = mrc_packet("2001:db8:ff::2")
        self.send(1, pkt)
        self.expect(forwarded(pkt, 2, hlim=63), 2)
        self.verify_no_packet_in(timeout=0.2)
