"""Robustness of the executor against garbage and damaged frames.

``tests/p4/robust_six_headers.p4`` parses Ethernet, VLAN, an MPLS label stack, IPv4
(with varbit options), IPv6, TCP and UDP. We feed it random byte strings and valid
scapy packets that were truncated and had bytes flipped, all from a fixed seed, and
check every result against a reference model written here: scapy dissects the same
frame along the same parse graph, the same table entries are looked up in plain
Python, and the expected output is the valid headers re-serialised by scapy plus the
unparsed rest of the frame, on the port the matching entry chose.

The fuzz test runs 100,000 frames (about 40 s on the development machine, mostly
scapy in the reference model; the executor itself takes about 3 s). Set
``ROBUSTNESS_FRAMES=N`` to run another number, e.g. a few thousand while iterating.
"""

from __future__ import annotations

import ipaddress
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP, IPOption_RR
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Packet, Raw
from scapy.utils import checksum

from behavioral_model.pipeline.v1model import V1ModelDevice
from behavioral_model.program import load_program
from behavioral_model.runtime.matches import Exact, Lpm, Ternary
from behavioral_model.runtime.tables import ActionCall, TableEntry

PROGRAM = Path(__file__).parent / "p4" / "robust_six_headers.p4"
SEED = 0x5EED_2024
N_FRAMES = int(os.environ.get("ROBUSTNESS_FRAMES", "100000"))

ETYPE_IPV4, ETYPE_IPV6, ETYPE_VLAN, ETYPE_MPLS = 0x0800, 0x86DD, 0x8100, 0x8847
MPLS_DEPTH = 3
DROP_PORT = 511

# -- the control plane, shared by the device and the reference model -----------------

FULL_MAC = (1 << 48) - 1
MCAST_BIT = 1 << 40
ROUTER_MACS = [0x0200_0000_AA00 + i for i in range(8)]


@dataclass(frozen=True)
class Rule:
    """One table entry: match values (kind given by the table), action and its args."""

    match: tuple[int, ...]  # exact: (value,); ternary: (value, mask); lpm: (value, len)
    action: str
    args: tuple[int, ...] = ()
    priority: int = 0


def _l2_rules() -> list[Rule]:
    rules = []
    for b in range(256):  # low byte of the destination MAC
        if b % 9 == 0:
            rules.append(Rule((b, 0xFF), "drop", (), 1))
        else:
            rules.append(Rule((b, 0xFF), "l2_forward", ((b * 37) % 511,), 1))
    rules.append(Rule((MCAST_BIT, MCAST_BIT), "drop", (), 5))  # overlaps the byte rules
    for i, mac in enumerate(ROUTER_MACS):
        rules.append(Rule((mac, FULL_MAC), "l2_forward", (500 + i,), 10))
    return rules


def _ip4(a: int, b: int, c: int, d: int) -> int:
    return (a << 24) | (b << 16) | (c << 8) | d


L2_RULES = sorted(_l2_rules(), key=lambda r: -r.priority)
VLAN_RULES = [Rule((vid,), "set_vid", (vid + 1000,)) for vid in range(1, 65)]
MPLS_RULES = [Rule((label,), "mpls_swap", (label + 5000,)) for label in range(16, 80)]
IPV4_RULES = [
    Rule((_ip4(10, 0, 0, 0), 8), "route", (1, 0x0A00_0000_0001)),
    Rule((_ip4(10, 1, 0, 0), 16), "route", (2, 0x0A00_0000_0002)),
    Rule((_ip4(10, 1, 2, 0), 24), "route", (3, 0x0A00_0000_0003)),
    Rule((_ip4(10, 1, 2, 3), 32), "route", (4, 0x0A00_0000_0004)),
    Rule((_ip4(192, 168, 0, 0), 16), "route", (5, 0x0A00_0000_0005)),
]
IPV6_RULES = [
    Rule((0x2001_0DB8 << 96, 32), "route", (6, 0x0A00_0000_0006)),
    Rule((0x2001_0DB8_0001 << 80, 48), "route", (7, 0x0A00_0000_0007)),
    Rule((1 << 127, 1), "route", (8, 0x0A00_0000_0008)),
]

# Source MAC tags the ingress control writes for each parser error.
ERROR_TAGS = {
    "PacketTooShort": 0xEE00_0000_0001,
    "StackOutOfBounds": 0xEE00_0000_0002,
    "IPv4BadVersion": 0xEE00_0000_0003,
    "IPv4BadIhl": 0xEE00_0000_0004,
}
OTHER_ERROR_TAG = 0xEE00_0000_00FF


def _install(device: V1ModelDevice) -> None:
    state = device.state
    tables = [
        ("l2", L2_RULES, lambda m: (Ternary(m[0], m[1]),)),
        ("vlan_map", VLAN_RULES, lambda m: (Exact(m[0]),)),
        ("mpls_lfib", MPLS_RULES, lambda m: (Exact(m[0]),)),
        ("ipv4_lpm", IPV4_RULES, lambda m: (Lpm(m[0], m[1]),)),
        ("ipv6_lpm", IPV6_RULES, lambda m: (Lpm(m[0], m[1]),)),
    ]
    for name, rules, to_matches in tables:
        table = state.table(f"RobustIngress.{name}")
        for r in rules:
            table.insert(TableEntry(to_matches(r.match),
                                    ActionCall(f"RobustIngress.{r.action}", r.args),
                                    r.priority))


@pytest.fixture(scope="module")
def device() -> V1ModelDevice:
    dev = load_program(PROGRAM).new_device()
    _install(dev)
    return dev


# -- the reference model ---------------------------------------------------------------

def _ternary(rules: list[Rule], value: int) -> Rule | None:
    """The highest-priority matching rule (no two matching rules share one here)."""
    return next((r for r in rules if value & r.match[1] == r.match[0]), None)


def _exact(rules: list[Rule], value: int) -> Rule | None:
    return next((r for r in rules if r.match[0] == value), None)


def _lpm(rules: list[Rule], value: int, width: int) -> Rule | None:
    best: Rule | None = None
    for r in rules:
        plen = r.match[1]
        shift = width - plen
        if value >> shift == r.match[0] >> shift and (best is None or plen > best.match[1]):
            best = r
    return best


def _mac_str(mac: int) -> str:
    return ":".join(f"{(mac >> (8 * i)) & 0xFF:02x}" for i in range(5, -1, -1))


def _mac_int(mac: str) -> int:
    return int(mac.replace(":", ""), 16)


class _ParseStop(Exception):
    def __init__(self, error: str) -> None:
        self.error = error


@dataclass
class Parsed:
    """What the program's parser leaves behind: valid headers, error, unparsed rest."""

    eth: Ether | None = None
    vlan: Dot1Q | None = None
    mpls: list[MPLS] = field(default_factory=list)
    ip4: IP | None = None
    ip4_options: bytes | None = None
    ip6: IPv6 | None = None
    tcp: TCP | None = None
    udp: UDP | None = None
    error: str = "NoError"
    rest: bytes = b""

    def headers(self) -> list[Packet | bytes]:
        """Valid headers in deparser order (options as raw bytes)."""
        out: list[Packet | bytes] = []
        for h in (self.eth, self.vlan, *self.mpls, self.ip4, self.ip4_options, self.ip6,
                  self.tcp, self.udp):
            if h is not None:
                out.append(h)
        return out


class _Ether(Ether):
    """Ether without scapy's switch to 802.3 for EtherType values <= 1500: the P4
    parser reads those bytes as an EtherType like any other."""

    @classmethod
    def dispatch_hook(cls, _pkt: bytes | None = None, *args: object,
                      **kargs: object) -> type[Packet]:
        return cls


def _dissect(cls: type[Packet], data: bytes) -> Packet:
    """One header from exactly its bytes (scapy re-serialises it to the same bytes, which
    the unmodified headers in every comparison confirm)."""
    return cls(data)


def reference_parse(frame: bytes) -> Parsed:
    p = Parsed()
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(frame):
            raise _ParseStop("PacketTooShort")
        chunk = frame[pos:pos + n]
        pos += n
        return chunk

    try:
        p.eth = _dissect(_Ether, take(14))
        etype = p.eth.type
        if etype == ETYPE_VLAN:
            p.vlan = _dissect(Dot1Q, take(4))
            etype = p.vlan.type
        if etype == ETYPE_MPLS:
            while True:
                if len(p.mpls) == MPLS_DEPTH:
                    raise _ParseStop("StackOutOfBounds")
                label = _dissect(MPLS, take(4))
                p.mpls.append(label)
                if label.s:
                    break
            if pos >= len(frame):  # lookahead<bit<4>>
                raise _ParseStop("PacketTooShort")
            nibble = frame[pos] >> 4
            etype = {4: ETYPE_IPV4, 6: ETYPE_IPV6}.get(nibble, 0)
        if etype == ETYPE_IPV4:
            p.ip4 = _dissect(IP, take(20))
            if p.ip4.version != 4:
                raise _ParseStop("IPv4BadVersion")
            if p.ip4.ihl < 5:
                raise _ParseStop("IPv4BadIhl")
            if p.ip4.ihl > 5:
                p.ip4_options = take((p.ip4.ihl - 5) * 4)
            if p.ip4.frag == 0 and p.ip4.proto == 6:
                p.tcp = _dissect(TCP, take(20))
            elif p.ip4.frag == 0 and p.ip4.proto == 17:
                p.udp = _dissect(UDP, take(8))
        elif etype == ETYPE_IPV6:
            p.ip6 = _dissect(IPv6, take(40))
            if p.ip6.nh == 6:
                p.tcp = _dissect(TCP, take(20))
            elif p.ip6.nh == 17:
                p.udp = _dissect(UDP, take(8))
    except _ParseStop as stop:
        p.error = stop.error
    p.rest = frame[pos:]
    return p


def _ipv4_checksum(ip4: IP, options: bytes | None) -> int:
    header = bytearray(bytes(ip4))
    header[10:12] = b"\0\0"
    return checksum(bytes(header) + (options or b""))


def reference(frame: bytes) -> list[tuple[int, bytes]]:
    """Expected ``[(port, bytes)]`` for ``frame`` (the ingress port does not matter)."""
    p = reference_parse(frame)
    checksum_error = p.ip4 is not None and _ipv4_checksum(p.ip4, p.ip4_options) != p.ip4.chksum
    # ingress
    if p.eth is None:
        return []
    egress = 0
    rule = _ternary(L2_RULES, _mac_int(p.eth.dst))
    if rule is None or rule.action == "drop":
        egress = DROP_PORT
    else:
        egress = rule.args[0]
    if p.vlan is not None and (rule := _exact(VLAN_RULES, p.vlan.vlan)) is not None:
        p.vlan.vlan = rule.args[0]
    if p.mpls and (rule := _exact(MPLS_RULES, p.mpls[0].label)) is not None:
        p.mpls[0].label = rule.args[0]
        p.mpls[0].ttl = (p.mpls[0].ttl - 1) & 0xFF
    route: Rule | None = None
    if p.ip4 is not None:
        if not checksum_error:
            route = _lpm(IPV4_RULES, int(ipaddress.IPv4Address(p.ip4.dst)), 32)
            if route is not None:
                p.ip4.ttl = (p.ip4.ttl - 1) & 0xFF
    elif p.ip6 is not None:
        route = _lpm(IPV6_RULES, int(ipaddress.IPv6Address(p.ip6.dst)), 128)
        if route is not None:
            p.ip6.hlim = (p.ip6.hlim - 1) & 0xFF
    if route is not None:
        egress = route.args[0]
        p.eth.src = p.eth.dst
        p.eth.dst = _mac_str(route.args[1])
    if p.udp is not None and p.ip4 is not None:
        p.udp.chksum = 0
    if p.error != "NoError":
        p.eth.src = _mac_str(ERROR_TAGS.get(p.error, OTHER_ERROR_TAG))
    # compute checksum + deparser
    if p.ip4 is not None:
        p.ip4.chksum = _ipv4_checksum(p.ip4, p.ip4_options)
    if egress == DROP_PORT:
        return []
    data = b"".join(h if isinstance(h, bytes) else bytes(h) for h in p.headers())
    return [(egress, data + p.rest)]


# -- frames ------------------------------------------------------------------------------

def _template(rng: random.Random) -> bytes:
    """One valid packet of a random shape."""
    kind = rng.random()
    if kind < 0.4:
        dst = rng.choice(ROUTER_MACS)
    elif kind < 0.8:
        dst = rng.getrandbits(48) & ~MCAST_BIT
    else:
        dst = rng.getrandbits(48)
    eth = Ether(dst=_mac_str(dst), src=_mac_str(rng.getrandbits(48) & ~MCAST_BIT))
    l3 = rng.choice(["ipv4", "ipv4", "ipv6", "ipv6", "arp", "none"])
    layers: list[Packet] = []
    l25 = rng.choice(["none", "none", "vlan", "mpls", "vlan+mpls"])
    if "vlan" in l25:
        layers.append(Dot1Q(vlan=rng.choice([rng.randrange(1, 70), rng.randrange(4096)]),
                            prio=rng.randrange(8)))
    if "mpls" in l25 and l3 in ("ipv4", "ipv6"):
        depth = rng.choice([1, 2, 3, 3, 4])
        for i in range(depth):
            label = rng.choice([rng.randrange(16, 90), rng.randrange(1 << 20)])
            layers.append(MPLS(label=label, s=int(i == depth - 1), ttl=rng.randrange(256)))
    if l3 == "ipv4":
        dst4 = rng.choice(["10.1.2.3", "10.1.2.77", "10.1.9.9", "10.200.0.1", "192.168.4.4",
                           "172.16.0.1", f"10.{rng.randrange(256)}.{rng.randrange(256)}.1"])
        options = []
        if rng.random() < 0.3:
            options = [IPOption_NOP()] * rng.randrange(1, 8)
            if rng.random() < 0.5:
                options.append(IPOption_RR(routers=["1.2.3.4"] * rng.randrange(1, 5)))
        layers.append(IP(dst=dst4, src="192.0.2.1", ttl=rng.randrange(256),
                          frag=0 if rng.random() < 0.9 else rng.randrange(1, 100),
                          options=options))
    elif l3 == "ipv6":
        dst6 = rng.choice(["2001:db8::1", "2001:db8:1::5", "2001:db9::1", "fe80::1",
                           "8000::1", "::1"])
        layers.append(IPv6(dst=dst6, src="2001:db8::99", hlim=rng.randrange(256)))
    elif l3 == "arp":
        layers.append(ARP())
    if l3 in ("ipv4", "ipv6"):
        l4 = rng.choice(["tcp", "udp", "other"])
        if l4 == "tcp":
            layers.append(TCP(sport=rng.randrange(65536), dport=80))
        elif l4 == "udp":
            layers.append(UDP(sport=rng.randrange(65536), dport=4791))
        else:
            layers.append(ICMP() if l3 == "ipv4" else Raw(b"\x80\x00\x00\x00"))
    pkt: Packet = eth
    for layer in layers:
        pkt = pkt / layer
    payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))
    return bytes(pkt / Raw(payload)) if payload else bytes(pkt)


def make_frames(n: int, seed: int = SEED) -> list[tuple[bytes, int]]:
    """``n`` (frame, ingress port) pairs: ~30 % random bytes, the rest valid packets,
    truncated at a random point half the time and with 0-3 random bytes replaced."""
    rng = random.Random(seed)
    templates = [_template(rng) for _ in range(400)]
    frames = []
    for _ in range(n):
        port = rng.randrange(511)
        if rng.random() < 0.3:
            frames.append((rng.randbytes(rng.randrange(201)), port))
            continue
        frame = bytearray(rng.choice(templates))
        if rng.random() < 0.5:
            del frame[rng.randrange(len(frame) + 1):]
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            if frame:
                # Mostly inside the headers, where a change alters the parse.
                at = rng.randrange(min(len(frame), 80 if rng.random() < 0.8 else len(frame)))
                frame[at] ^= rng.randrange(1, 256)
        frames.append((bytes(frame), port))
    return frames


# -- tests --------------------------------------------------------------------------------

def test_reference_model_on_known_packets(device: V1ModelDevice) -> None:
    """Hand-checked expectations, so the reference model itself is anchored."""
    pkt = (Ether(dst=_mac_str(ROUTER_MACS[0]), src="02:00:00:00:00:01")
           / IP(src="192.0.2.1", dst="10.1.2.3", ttl=64) / UDP(sport=1, dport=2) / b"hi")
    [(port, data)] = reference(bytes(pkt))
    out = Ether(data)
    assert port == 4
    assert out.dst == "0a:00:00:00:00:04" and out.src == _mac_str(ROUTER_MACS[0])
    assert out[IP].ttl == 63 and out[UDP].chksum == 0 and bytes(out[UDP].payload) == b"hi"
    del out[IP].chksum
    assert Ether(bytes(out))[IP].chksum == Ether(data)[IP].chksum  # scapy agrees
    assert [(o.port, o.data) for o in device.process(bytes(pkt), 3)] == [(port, data)]

    # Truncated in the UDP header: PacketTooShort, IPv4 still routed, UDP bytes payload.
    short = bytes(pkt)[:14 + 20 + 5]
    [(port, data)] = reference(short)
    assert port == 4 and data[6:12] == bytes.fromhex("ee0000000001") and len(data) == len(short)
    assert [(o.port, o.data) for o in device.process(short, 3)] == [(port, data)]

    # Four MPLS labels overflow the three-deep stack; label 20 is swapped to 5020.
    mpls4 = (Ether(dst=_mac_str(ROUTER_MACS[1]), src="02:00:00:00:00:01", type=ETYPE_MPLS)
             / MPLS(label=20, s=0, ttl=9) / MPLS(label=1, s=0) / MPLS(label=2, s=0)
             / MPLS(label=3, s=1) / IP(dst="10.9.9.9"))
    [(port, data)] = reference(bytes(mpls4))
    assert port == 501 and MPLS(data[14:18]).label == 5020 and MPLS(data[14:18]).ttl == 8
    assert data[6:12] == bytes.fromhex("ee0000000002") and data[26:] == bytes(mpls4)[26:]
    assert [(o.port, o.data) for o in device.process(bytes(mpls4), 3)] == [(port, data)]

    assert reference(b"") == [] and reference(b"\x01" * 13) == []


def test_frames_cover_every_path() -> None:
    """The fuzz mix reaches every parser outcome, drops and forwards."""
    frames = make_frames(5000, seed=SEED + 1)
    errors: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    forwarded = 0
    for frame, _ in frames:
        p = reference_parse(frame)
        errors[p.error] += 1
        for name in ("vlan", "ip4", "ip4_options", "ip6", "tcp", "udp"):
            if getattr(p, name) is not None:
                shapes[name] += 1
        shapes[f"mpls{len(p.mpls)}"] += bool(p.mpls)
        forwarded += bool(reference(frame))
    assert set(ERROR_TAGS) | {"NoError"} <= set(errors), errors
    assert all(shapes[s] > 0 for s in ("vlan", "ip4", "ip4_options", "ip6", "tcp", "udp",
                                       "mpls1", "mpls2", "mpls3")), shapes
    assert 0.1 * len(frames) < forwarded < 0.9 * len(frames)


def test_fuzzed_frames_match_reference(device: V1ModelDevice) -> None:
    frames = make_frames(N_FRAMES)
    failures: list[str] = []
    for i, (frame, port) in enumerate(frames):
        try:
            outputs = device.process(frame, port)
        except Exception as err:  # noqa: BLE001 - any escape is the failure we look for
            failures.append(f"#{i} port {port} frame {frame.hex()}: raised {err!r}")
            continue
        got = [(o.port, o.data) for o in outputs]
        for out_port, _ in got:
            assert 0 <= out_port < DROP_PORT, f"#{i}: invalid output port {out_port}"
        expected = reference(frame)
        if got != expected:
            failures.append(f"#{i} port {port} frame {frame.hex()}:\n"
                            f"    got      {[(p, d.hex()) for p, d in got]}\n"
                            f"    expected {[(p, d.hex()) for p, d in expected]}")
    assert not failures, (f"{len(failures)} of {len(frames)} frames wrong; first ones:\n"
                          + "\n".join(failures[:5]))
