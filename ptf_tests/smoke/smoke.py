"""PTF smoke suite for ``tests/p4/ptf_smoke.p4``: forwarding (L2, L3 LPM), packet-out,
packet-in with metadata, digests, counters, multicast, clone sessions, P4Runtime errors.

Target-agnostic (bm or BMv2 simple_switch_grpc): every expected packet is built here
with scapy from what the program is specified to do (see the comment at the top of the
P4 file), and entries are found by name in the P4Info. The only check BMv2 cannot do
(P4Runtime register reads) is marked ``@model_only``.

    scripts/run_ptf.sh --target bm                      # all of them
    scripts/run_ptf.sh --target bm smoke.MulticastTest  # one
"""

from __future__ import annotations

from typing import Any

import ptf.testutils as tu
from base_test import P4RuntimeTest, model_only
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2

CLONE_MAC = "02:00:00:00:c1:0e"  # source MAC of I2E clones (CLONE_MAC in the program)
REASON_L2_TO_CPU = 1
REASON_ACL_PUNT = 2

HOST1 = "00:00:00:00:00:01"
HOST2 = "00:00:00:00:00:02"
HOST3 = "00:00:00:00:00:03"
ROUTER_MAC = "00:aa:bb:00:00:01"
BROADCAST = "ff:ff:ff:ff:ff:ff"


def tcp(eth_dst: str = HOST2, eth_src: str = HOST1, ip_dst: str = "10.0.1.2",
        ip_ttl: int = 64, pktlen: int = 100) -> Any:
    return tu.simple_tcp_packet(eth_dst=eth_dst, eth_src=eth_src, ip_src="10.0.0.1",
                                ip_dst=ip_dst, ip_ttl=ip_ttl, pktlen=pktlen)


def with_src(pkt: Any, src: str) -> Any:
    out = pkt.copy()
    out.src = src
    return out


class SmokeTest(P4RuntimeTest):
    """Common set-up: the ports used and a learnt source for HOST1 (so most tests see
    no digests)."""

    def setUp(self) -> None:
        super().setUp()
        self.p1, self.p2, self.p3, self.p4 = (self.swports(i) for i in range(1, 5))

    def learn(self, *macs: str) -> None:
        self.insert(*(self.table_entry("smac", {"src_addr": m}, "NoAction") for m in macs))


class L2ForwardTest(SmokeTest):
    """Exact match on the destination MAC forwards; a miss drops (default action);
    the direct counter counts the entry's hits."""

    def runTest(self) -> None:
        self.learn(HOST1)
        entry = self.insert_table_entry("l2_fwd", {"dst_addr": HOST2}, "forward",
                                        {"port": self.p2})
        self.insert_table_entry("l2_fwd", {"dst_addr": HOST3}, "forward",
                                {"port": self.p3})
        pkt = tcp(eth_dst=HOST2)
        tu.send_packet(self, self.p1, pkt)
        self.verify_packets(pkt, [self.p2])
        pkt3 = tcp(eth_dst=HOST3, pktlen=120)
        tu.send_packet(self, self.p4, pkt3)
        self.verify_packets(pkt3, [self.p3])
        # A miss runs the default action: drop.
        tu.send_packet(self, self.p1, tcp(eth_dst="00:00:00:00:00:99"))
        tu.verify_no_other_packets(self, timeout=0.5)
        # Non-IPv4 frames are switched the same way.
        eth = tu.simple_eth_packet(eth_dst=HOST2, eth_src=HOST1, eth_type=0x88B5,
                                   pktlen=64)
        tu.send_packet(self, self.p3, eth)
        self.verify_packets(eth, [self.p2])
        self.assertEqual(self.read_direct_counter(entry), (2, 100 + 64))

        # MODIFY moves the traffic; DELETE makes it a miss again.
        self.modify(self.table_entry("l2_fwd", {"dst_addr": HOST2}, "forward",
                                     {"port": self.p4}))
        tu.send_packet(self, self.p1, pkt)
        self.verify_packets(pkt, [self.p4])
        self.delete(self.table_entry("l2_fwd", {"dst_addr": HOST2}))
        tu.send_packet(self, self.p1, pkt)
        tu.verify_no_other_packets(self, timeout=0.5)


class L3RouteTest(SmokeTest):
    """Longest-prefix match on the IPv4 destination: MACs rewritten, TTL - 1, checksum
    recomputed; a drop route drops; no route falls back to L2."""

    def runTest(self) -> None:
        self.learn(HOST1)
        self.insert(
            self.table_entry("ipv4_lpm", {"dst_addr": ("10.0.2.0", 24)}, "route",
                             {"port": self.p3, "dst_mac": "00:00:00:00:02:02",
                              "src_mac": ROUTER_MAC}),
            self.table_entry("ipv4_lpm", {"dst_addr": ("10.0.0.0", 16)}, "route",
                             {"port": self.p4, "dst_mac": "00:00:00:00:04:04",
                              "src_mac": ROUTER_MAC}),
            self.table_entry("ipv4_lpm", {"dst_addr": ("10.0.3.0", 24)}, "drop"),
            self.table_entry("ipv4_lpm", {"dst_addr": ("10.0.2.7", 32)}, "route",
                             {"port": self.p2, "dst_mac": "00:00:00:00:07:07",
                              "src_mac": ROUTER_MAC}),
        )
        cases = [("10.0.2.5", self.p3, "00:00:00:00:02:02"),   # /24 beats /16
                 ("10.0.2.7", self.p2, "00:00:00:00:07:07"),   # /32 beats /24
                 ("10.0.9.9", self.p4, "00:00:00:00:04:04")]   # only the /16
        for dst, port, mac in cases:
            pkt = tcp(eth_dst=ROUTER_MAC, ip_dst=dst, ip_ttl=64)
            exp = tcp(eth_dst=mac, eth_src=ROUTER_MAC, ip_dst=dst, ip_ttl=63)
            tu.send_packet(self, self.p1, pkt)
            self.verify_packets(exp, [port])
        tu.send_packet(self, self.p1, tcp(eth_dst=ROUTER_MAC, ip_dst="10.0.3.1"))
        tu.verify_no_other_packets(self, timeout=0.5)
        # No route: L2 decides (here: a known MAC).
        self.insert_table_entry("l2_fwd", {"dst_addr": HOST2}, "forward", {"port": self.p2})
        pkt = tcp(eth_dst=HOST2, ip_dst="192.168.0.1")
        tu.send_packet(self, self.p1, pkt)
        self.verify_packets(pkt, [self.p2])


class PacketOutTest(SmokeTest):
    """PacketOut with egress_port metadata leaves on that port, unchanged."""

    def runTest(self) -> None:
        for i, port in enumerate((self.p1, self.p2, self.p3)):
            pkt = tcp(eth_dst=HOST3, ip_dst=f"10.9.9.{i}", pktlen=80 + i)
            self.send_packet_out(pkt, egress_port=port)
            self.verify_packets(pkt, [port])
        self.verify_no_packet_in(timeout=0.2)


class PacketInTest(SmokeTest):
    """A packet sent to the CPU port reaches the controller as a PacketIn with the
    packet_in header as metadata (ingress_port, reason) and the original frame as
    payload; nothing leaves on the data ports."""

    def runTest(self) -> None:
        self.learn(HOST1)
        self.insert_table_entry("l2_fwd", {"dst_addr": HOST3}, "send_to_cpu",
                                {"reason": REASON_L2_TO_CPU})
        pkt = tcp(eth_dst=HOST3)
        tu.send_packet(self, self.p2, pkt)
        self.verify_packet_in(pkt, {"ingress_port": self.p2, "reason": REASON_L2_TO_CPU})
        # An ACL punt (ternary on ingress port and EtherType) overrides the L2 drop.
        self.insert_table_entry("acl", {"ingress_port": (self.p4, 0x1FF),
                                        "ether_type": (0x88CC, 0xFFFF)}, "punt",
                                priority=10)
        lldp = tu.simple_eth_packet(eth_dst="01:80:c2:00:00:0e", eth_src=HOST1,
                                    eth_type=0x88CC, pktlen=60)
        tu.send_packet(self, self.p4, lldp)
        self.verify_packet_in(lldp, {"ingress_port": self.p4, "reason": REASON_ACL_PUNT})
        tu.send_packet(self, self.p3, lldp)  # other port: not punted, L2 miss drops
        tu.verify_no_other_packets(self, timeout=0.5)
        self.verify_no_packet_in(timeout=0.2)


class DigestTest(SmokeTest):
    """An unknown source MAC produces a learn digest {src_addr, ingress_port}; once
    learnt (smac entry), it does not."""

    def runTest(self) -> None:
        self.enable_digest("learn_digest_t", max_timeout_ns=0, max_list_size=1,
                           ack_timeout_ns=1_000_000_000)
        src = "00:00:00:00:aa:01"
        tu.send_packet(self, self.p3, tcp(eth_dst=HOST2, eth_src=src))
        entries = self.verify_digest("learn_digest_t")
        self.assertEqual(entries, [(0xAA01, self.p3)])
        self.learn(src)
        tu.send_packet(self, self.p3, tcp(eth_dst=HOST2, eth_src=src))
        self.verify_no_digest(timeout=0.5)
        # Another unknown source, another port.
        tu.send_packet(self, self.p1, tcp(eth_dst=HOST2, eth_src="00:00:00:00:aa:02"))
        self.assertEqual(self.verify_digest("learn_digest_t"), [(0xAA02, self.p1)])


class CounterTest(SmokeTest):
    """Indexed counter (per ingress port) and direct counter, read over P4Runtime."""

    def runTest(self) -> None:
        self.learn(HOST1)
        entry = self.insert_table_entry("l2_fwd", {"dst_addr": HOST2}, "forward",
                                        {"port": self.p2})
        before = self.read_counter("rx_port_counter", self.p1)
        other_before = self.read_counter("rx_port_counter", self.p3)
        sizes = (100, 150, 64)
        for size in sizes:
            pkt = tcp(eth_dst=HOST2, pktlen=size)
            tu.send_packet(self, self.p1, pkt)
            self.verify_packets(pkt, [self.p2])
        after = self.read_counter("rx_port_counter", self.p1)
        self.assertEqual((after[0] - before[0], after[1] - before[1]),
                         (len(sizes), sum(sizes)))
        self.assertEqual(self.read_counter("rx_port_counter", self.p3), other_before)
        self.assertEqual(self.read_direct_counter(entry), (len(sizes), sum(sizes)))
        # A wildcard read of the indexed counter returns every cell.
        cells = self.read(self.helper.counter_entry("rx_port_counter"))
        by_index = {c.counter_entry.index.index: c.counter_entry.data for c in cells}
        self.assertEqual(len(by_index), 512)
        self.assertEqual(by_index[self.p1].packet_count, after[0])


class MulticastTest(SmokeTest):
    """mcast_grp replicates to every replica of the group; each copy carries its
    instance (egress_rid), written by egress into the source MAC's low 16 bits."""

    def runTest(self) -> None:
        self.learn("00:11:22:33:44:55")
        self.add_multicast_group(1, [(self.p2, 1), (self.p3, 2), (self.p4, 3)])
        self.insert_table_entry("l2_fwd", {"dst_addr": BROADCAST}, "set_mcast_grp",
                                {"group": 1})
        pkt = tcp(eth_dst=BROADCAST, eth_src="00:11:22:33:44:55")
        tu.send_packet(self, self.p1, pkt)
        expected = [with_src(pkt, f"00:11:22:33:00:0{rid}") for rid in (1, 2, 3)]
        self.verify_each_packet_on_each_port(expected, [self.p2, self.p3, self.p4])
        # MODIFY replaces the replica set.
        self.modify(self.helper.multicast_group_entry(1, [(self.p1, 7), (self.p4, 8)]))
        tu.send_packet(self, self.p2, pkt)
        self.verify_each_packet_on_each_port(
            [with_src(pkt, "00:11:22:33:00:07"), with_src(pkt, "00:11:22:33:00:08")],
            [self.p1, self.p4])


class CloneTest(SmokeTest):
    """An ACL entry clones ingress-to-egress to a clone session: the original is
    forwarded as usual, the clone leaves on the session's port with CLONE_MAC as
    source (egress sees instance_type INGRESS_CLONE)."""

    def runTest(self) -> None:
        self.learn(HOST1)
        self.add_clone_session(5, [self.p4])
        self.insert_table_entry("l2_fwd", {"dst_addr": HOST2}, "forward", {"port": self.p2})
        self.insert_table_entry("acl", {"ingress_port": (self.p1, 0x1FF)},
                                "clone_to_session", {"session": 5}, priority=1)
        pkt = tcp(eth_dst=HOST2)
        tu.send_packet(self, self.p1, pkt)
        self.verify_each_packet_on_each_port([pkt, with_src(pkt, CLONE_MAC)],
                                           [self.p2, self.p4])
        # From another port the ACL does not match: no clone.
        tu.send_packet(self, self.p3, pkt)
        self.verify_packets(pkt, [self.p2])


class DefaultActionTest(SmokeTest):
    """MODIFY of the default entry: l2_fwd misses go to the CPU; reading it back gives
    the new default (tearDown restores drop)."""

    def runTest(self) -> None:
        self.learn(HOST1)
        self.set_default("l2_fwd", "send_to_cpu", {"reason": 9})
        pkt = tcp(eth_dst="00:00:00:00:00:42")
        tu.send_packet(self, self.p2, pkt)
        self.verify_packet_in(pkt, {"ingress_port": self.p2, "reason": 9})
        probe = self.helper.table_entry("l2_fwd", default=True)
        (found,) = self.read(probe)
        action = found.table_entry.action.action
        self.assertEqual(action.action_id, self.helper.get_id("actions", "send_to_cpu"))
        self.assertEqual([int.from_bytes(p.value, "big") for p in action.params], [9])


class TableReadTest(SmokeTest):
    """A wildcard Read returns exactly the entries written (match, action, params,
    priority), whatever byte-string form the target returns."""

    def runTest(self) -> None:
        written = {
            (self.p1, 0x0800, 0xFFFF): ("punt", {}, 20),
            (self.p2, 0x0000, 0x0000): ("clone_to_session", {"session": 3}, 10),
        }
        for (port, etype, mask), (action, params, prio) in written.items():
            match: dict[str, Any] = {"ingress_port": (port, 0x1FF)}
            if mask:  # a don't-care field is omitted (P4Runtime 9.1.1)
                match["ether_type"] = (etype, mask)
            self.insert_table_entry("acl", match, action, params, priority=prio)
        entries = self.read_table_entries("acl")
        seen = {}
        table = self.helper.table("acl")
        fields = {f.id: f for f in table.match_fields}
        for e in entries:
            match = {}
            for m in e.match:
                self.assertEqual(fields[m.field_id].match_type, p4info_pb2.MatchField.TERNARY)
                match[fields[m.field_id].name.split(".")[-1]] = (
                    int.from_bytes(m.ternary.value, "big"), int.from_bytes(m.ternary.mask, "big"))
            key = (match["ingress_port"][0],) + match.get("ether_type", (0, 0))
            action = self.helper.name_of(e.action.action.action_id).split(".")[-1]
            params = {}
            info = self.helper.action(action)
            for p in e.action.action.params:
                name = next(x.name for x in info.params if x.id == p.param_id)
                params[name] = int.from_bytes(p.value, "big")
            seen[key] = (action, params, e.priority)
        self.assertEqual(seen, written)


class WriteErrorsTest(SmokeTest):
    """P4Runtime errors with per-update details: duplicate insert, unknown entry,
    values that do not fit, a missing exact field, a batch with one bad update."""

    def runTest(self) -> None:
        entry = self.insert_table_entry("l2_fwd", {"dst_addr": HOST2}, "forward",
                                        {"port": self.p2})
        self.assertP4RuntimeError(code_pb2.ALREADY_EXISTS, self.insert, entry)
        self.assertP4RuntimeError(
            code_pb2.NOT_FOUND, self.delete,
            self.table_entry("l2_fwd", {"dst_addr": "00:00:00:00:0b:ad"}))
        self.assertP4RuntimeError(
            code_pb2.NOT_FOUND, self.modify,
            self.table_entry("l2_fwd", {"dst_addr": "00:00:00:00:0b:ad"}, "forward",
                             {"port": 1}))
        too_wide = self.table_entry("l2_fwd", {"dst_addr": HOST3}, "forward", {"port": 1})
        too_wide.action.action.params[0].value = b"\x02\x00"  # 512 in a 9-bit param
        self.assertP4RuntimeError(code_pb2.INVALID_ARGUMENT, self.insert, too_wide)
        no_key = self.table_entry("l2_fwd", None, "forward", {"port": 1})
        self.assertP4RuntimeError(code_pb2.INVALID_ARGUMENT, self.insert, no_key)
        # A batch: the good update is applied, the duplicate is reported on its own.
        good = self.table_entry("l2_fwd", {"dst_addr": HOST3}, "forward", {"port": self.p3})
        error = self.assertP4RuntimeError(code_pb2.ALREADY_EXISTS, self.insert, good, entry)
        if error.errors:
            self.assertEqual([e.canonical_code for _, e in error.errors],
                             [code_pb2.OK, code_pb2.ALREADY_EXISTS])
        self.assertEqual(len(self.read_table_entries("l2_fwd")), 2)


class RegisterReadTest(SmokeTest):
    """last_length[ingress_port] holds the last packet's length (P4Runtime register
    reads: BMv2's P4Runtime server does not serve them)."""

    @model_only("P4Runtime register reads are not supported by simple_switch_grpc")
    def runTest(self) -> None:
        self.learn(HOST1)
        tu.send_packet(self, self.p3, tcp(eth_dst=HOST2, pktlen=123))
        tu.verify_no_other_packets(self, timeout=0.5)
        self.assertEqual(self.read_register("last_length", self.p3), 123)
