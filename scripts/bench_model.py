#!/usr/bin/env python3
"""Benchmarks of the behavioral model: packet rate of the executor, front-end time.

    python scripts/bench_model.py                # full run (about 40 s)
    python scripts/bench_model.py --quick        # short runs, for CI smoke tests
    python scripts/bench_model.py --packets N    # N packets per timed run
    python scripts/bench_model.py --profile      # cProfile top 25 of the packet loops
    python scripts/bench_model.py --opcodes      # (d), (d'), (e) in Python opcodes/packet

Figures, one per line:

(a)  packets/s through ``V1ModelDevice.process`` in-process (no I/O) for
     ``examples/ipv6_router.p4`` with 1,000 LPM routes (distinct /48s), 100 nexthops
     and 100 ternary ACL rules, on a mix of 1,000 distinct packets that is replayed
     (so the tables' lookup caches are warm). Median of 3 timed runs after a warm-up.
(a') the same router where every packet has a distinct destination and source, so
     the per-table lookup caches never hit: every packet goes through the LPM index,
     the nexthop dict and a priority-ordered scan of the ACL (a full scan for the four
     packets in five whose source no rule matches).
(b)  ``p4src/srv6_switch.p4``: whether it compiles, and its front-end time.
(c)  front-end time for a generated ~1,000-line v1model program: preprocess + parse +
     check, and separately compile (pipeline code generation).
(d)  ``p4src/mrc_nic.p4``, transmit path: a host write (1 KiB payload) posted on the
     host port leaves encapsulated on a plane port (PSN, EV rotation over 8 EVs on 2
     planes, carrier). (d') receive path: those packets arriving in order from the fabric
     are delivered to the host, with a SACK every 4 packets (multicast copy). NICs
     programmed as in fabric/back_to_back.py.
     Goal (issue 17): >= 80,000 pps each.
(e)  ``p4src/srv6_switch.p4`` forwarding those data packets as a fabric switch does
     (no local SID, the route of the first uSID, hop limit, trim configuration).

Rates are wall-clock (time.perf_counter); each (a) line also gives the rate per
CPU-second of this process, which other load on a shared machine disturbs less. All
figures are indicative only; the tests never assert on them.

``--opcodes`` prints instead, for (d), (d') and (e), the Python bytecode instructions
and the calls into C functions executed per packet (``sys.settrace`` with opcode
events; about 50 times slower than a plain run). They do not depend on the machine or
its load, so they compare two versions of the code where times cannot; they leave out
what the C functions themselves cost (struct packing, dict lookups).
"""

from __future__ import annotations

import argparse
import cProfile
import ipaddress
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from behavioral_model.frontend.checker import check_program  # noqa: E402
from behavioral_model.frontend.parser import parse_source  # noqa: E402
from behavioral_model.frontend.preprocess import preprocess, preprocess_text  # noqa: E402
from behavioral_model.pipeline import native  # noqa: E402
from behavioral_model.pipeline.compiler import compile_program  # noqa: E402
from behavioral_model.pipeline.v1model import V1ModelDevice  # noqa: E402
from behavioral_model.program import load_program  # noqa: E402
from behavioral_model.runtime.matches import Exact, Lpm, Ternary  # noqa: E402
from behavioral_model.runtime.tables import ActionCall, TableEntry  # noqa: E402
from fabric.back_to_back import BackToBack, NicPairConfig  # noqa: E402
from host.codec import Route, encode_write  # noqa: E402
from protocol.constants import NIC_HOST_PORT, OPCODE_WRITE_ONLY  # noqa: E402

ROUTER_P4 = ROOT / "examples" / "ipv6_router.p4"
SWITCH_P4 = ROOT / "p4src" / "srv6_switch.p4"
SWITCH_INCLUDE = ROOT / "p4src" / "include"
NIC_P4 = ROOT / "p4src" / "mrc_nic.p4"

GOAL_PPS = 100_000
GOAL_NIC_PPS = 80_000  # issue 17: NIC transmit and receive in-process
GOAL_FRONTEND_S = 1.0
RUNS = 3

N_ROUTES = 1000
N_NEXTHOPS = 100
N_ACL = 100
N_TRAFFIC = 1000

ROUTE_BASE = 0x2001_0DB8 << 96        # route i: 2001:db8:i::/48
ACL_BASE = 0x2001_0DB8_FFFF << 80     # ACL rule k: sources 2001:db8:ffff:k::/64
CLIENT_BASE = 0x2001_0DB8_AAAA << 80  # sources no ACL rule matches
MASK_64 = ((1 << 64) - 1) << 64
UDP, TCP = 17, 6

# Offsets in an untagged Ethernet + IPv6 frame.
IPV6_SRC = slice(22, 38)
IPV6_DST = slice(38, 54)
IPV6_NEXT_HDR = 20


# -- (a) the IPv6 router ---------------------------------------------------------------

def route_prefix(i: int) -> int:
    return ROUTE_BASE | (i << 80)


def acl_drops(k: int) -> bool:
    return k % 4 == 0


def setup_router(device: V1ModelDevice) -> None:
    """1,000 /48 routes, 100 nexthops, 100 ternary ACL rules with distinct priorities."""
    state = device.state
    lpm = state.table("RouterIngress.ipv6_lpm")
    for i in range(N_ROUTES):
        lpm.insert(TableEntry((Lpm(route_prefix(i), 48),),
                              ActionCall("RouterIngress.set_nexthop", (i % N_NEXTHOPS,))))
    nexthop = state.table("RouterIngress.nexthop")
    for n in range(N_NEXTHOPS):
        nexthop.insert(TableEntry((Exact(n),), ActionCall(
            "RouterIngress.forward", (1 + n % 64, 0x0200_0000_0000 | n, 0x0200_0000_FF00))))
    acl = state.table("RouterIngress.acl")
    for k in range(N_ACL):
        next_hdr = (Ternary(UDP, 0xFF) if k % 3 == 0 else
                    Ternary(TCP, 0xFF) if k % 3 == 1 else None)
        port = Ternary(k % 8, 0x1FF) if k % 5 == 0 else None
        action = "RouterIngress.drop" if acl_drops(k) else "NoAction"
        acl.insert(TableEntry((Ternary(ACL_BASE | (k << 64), MASK_64), next_hdr, port),
                              ActionCall(action), priority=N_ACL - k + 10))
    # A broad low-priority rule under all of them (overlaps every /64 rule above).
    acl.insert(TableEntry((Ternary(ACL_BASE, ((1 << 48) - 1) << 80), None, None),
                          ActionCall("NoAction"), priority=1))


def frame_template() -> bytes:
    """Ether / IPv6 / UDP / 20-byte payload; addresses are patched per packet."""
    from scapy.layers.inet import UDP as ScapyUDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether

    pkt = (Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
           / IPv6(src="2001:db8:aaaa::1", dst="2001:db8::1", hlim=64)
           / ScapyUDP(sport=4791, dport=4791) / (b"\x00" * 20))
    return bytes(pkt)


def make_frame(template: bytes, src: int, dst: int, next_hdr: int) -> bytes:
    frame = bytearray(template)
    frame[IPV6_SRC] = src.to_bytes(16, "big")
    frame[IPV6_DST] = dst.to_bytes(16, "big")
    frame[IPV6_NEXT_HDR] = next_hdr
    return bytes(frame)


def packet_fields(i: int) -> tuple[int, int, int, int]:
    """(src, dst, next header, ingress port) of packet number ``i``: destination in
    route ``i % 1000`` with host part ``i``; one packet in five has its source inside
    an ACL rule's /64, the others a client source no rule matches."""
    dst = route_prefix(i % N_ROUTES) | (i + 1)
    if i % 5 == 0:
        src = ACL_BASE | (((i // 5) % N_ACL) << 64) | (i + 1)
    else:
        src = CLIENT_BASE | (i + 1)
    next_hdr = UDP if i % 2 == 0 else TCP
    return src, dst, next_hdr, i % 8


def warm_traffic(template: bytes) -> list[tuple[bytes, int]]:
    return [(make_frame(template, src, dst, nh), port)
            for src, dst, nh, port in map(packet_fields, range(N_TRAFFIC))]


class ColdTraffic:
    """Packets that never repeat a destination or a source (numbers keep counting up)."""

    def __init__(self, template: bytes) -> None:
        self.template = template
        self.next = N_TRAFFIC * 1000  # far from the warm mix's numbers

    def take(self, n: int) -> list[tuple[bytes, int]]:
        out = []
        for i in range(self.next, self.next + n):
            src, dst, nh, port = packet_fields(i)
            out.append((make_frame(self.template, src, dst, nh), port))
        self.next += n
        return out


def run_packets(device: V1ModelDevice, packets: Sequence[tuple[bytes, int]]
                ) -> tuple[float, float]:
    """Process ``packets``; (wall-clock seconds, CPU seconds of this process) taken."""
    process = device.process
    cpu0 = time.process_time()
    start = time.perf_counter()
    for data, port in packets:
        process(data, port)
    return time.perf_counter() - start, time.process_time() - cpu0


@dataclass
class Rate:
    pps: float           # median wall-clock rate
    runs: list[float]    # wall-clock rate of each run
    cpu_pps: float       # median rate per CPU-second (less disturbed by other processes)
    packets: int

    @property
    def us_per_packet(self) -> float:
        return 1e6 / self.pps

    def describe(self, goal: int | None = GOAL_PPS) -> str:
        runs = "/".join(f"{r / 1000:.0f}k" for r in self.runs)
        text = (f"{self.pps:,.0f} pps, {self.us_per_packet:.1f} us/packet (median of "
                f"{RUNS} runs x {self.packets:,} packets: {runs}; per CPU-second "
                f"{self.cpu_pps:,.0f} pps)")
        if goal is not None:
            text += f"  goal >= {goal:,} pps: {'met' if self.pps >= goal else 'NOT met'}"
        return text


def measure(device: V1ModelDevice, batch: Callable[[int], Sequence[tuple[bytes, int]]],
            seconds: float, packets: int | None, warmup: int) -> Rate:
    """Median packet rate of ``RUNS`` runs; each run processes ``packets`` packets or,
    by default, enough for about ``seconds`` (sized from the warm-up)."""
    warm = batch(warmup)
    elapsed, _ = run_packets(device, warm)
    if packets is None:
        packets = max(warmup, int(len(warm) / max(elapsed, 1e-9) * seconds * 1.1))
    rates, cpu_rates = [], []
    for _ in range(RUNS):
        todo = batch(packets)
        wall, cpu = run_packets(device, todo)
        rates.append(len(todo) / wall)
        cpu_rates.append(len(todo) / max(cpu, 1e-9))
        del todo
    return Rate(statistics.median(rates), rates, statistics.median(cpu_rates), packets)


def check_router_traffic(device: V1ModelDevice, traffic: Sequence[tuple[bytes, int]]
                         ) -> tuple[int, int]:
    """(forwarded, dropped) for ``traffic``; fails loudly if routing does not work."""
    forwarded = dropped = 0
    for i, (data, port) in enumerate(traffic):
        out = device.process(data, port)
        src, dst, nh, _ = packet_fields(i)
        k = (src >> 64) & 0xFFFF
        expect_drop = ((src >> 80) == (ACL_BASE >> 80) and acl_drops(k)
                       and _acl_applies(k, nh, port))
        if out:
            forwarded += 1
            if expect_drop or len(out) != 1 or out[0].data[21] != 63:
                raise SystemExit(f"router misbehaves on packet {i}: {out}")
        else:
            dropped += 1
            if not expect_drop:
                raise SystemExit(f"router dropped packet {i} ({ipaddress.IPv6Address(dst)})")
    return forwarded, dropped


def _acl_applies(k: int, next_hdr: int, port: int) -> bool:
    if k % 3 == 0 and next_hdr != UDP or k % 3 == 1 and next_hdr != TCP:
        return False
    return not (k % 5 == 0 and port != k % 8)


def bench_router(args: argparse.Namespace) -> None:
    prog = load_program(ROUTER_P4)
    template = frame_template()
    traffic = warm_traffic(template)

    device = prog.new_device()
    setup_router(device)
    forwarded, dropped = check_router_traffic(device, traffic)

    def warm_batch(n: int) -> list[tuple[bytes, int]]:
        reps = -(-n // len(traffic))
        return (traffic * reps)[:n]

    rate = measure(device, warm_batch, args.seconds, args.packets, args.warmup)
    print(f"(a)  IPv6 router, {len(traffic):,} distinct packets replayed "
          f"({forwarded} forwarded, {dropped} ACL-dropped): {rate.describe()}")

    cold_device = prog.new_device()
    setup_router(cold_device)
    cold = ColdTraffic(template)
    cold_rate = measure(cold_device, cold.take, args.seconds, args.packets, args.warmup)
    print(f"(a') IPv6 router, cold cache (every packet a new destination and source): "
          f"{cold_rate.describe()}")

    if args.profile:
        n = args.packets or (5_000 if args.quick else 100_000)
        profile("(a) warm mix", device, warm_batch(n))
        profile("(a') cold cache", cold_device, cold.take(n))


def profile(title: str, device: V1ModelDevice, packets: Sequence[tuple[bytes, int]]) -> None:
    prof = cProfile.Profile()
    process = device.process
    prof.enable()
    for data, port in packets:
        process(data, port)
    prof.disable()
    print(f"\n--- profile of {title}: {len(packets):,} packets, top 25 by own time ---")
    stats = pstats.Stats(prof, stream=sys.stdout)
    stats.sort_stats(pstats.SortKey.TIME).print_stats(25)


# -- (b) the project's switch ----------------------------------------------------------

def bench_switch() -> None:
    rel = SWITCH_P4.relative_to(ROOT)
    if not SWITCH_P4.exists():
        print(f"(b)  {rel}: not present yet")
        return
    try:
        t0 = time.perf_counter()
        checked = check_program(parse_source(preprocess(SWITCH_P4, [SWITCH_INCLUDE])))
        t1 = time.perf_counter()
        compile_program(checked)
        t2 = time.perf_counter()
    except Exception as err:  # noqa: BLE001 - report and go on with the other figures
        print(f"(b)  {rel}: does NOT compile: {err}")
        return
    print(f"(b)  {rel}: compiled; front-end (preprocess+parse+check) {1e3 * (t1 - t0):.0f} ms,"
          f" compile {1e3 * (t2 - t1):.0f} ms")


# -- (c) a generated 1,000-line program ------------------------------------------------

FIELD_SHAPES = [
    [("kind", 8), ("next_type", 8), ("length", 16), ("value", 32)],
    [("flags", 4), ("version", 4), ("next_type", 8), ("tag", 16), ("addr", 48), ("seq", 24),
     ("pad", 8)],
    [("next_type", 8), ("hop", 8), ("id", 16), ("src", 32), ("dst", 32)],
    [("a", 3), ("b", 5), ("next_type", 8), ("c", 16), ("d", 64), ("e", 32)],
]


def generate_program(n_headers: int) -> str:
    """A v1model program with ``n_headers`` header types, one parser state each,
    per-header actions and tables (exact, LPM and ternary keys), counters and
    registers, checksums and a deparser: roughly 21 lines per header."""
    w: list[str] = ["#include <core.p4>", "#include <v1model.p4>", ""]
    for i in range(n_headers):
        w.append(f"const bit<8> TYPE_H{i} = {i + 1};")
    w += ["", "header base_t {", "    bit<48> dst;", "    bit<48> src;",
          "    bit<8>  next_type;", "    bit<8>  ttl;", "}", ""]
    shapes = []
    for i in range(n_headers):
        shape = FIELD_SHAPES[i % len(FIELD_SHAPES)]
        shapes.append(shape)
        w.append(f"header h{i}_t {{")
        w += [f"    bit<{width}> {name};" for name, width in shape]
        w += ["}", ""]
    w += ["struct headers_t {", "    base_t base;"]
    w += [f"    h{i}_t h{i};" for i in range(n_headers)]
    w += ["}", "", "struct metadata_t {", "    bit<16> class_id;", "    bit<32> hash;",
          "    bit<9>  port;", "    bit<1>  punt;", "}", ""]

    # parser: base, then a chain of optional headers selected by next_type
    w += ["parser GenParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,",
          "                 inout standard_metadata_t std) {",
          "    state start {", "        pkt.extract(hdr.base);",
          "        transition select(hdr.base.next_type) {"]
    w += [f"            TYPE_H{i}: parse_h{i};" for i in range(min(n_headers, 8))]
    w += ["            default: accept;", "        }", "    }"]
    for i in range(n_headers):
        w += [f"    state parse_h{i} {{", f"        pkt.extract(hdr.h{i});",
              f"        transition select(hdr.h{i}.next_type) {{"]
        w += [f"            TYPE_H{j}: parse_h{j};" for j in range(i + 1, min(i + 4, n_headers))]
        w += ["            default: accept;", "        }", "    }"]
    w += ["}", "", "control GenVerify(inout headers_t hdr, inout metadata_t meta) {",
          "    apply {",
          "        verify_checksum(hdr.h0.isValid(), { hdr.h0.kind, hdr.h0.next_type,",
          "            hdr.h0.value }, hdr.h0.length, HashAlgorithm.csum16);", "    }",
          "}", ""]

    # ingress: an action and a table per header, applied when the header is valid
    w += ["control GenIngress(inout headers_t hdr, inout metadata_t meta,",
          "                   inout standard_metadata_t std) {",
          f"    counter({n_headers}, CounterType.packets_and_bytes) hits;",
          f"    register<bit<32>>({n_headers}) last_seen;",
          "    action drop() {", "        mark_to_drop(std);", "    }",
          "    action forward(bit<9> port) {", "        std.egress_spec = port;",
          "        hdr.base.ttl = hdr.base.ttl - 1;", "    }"]
    for i, shape in enumerate(shapes):
        f_last, w_last = shape[-1]
        w += [f"    action set_h{i}(bit<{w_last}> v, bit<16> class_id) {{",
              f"        hdr.h{i}.{f_last} = v;", "        meta.class_id = class_id;",
              f"        hits.count({i});",
              f"        last_seen.write({i}, (bit<32>)std.ingress_port);", "    }"]
    kinds = ["exact", "lpm", "ternary"]
    for i, shape in enumerate(shapes):
        key_field = max(shape, key=lambda fw: fw[1])[0]
        w += [f"    table t_h{i} {{", "        key = {",
              f"            hdr.h{i}.{key_field}: {kinds[i % 3]};"]
        if i % 3 == 2:
            w.append("            std.ingress_port: ternary;")
        w += ["        }", f"        actions = {{ set_h{i}; forward; drop; NoAction; }}",
              "        default_action = NoAction();", f"        size = {256 << (i % 4)};",
              "    }"]
    w += ["    table classify {", "        key = { meta.class_id: exact; }",
          "        actions = { forward; drop; }", "        default_action = drop();",
          "    }", "    apply {", "        if (!hdr.base.isValid() || hdr.base.ttl == 0) {",
          "            drop();", "            return;", "        }"]
    for i in range(n_headers):
        w += [f"        if (hdr.h{i}.isValid()) {{", f"            t_h{i}.apply();",
              "        }"]
    w += ["        hash(meta.hash, HashAlgorithm.crc32, (bit<32>)0,",
          "             { hdr.base.src, hdr.base.dst }, (bit<32>)65536);",
          "        switch (classify.apply().action_run) {",
          "            forward: { meta.punt = 0; }", "            default: { meta.punt = 1; }",
          "        }", "    }", "}", "",
          "control GenEgress(inout headers_t hdr, inout metadata_t meta,",
          "                  inout standard_metadata_t std) {", "    apply {",
          "        if (std.egress_port == 0) {", "            hdr.base.ttl = 0;", "        }",
          "    }", "}", "",
          "control GenCompute(inout headers_t hdr, inout metadata_t meta) {", "    apply {",
          "        update_checksum(hdr.h0.isValid(), { hdr.h0.kind, hdr.h0.next_type,",
          "            hdr.h0.value }, hdr.h0.length, HashAlgorithm.csum16);", "    }",
          "}", "", "control GenDeparser(packet_out pkt, in headers_t hdr) {", "    apply {",
          "        pkt.emit(hdr.base);"]
    w += [f"        pkt.emit(hdr.h{i});" for i in range(n_headers)]
    w += ["    }", "}", "",
          "V1Switch(GenParser(), GenVerify(), GenIngress(), GenEgress(), GenCompute(),",
          "         GenDeparser()) main;"]
    return "\n".join(w) + "\n"


def program_of_lines(lines: int) -> str:
    n = 4
    while True:
        text = generate_program(n)
        if text.count("\n") >= lines:
            return text
        n += 1


def bench_generated(args: argparse.Namespace) -> None:
    text = program_of_lines(1000)
    n_lines = text.count("\n")
    runs = 1 if args.quick else RUNS
    front, comp, pre = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        src = preprocess_text(text, "<generated>")
        t1 = time.perf_counter()
        checked = check_program(parse_source(src))
        t2 = time.perf_counter()
        compile_program(checked)
        t3 = time.perf_counter()
        pre.append(t1 - t0)
        front.append(t2 - t0)
        comp.append(t3 - t2)
    fe, cc = statistics.median(front), statistics.median(comp)
    print(f"(c)  generated {n_lines:,}-line program: front-end (preprocess+parse+check) "
          f"{1e3 * fe:.0f} ms (preprocess {1e3 * statistics.median(pre):.0f} ms)"
          f"  goal < {GOAL_FRONTEND_S:g} s: {'met' if fe < GOAL_FRONTEND_S else 'NOT met'}")
    print(f"(c)  generated {n_lines:,}-line program: compile (pipeline codegen) "
          f"{1e3 * cc:.0f} ms; front-end + compile {1e3 * (fe + cc):.0f} ms"
          f"  goal < {GOAL_FRONTEND_S:g} s: "
          f"{'met' if fe + cc < GOAL_FRONTEND_S else 'NOT met'}")
    if args.dump_generated:
        Path(args.dump_generated).write_text(text)


def nic_rates(args: argparse.Namespace) -> tuple[Rate, Rate]:
    """(transmit, receive) rates of ``p4src/mrc_nic.p4``, as (d) and (d') describe."""
    pair = BackToBack(load_program(NIC_P4))
    post = _host_write(pair)

    def host_posts(n: int) -> list[tuple[bytes, int]]:
        return [(post, NIC_HOST_PORT)] * n

    tx = measure(pair.a.device, host_posts, args.seconds, args.packets, args.warmup)
    rx = measure(pair.b.device, lambda n: _fabric_frames(pair, post, n), args.seconds,
                 args.packets, args.warmup)
    if args.profile:
        n = args.packets or (5_000 if args.quick else 50_000)
        profile("(d) NIC transmit", pair.a.device, host_posts(n))
        profile("(d') NIC receive", pair.b.device, _fabric_frames(pair, post, n))
    return tx, rx


def _host_write(pair: BackToBack) -> bytes:
    """A host write (1 KiB payload) as side a's host posts it to its NIC."""
    config = pair.config
    route = Route(bytes(6), bytes(6), ipaddress.IPv6Address(config.address_a).packed,
                  ipaddress.IPv6Address(config.address_b).packed)
    return encode_write(route, opcode=OPCODE_WRITE_ONLY, dest_qp=config.qpn_a, psn=0,
                        msg_seq=0, virtual_addr=0x1000, rkey=1, payload=bytes(1024))


def _fabric_frames(pair: BackToBack, post: bytes, n: int) -> list[tuple[bytes, int]]:
    """``n`` data packets as NIC a sends them onto the fabric (consecutive PSNs, sprayed
    over its EVs): made outside the timed loops."""
    out = []
    for _ in range(n):
        (sent,) = pair.a.device.process(post, NIC_HOST_PORT)
        out.append((sent.data, sent.port))
    return out


def bench_nic(args: argparse.Namespace) -> None:
    tx, rx = nic_rates(args)
    print(f"(d)  mrc_nic.p4 transmit (host write -> encapsulated, 8 EVs on 2 planes): "
          f"{tx.describe(goal=GOAL_NIC_PPS)}")
    print(f"(d') mrc_nic.p4 receive (in-order data -> host, SACK every "
          f"{NicPairConfig().sack_every}): {rx.describe(goal=GOAL_NIC_PPS)}")


# -- (e) the switch forwarding the NIC's packets -----------------------------------------

SWITCH_OUT_PORT = 3


def switch_rate(args: argparse.Namespace) -> Rate:
    """Packets/s of ``p4src/srv6_switch.p4`` forwarding the NIC's data packets as a
    fabric switch does: no local SID, the uSID route of the destination's first uSID
    (one entry per EV's path), hop limit, trim configuration of the out port."""
    pair = BackToBack(load_program(NIC_P4))
    device, sample = _forwarding_switch(pair, _host_write(pair))
    rate = measure(device, lambda n: [sample[i % len(sample)] for i in range(n)],
                   args.seconds, args.packets, args.warmup)
    if args.profile:
        profile("(e) switch forwarding", device,
                [sample[i % len(sample)] for i in range(args.packets or 5_000)])
    return rate


def _forwarding_switch(pair: BackToBack, post: bytes
                       ) -> tuple[V1ModelDevice, list[tuple[bytes, int]]]:
    """The switch of (e), programmed, and 64 of the NIC's data packets it forwards."""
    sample = _fabric_frames(pair, post, 64)
    device = load_program(SWITCH_P4).new_device()
    state = device.state
    routes = state.table("SwitchIngress.usid_route")
    for prefix in {int.from_bytes(data[IPV6_DST.start:IPV6_DST.start + 6], "big")
                   for data, _ in sample}:
        routes.insert(TableEntry((Exact(prefix),), ActionCall(
            "SwitchIngress.set_next_hop", (SWITCH_OUT_PORT, 0x0200_0000_0003))))
    state.table("SwitchIngress.trim_config").insert(TableEntry(
        (Exact(SWITCH_OUT_PORT),), ActionCall("SwitchIngress.set_trim_threshold", (32, 0))))
    for data, port in sample:
        out = device.process(data, port)
        if len(out) != 1 or out[0].port != SWITCH_OUT_PORT:
            raise SystemExit(f"the switch does not forward the NIC's packet: {out}")
    return device, sample


# -- --opcodes: work per packet that does not depend on the machine ----------------------

OPCODE_PACKETS = 300


def opcode_counts(args: argparse.Namespace) -> None:
    """(d), (d') and (e) in Python opcodes and C calls per packet (see the docstring)."""
    pair = BackToBack(load_program(NIC_P4))
    post = _host_write(pair)
    for _ in range(OPCODE_PACKETS):  # past the first packets' table-cache misses
        pair.a.device.process(post, NIC_HOST_PORT)
    frames = _fabric_frames(pair, post, OPCODE_PACKETS)
    switch, sample = _forwarding_switch(pair, post)
    runs = (("(d)  mrc_nic.p4 transmit", pair.a.device, [(post, NIC_HOST_PORT)] * len(frames)),
            ("(d') mrc_nic.p4 receive", pair.b.device, frames),
            ("(e)  srv6_switch.p4 forwarding", switch,
             [sample[i % len(sample)] for i in range(OPCODE_PACKETS)]))
    for title, device, packets in runs:
        opcodes, c_calls = _count_opcodes(device, packets)
        print(f"{title}: {opcodes / len(packets):,.0f} Python opcodes and "
              f"{c_calls / len(packets):.1f} C calls per packet ({len(packets)} packets)")


def _count_opcodes(device: V1ModelDevice, packets: Sequence[tuple[bytes, int]]
                   ) -> tuple[int, int]:
    counts = [0, 0]

    def trace(frame: Any, event: str, _arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            counts[0] += 1
        return trace

    def c_calls(_frame: Any, event: str, _arg: Any) -> None:
        if event == "c_call":
            counts[1] += 1

    process = device.process
    sys.setprofile(c_calls)
    sys.settrace(trace)
    try:
        for data, port in packets:
            process(data, port)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return counts[0], counts[1]


def bench_switch_forwarding(args: argparse.Namespace) -> None:
    print(f"(e)  srv6_switch.p4 forwarding the NIC's data packets (uSID route, trim "
          f"config): {switch_rate(args).describe(goal=None)}")


# -- main --------------------------------------------------------------------------------

def interpreter() -> str:
    """The interpreter running this, for a benchmark's first line: its build moves every
    figure (docs/simulator-performance.md, "Measuring"), so figures compare only
    between runs of one interpreter."""
    return f"Python {sys.version.split()[0]} ({os.path.realpath(sys.executable)})"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packets", type=int, default=None,
                    help="packets per timed run (default: enough for --seconds)")
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="length of each timed run when --packets is not given (default 5)")
    ap.add_argument("--quick", action="store_true",
                    help="short runs (CI smoke test): 2,000 packets per run, one (c) run")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile the packet loops and print the top 25 functions")
    ap.add_argument("--opcodes", action="store_true",
                    help="instead of timing: Python opcodes and C calls per packet of "
                         "(d), (d') and (e), which do not depend on the machine's load")
    ap.add_argument("--dump-generated", metavar="FILE",
                    help="write the generated program of (c) to FILE")
    args = ap.parse_args(argv)
    args.warmup = 2000
    if args.quick:
        args.warmup = 500
        args.packets = args.packets or 2000
    if args.packets is not None and args.packets < 1:
        ap.error("--packets must be positive")
    print(f"bench_model: {interpreter()}, {native.describe()}, "
          f"{'opcode count' if args.opcodes else 'quick' if args.quick else 'full'} run")
    if args.opcodes:
        opcode_counts(args)
        return 0
    bench_router(args)
    bench_switch()
    bench_generated(args)
    bench_nic(args)
    bench_switch_forwarding(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
