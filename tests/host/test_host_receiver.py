"""The receiving side of a QP without a switch: packets placed by RETH in any order,
completion once every PSN from FIRST to LAST arrived, duplicates, bad rkeys and
bounds. The frames come from a real sending endpoint (with the NIC's PSNs, which the
sender mirrors), fed straight to the receiver."""

from __future__ import annotations

import random

from host_harness import FROM_PEER, LOCAL, PEER, QP
from hypothesis import given, settings
from hypothesis import strategies as st

from host.clock import ManualClock
from host.codec import encode_write
from host.completions import Completion
from host.config import TransportConfig
from host.endpoint import Endpoint
from host.memory import MemoryRegion
from host.ports.inprocess import InProcessPort
from protocol.constants import NIC_RX_WINDOW, OPCODE_WRITE_ONLY

BASE = 0x4000_0000
RKEY = 0x1234


def frames_of(*messages: tuple[bytes, int], mtu: int = 64, imm: int | None = None,
              rkeys: tuple[int, ...] = ()) -> list[bytes]:
    """The frames a peer posts for ``messages`` (data, remote address), in PSN order;
    message i uses ``rkeys[i]`` if given, else RKEY."""
    port = InProcessPort()
    peer = Endpoint(port, PEER, config=TransportConfig(mtu=mtu))
    peer.open_qp(QP, LOCAL)
    for index, (data, addr) in enumerate(messages):
        rkey = rkeys[index] if index < len(rkeys) else RKEY
        peer.write(QP, data, addr, rkey=rkey, imm=imm)
    return port.take_sent()


def receiver(size: int = 1 << 16) -> tuple[Endpoint, MemoryRegion]:
    endpoint = Endpoint(InProcessPort(), LOCAL, clock=ManualClock())
    endpoint.open_qp(QP, PEER)
    return endpoint, endpoint.register(MemoryRegion(BASE, size, RKEY))


def test_reassembly_in_reverse_order() -> None:
    endpoint, region = receiver()
    data = random.Random(1).randbytes(1000)
    frames = frames_of((data, BASE + 100))
    for frame in reversed(frames[1:]):
        endpoint.handle_frame(frame)
        assert endpoint.poll_completions() == []
    endpoint.handle_frame(frames[0])
    assert endpoint.poll_completions() == [Completion(QP, 0, BASE + 100, 1000, RKEY, None)]
    assert region.read(BASE + 100, 1000) == data
    stats = endpoint.qp_stats(QP)
    assert (stats.packets_received, stats.bytes_received, stats.messages_received) == (
        len(frames), 1000, 1)


def test_duplicates_never_complete_twice() -> None:
    endpoint, _region = receiver()
    frames = frames_of((bytes(200), BASE))
    endpoint.handle_frame(frames[0])
    endpoint.handle_frame(frames[0])  # before completion
    for frame in frames[1:]:
        endpoint.handle_frame(frame)
    assert len(endpoint.poll_completions()) == 1
    for frame in frames:  # after completion: behind the expected PSN
        endpoint.handle_frame(frame)
    assert endpoint.poll_completions() == []
    assert endpoint.qp_stats(QP).duplicates == 1 + len(frames)


def test_interleaved_messages_complete_independently() -> None:
    endpoint, region = receiver()
    frames = frames_of((b"a" * 150, BASE), (b"b" * 10, BASE + 1000), (b"c" * 130, BASE + 2000))
    first, second, third = frames[:3], frames[3:4], frames[4:]
    for frame in [third[0], first[0], second[0], third[2], first[2], first[1], third[1]]:
        endpoint.handle_frame(frame)
    assert [(c.msg_seq, c.length) for c in endpoint.poll_completions()] == [
        (1, 10), (0, 150), (2, 130)]
    assert region.read(BASE, 150) == b"a" * 150
    assert region.read(BASE + 2000, 130) == b"c" * 130


def test_immediate_data_and_callback() -> None:
    got: list[Completion] = []
    endpoint = Endpoint(InProcessPort(), LOCAL, on_complete=got.append)
    endpoint.open_qp(QP)  # receive only: any peer
    endpoint.register(MemoryRegion(BASE, 4096, RKEY))
    for frame in frames_of((b"xyz" * 50, BASE), imm=0xFEED):
        endpoint.handle_frame(frame)
    assert [(c.imm, c.length, c.ok) for c in got] == [(0xFEED, 150, True)]
    assert endpoint.poll_completions() == []  # a callback replaces the queue


def test_zero_length_write_completes() -> None:
    endpoint, _region = receiver()
    (frame,) = frames_of((b"", BASE))
    endpoint.handle_frame(frame)
    assert [(c.addr, c.length) for c in endpoint.poll_completions()] == [(BASE, 0)]


def test_bad_rkey_and_out_of_bounds_are_counted_not_written() -> None:
    endpoint, region = receiver(size=256)
    frames = frames_of((b"\x01" * 100, BASE), (b"\x02" * 100, BASE + 200),  # > 256
                       rkeys=(0x9999, RKEY))
    for frame in frames:
        endpoint.handle_frame(frame)
    assert region.buffer == bytearray(256)  # nothing written
    stats = endpoint.qp_stats(QP)
    assert (stats.bad_rkey, stats.out_of_bounds, stats.bytes_received) == (2, 2, 0)
    # The PSNs were acknowledged by the NIC and will not come again: the messages
    # complete, flagged.
    completions = endpoint.poll_completions()
    assert [c.ok for c in completions] == [False, False]
    assert "bad rkey" in (completions[0].error or "")


def test_psn_beyond_the_tracked_window_is_dropped() -> None:
    window = NIC_RX_WINDOW  # the smallest rx_track allowed
    endpoint = Endpoint(InProcessPort(), LOCAL, config=TransportConfig(rx_track=window))
    endpoint.open_qp(QP, PEER)
    endpoint.register(MemoryRegion(BASE, 64 * (window + 2), RKEY))
    frames = frames_of((bytes(64 * (window + 1)), BASE))
    endpoint.handle_frame(frames[-1])  # within the tracked window
    assert endpoint.qp_stats(QP).out_of_window == 0
    endpoint.handle_frame(encode_write(FROM_PEER, opcode=OPCODE_WRITE_ONLY, dest_qp=QP,
                                       psn=window, msg_seq=1, virtual_addr=BASE, rkey=RKEY,
                                       payload=b""))
    assert endpoint.qp_stats(QP).out_of_window == 1


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 700), min_size=1, max_size=4), data=st.data())
def test_any_arrival_order_with_duplicates_completes_every_message_intact(
        sizes: list[int], data: st.DataObject) -> None:
    endpoint, region = receiver()
    rng = random.Random(sum(sizes))
    messages = []
    addr = BASE
    for size in sizes:
        messages.append((rng.randbytes(size), addr))
        addr += size + 7
    frames = frames_of(*messages)
    order = data.draw(st.permutations(frames))
    repeats = data.draw(st.lists(st.sampled_from(frames), max_size=10))
    for frame in order + repeats:
        endpoint.handle_frame(frame)
    completions = endpoint.poll_completions()
    assert sorted(c.msg_seq for c in completions) == list(range(len(sizes)))
    for completion in completions:
        payload, where = messages[completion.msg_seq]
        assert (completion.addr, completion.length, completion.ok) == (
            where, len(payload), True)
        assert region.read(where, len(payload)) == payload
    assert endpoint.receiver(QP).partial_messages == 0
