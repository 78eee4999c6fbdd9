"""The endpoint as a whole: bad input is counted and never raised, and two endpoints
joined by fake NICs (tests/host/fake_nic.py) move messages intact through drops, trims
and reordering, with the fake NIC checking that the hosts mirror its PSNs."""

from __future__ import annotations

import random

from fake_nic import DELAY, DELIVER, DROP, TRIM, BackToBack
from host_harness import FROM_PEER, LOCAL, PEER, QP, OneEndpoint
from hypothesis import given, settings
from hypothesis import strategies as st

from host.clock import ManualClock
from host.codec import Route, WritePacket, encode_probe, encode_sack, encode_write
from host.config import TransportConfig
from host.endpoint import Endpoint, ipv6_bytes
from host.memory import MemoryRegion
from host.ports.inprocess import InProcessPort
from protocol.constants import OPCODE_WRITE_ONLY

OTHER = "2001:db8::99"


def data_frame(route: Route = FROM_PEER, qp: int = QP) -> bytes:
    return encode_write(route, opcode=OPCODE_WRITE_ONLY, dest_qp=qp, psn=0, msg_seq=0,
                        virtual_addr=0, rkey=0, payload=b"hi")


def test_bad_frames_are_counted_and_ignored() -> None:
    side = OneEndpoint()
    endpoint = side.endpoint
    endpoint.open_qp(9)  # receives only
    good = data_frame()
    for frame in (b"", b"\x00" * 13, good[:70], bytes(200), good[:-1]):
        endpoint.handle_frame(frame)
    endpoint.handle_frame(data_frame(Route(bytes(6), bytes(6), ipv6_bytes(PEER),
                                           ipv6_bytes(OTHER))))
    endpoint.handle_frame(data_frame(qp=77))
    endpoint.handle_frame(data_frame(Route(bytes(6), bytes(6), ipv6_bytes(OTHER),
                                           ipv6_bytes(LOCAL))))
    endpoint.handle_frame(encode_probe(FROM_PEER, dest_qp=QP, psn=0, probe_id=1))
    endpoint.handle_frame(encode_sack(FROM_PEER, dest_qp=9, psn=0, cumulative_psn=0))
    stats = endpoint.stats
    assert (stats.frames_received, stats.malformed, stats.wrong_address, stats.unknown_qp,
            stats.wrong_peer, stats.unexpected_opcode) == (10, 5, 1, 1, 1, 2)
    assert endpoint.qp_stats(QP).packets_received == 0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 120), st.integers(0, 255))
def test_no_frame_makes_the_endpoint_raise(junk: bytes, at: int, value: int) -> None:
    side = OneEndpoint()
    side.endpoint.write(QP, bytes(3000), 0)
    side.endpoint.handle_frame(junk)
    for frame in (data_frame(), encode_sack(FROM_PEER, dest_qp=QP, psn=0,
                                            cumulative_psn=1, sack_bitmap=0xFF)):
        mutated = bytearray(frame)
        mutated[at % len(mutated)] = value
        side.endpoint.handle_frame(bytes(mutated))


def pair(config: TransportConfig | None = None) -> tuple[Endpoint, Endpoint, ManualClock]:
    clock = ManualClock()
    a = Endpoint(InProcessPort(), LOCAL, clock=clock, config=config)
    b = Endpoint(InProcessPort(), PEER, clock=clock, config=config)
    a.open_qp(QP, PEER)
    b.open_qp(QP, LOCAL)
    return a, b, clock


def test_write_between_two_endpoints() -> None:
    a, b, clock = pair()
    region = b.register(MemoryRegion(0, 1 << 20, rkey=3))
    net = BackToBack(a, b, clock)
    data = random.Random(7).randbytes(200_000)
    handle = a.write(QP, data, 0x100, rkey=3)
    net.run()
    assert handle.ok
    assert region.read(0x100, len(data)) == data
    assert [c.length for c in b.poll_completions()] == [len(data)]
    assert a.qp_stats(QP).retransmits == 0 and net.sides[0].loss_reports == []
    assert clock.now() == 0.0  # no timer was needed


def test_writes_both_ways_on_one_qp() -> None:
    a, b, clock = pair()
    in_a = a.register(MemoryRegion(0, 4096, rkey=1))
    in_b = b.register(MemoryRegion(0, 4096, rkey=2))
    net = BackToBack(a, b, clock)
    to_b = a.write(QP, b"to b" * 500, 0, rkey=2)
    to_a = b.write(QP, b"to a" * 700, 0, rkey=1)
    net.run()
    assert to_b.ok and to_a.ok
    assert in_b.read(0, 2000) == b"to b" * 500 and in_a.read(0, 2800) == b"to a" * 700


def test_lost_tail_is_recovered_by_timeout_and_reported() -> None:
    a, b, clock = pair(TransportConfig(rto=0.01))
    b.register(MemoryRegion(0, 1 << 16, rkey=0))
    lost_once = {3}

    def fate(packet: WritePacket) -> str:
        if packet.psn in lost_once and not packet.retransmit:
            return DROP
        return DELIVER

    net = BackToBack(a, b, clock, fate)
    handle = a.write(QP, bytes(4 * 1024), 0)  # PSN 3 is the last: no later SACKs
    net.run()
    assert handle.ok and clock.now() == 0.01
    assert net.sides[0].loss_reports == [(QP, 3)]


def test_trimmed_packets_are_retransmitted_without_loss_reports() -> None:
    a, b, clock = pair()
    region = b.register(MemoryRegion(0, 1 << 16, rkey=0))
    trimmed: set[int] = set()

    def fate(packet: WritePacket) -> str:
        if packet.psn % 2 == 0 and packet.psn not in trimmed:
            trimmed.add(packet.psn)
            return TRIM
        return DELIVER

    net = BackToBack(a, b, clock, fate)
    handle = a.write(QP, bytes(range(256)) * 40, 0)
    net.run()
    assert handle.ok and region.read(0, 10240) == bytes(range(256)) * 40
    stats = a.qp_stats(QP)
    assert stats.retransmits_trimmed == 5 and stats.loss_reports == 0


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 20_000), min_size=1, max_size=3),
       loss=st.sampled_from([0.0, 0.05, 0.3]), seed=st.integers(0, 2**32 - 1))
def test_messages_arrive_intact_through_drops_trims_and_reordering(
        sizes: list[int], loss: float, seed: int) -> None:
    a, b, clock = pair(TransportConfig(rto=0.001, max_retries=1000))
    region = b.register(MemoryRegion(0, 1 << 16, rkey=0))
    rng = random.Random(seed)

    def fate(_packet: WritePacket) -> str:
        roll = rng.random()
        if roll < loss:
            return DROP
        if roll < 2 * loss:
            return TRIM
        return DELAY if roll < 3 * loss + 0.1 else DELIVER

    net = BackToBack(a, b, clock, fate)
    messages = []
    addr = 0
    for size in sizes:  # disjoint: packets of different messages land in any order
        addr += rng.randrange(1000)
        payload = rng.randbytes(size)
        messages.append((payload, addr, a.write(QP, payload, addr)))
        addr += size
    net.run()
    completions = b.poll_completions()
    assert [c.msg_seq for c in sorted(completions, key=lambda c: c.msg_seq)] == list(
        range(len(sizes)))
    for payload, addr, handle in messages:
        assert handle.ok
        completion = completions[[c.msg_seq for c in completions].index(handle.msg_seq)]
        assert (completion.addr, completion.length) == (addr, len(payload))
        assert region.read(addr, len(payload)) == payload
    a_stats = a.qp_stats(QP)
    assert a_stats.loss_reports == len(net.sides[0].loss_reports)
    assert a_stats.packets_sent == sum(max(1, -(-s // 1024)) for s in sizes)
