"""The nanomsg packet-in port (BMv2 ``--packet-in``): BMv2's framing, port messages,
INFO_REQ, and PTF's own ``nn`` client against a running SwitchCore with the IPv6
router. No root needed."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pynng
import pytest

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.ports.nn import (
    HEADER,
    MSG_INFO_REP,
    MSG_INFO_REQ,
    MSG_PACKET_IN,
    MSG_PACKET_OUT,
    MSG_PORT_ADD,
    MSG_PORT_REMOVE,
    MSG_PORT_SET_STATUS,
    NanomsgPorts,
    pack_message,
    unpack_message,
)
from behavioral_model.ports.sp import SPPairListener, parse_address
from behavioral_model.program import load_program
from behavioral_model.runtime.matches import Exact, Lpm
from behavioral_model.runtime.tables import ActionCall, TableEntry
from behavioral_model.switch import SwitchCore

ROUTER = Path(__file__).resolve().parents[1] / "examples" / "ipv6_router.p4"
DMAC, SMAC = 0x0A0000000002, 0x0A0000000001


def ipv6_frame(dst: str = "2001:db8::1", hop_limit: int = 64, payload: bytes = b"hi") -> bytes:
    import ipaddress

    eth = bytes.fromhex("000000000002" "000000000001") + b"\x86\xdd"
    ip6 = struct.pack("!IHBB", 6 << 28, len(payload), 17, hop_limit)
    ip6 += ipaddress.IPv6Address("2001:db8::99").packed + ipaddress.IPv6Address(dst).packed
    return eth + ip6 + payload


def routed(frame: bytes) -> bytes:
    """What the router makes of ``frame`` with the entries below."""
    out = bytearray(frame)
    out[0:6] = DMAC.to_bytes(6, "big")
    out[6:12] = SMAC.to_bytes(6, "big")
    out[21] -= 1  # hop limit
    return bytes(out)


@pytest.fixture(scope="module")
def router():
    program = load_program(ROUTER)
    return program, generate_p4info(program.checked)


def program_router(core: SwitchCore) -> None:
    state = core.state
    assert state is not None
    with core.lock:
        state.table("ipv6_lpm").insert(TableEntry(
            (Lpm(0x20010DB8 << 96, 32),), ActionCall("RouterIngress.set_nexthop", (7,))))
        state.table("nexthop").insert(TableEntry(
            (Exact(7),), ActionCall("RouterIngress.forward", (2, DMAC, SMAC))))


class Peer:
    """The PTF side of the socket, written from BMv2's framing."""

    def __init__(self, addr: str) -> None:
        self.sock = pynng.Pair0(recv_timeout=3000, send_timeout=3000)
        self.sock.dial(addr, block=True)

    def send(self, msg_type: int, port: int, more: int, body: bytes = b"") -> None:
        self.sock.send(pack_message(msg_type, port, more, body))

    def packet(self, port: int, frame: bytes) -> None:
        self.send(MSG_PACKET_IN, port, len(frame), frame)

    def recv(self) -> tuple[int, int, int, bytes]:
        return unpack_message(self.sock.recv())

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def switch(tmp_path: Path, router) -> Iterator[tuple[SwitchCore, NanomsgPorts, str]]:
    addr = f"ipc://{tmp_path}/bm.ipc"
    events: list[tuple[int, str]] = []
    core = SwitchCore(0)
    core.set_pipeline(*router, 1)
    program_router(core)
    ports = NanomsgPorts(addr, on_port_event=lambda p, e: events.append((p, e)))
    ports.events = events  # type: ignore[attr-defined]
    core.add_port_backend(ports)
    core.start()
    yield core, ports, addr
    core.stop()


def wait_for(predicate, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def test_header_is_three_little_endian_ints() -> None:
    assert HEADER.size == 12
    msg = pack_message(MSG_PACKET_IN, 5, 3, b"abc")
    assert msg == bytes([3, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0]) + b"abc"
    assert unpack_message(msg) == (3, 5, 3, b"abc")
    with pytest.raises(ValueError):
        unpack_message(b"\x00" * 11)


def test_bad_address_is_refused() -> None:
    with pytest.raises(ValueError):
        NanomsgPorts("/tmp/not-a-url")


def test_frame_in_routed_frame_out(switch) -> None:
    core, ports, addr = switch
    peer = Peer(addr)
    try:
        frame = ipv6_frame()
        peer.packet(1, frame)
        msg_type, port, more, body = peer.recv()
        assert (msg_type, port, more) == (MSG_PACKET_OUT, 2, len(body))
        assert body == routed(frame)
        # a burst keeps its order
        frames = [ipv6_frame(payload=bytes([i]) * 10) for i in range(50)]
        for f in frames:
            peer.packet(1, f)
        got = [peer.recv()[3] for _ in frames]
        assert got == [routed(f) for f in frames]
        # dropped by the program (no route): nothing comes back
        peer.packet(1, ipv6_frame(dst="2001:db9::1"))
        peer.packet(1, frame)
        assert peer.recv()[3] == routed(frame)
    finally:
        peer.close()
    assert core.dataplane.stats.ingress_drops == 1


def test_port_messages_update_the_port_table(switch) -> None:
    core, ports, addr = switch
    peer = Peer(addr)
    try:
        peer.send(MSG_PORT_ADD, 1, 0)
        peer.send(MSG_PORT_ADD, 2, 0)
        assert wait_for(lambda: set(ports.port_info()) == {1, 2})
        peer.send(MSG_PORT_SET_STATUS, 2, 0)  # BMv2: 0 = down
        assert wait_for(lambda: not ports.port_info()[2].up)
        peer.send(MSG_PORT_SET_STATUS, 2, 1)  # 1 = up
        assert wait_for(lambda: ports.port_info()[2].up)
        peer.send(MSG_PORT_SET_STATUS, 2, 7)  # unknown status: ignored
        peer.send(MSG_PORT_REMOVE, 1, 0)
        assert wait_for(lambda: set(ports.port_info()) == {2})
        assert set(core.port_info()) == {2}
        assert ports.events == [(1, "added"), (1, "up"), (2, "added"), (2, "up"),  # type: ignore[attr-defined]
                                (2, "down"), (2, "up"), (1, "removed")]
        # ports not enforced (BMv2's default): frames on any port are accepted
        frame = ipv6_frame()
        peer.packet(9, frame)
        assert peer.recv()[1:3] == (2, len(frame))
    finally:
        peer.close()


def test_info_request_answered_not_supported(switch) -> None:
    _, _, addr = switch
    peer = Peer(addr)
    try:
        peer.send(MSG_INFO_REQ, 3, 1)
        msg_type, port, more, body = peer.recv()
        assert (msg_type, port, more) == (MSG_INFO_REP, 3, 1)
        assert struct.unpack("<i", body) == (1,)  # MSG_INFO_STATUS_NOT_SUPPORTED
    finally:
        peer.close()


def test_garbage_does_not_stop_the_port(switch) -> None:
    _, ports, addr = switch
    peer = Peer(addr)
    try:
        peer.sock.send(b"\x01\x02")  # shorter than a header
        peer.send(42, 1, 0)  # unknown type
        peer.send(MSG_PACKET_OUT, 1, 0)  # wrong direction
        frame = ipv6_frame()
        peer.packet(1, frame)
        assert peer.recv()[3] == routed(frame)
        assert ports.rx_messages == 4
    finally:
        peer.close()


def test_enforced_ports(tmp_path: Path, router) -> None:
    addr = f"ipc://{tmp_path}/enforced.ipc"
    core = SwitchCore(0)
    core.set_pipeline(*router, 1)
    program_router(core)
    ports = NanomsgPorts(addr, enforce_ports=True)
    core.add_port_backend(ports)
    core.start()
    peer = Peer(addr)
    try:
        frame = ipv6_frame()
        peer.packet(1, frame)  # port 1 not added: ignored
        peer.send(MSG_PORT_ADD, 1, 0)
        peer.packet(1, frame)
        assert peer.recv()[3] == routed(frame)
        peer.send(MSG_PORT_SET_STATUS, 1, 0)
        peer.packet(1, frame)  # down: ignored
        peer.send(MSG_PORT_SET_STATUS, 1, 1)
        peer.packet(1, ipv6_frame(payload=b"second"))
        assert peer.recv()[3] == routed(ipv6_frame(payload=b"second"))
        assert core.dataplane.stats.received == 2
    finally:
        peer.close()
        core.stop()


def test_no_peer_frames_are_dropped_not_blocking(switch) -> None:
    core, ports, _ = switch
    core.receive(1, ipv6_frame())
    assert wait_for(lambda: ports.tx_dropped == 1)


def test_ptf_nn_client_works_unchanged(switch) -> None:
    """PTF's own nanomsg client (ptf/dataplane.py) talks to the switch."""
    dataplane = pytest.importorskip("ptf.dataplane")
    _, ports, addr = switch
    client = dataplane.DataPlanePacketSourceNN(0, addr, 3000, 3000)
    try:
        client.port_add(1)
        client.port_add(2)
        assert wait_for(lambda: set(ports.port_info()) == {1, 2})
        frame = ipv6_frame(payload=b"from ptf")
        assert client.send(1, frame) == len(frame)
        device, port, data, _ = client.recv()
        assert (device, port, data) == (0, 2, routed(frame))
        # BMv2 answers INFO_REQ with NOT_SUPPORTED: PTF gets None at once (its
        # receive loop, run here by hand, handles the INFO_REP)
        receiver = threading.Thread(target=client.recv)
        receiver.start()
        assert client.get_mac(1, timeout=30) is None
        receiver.join(30)
        # Set only by the INFO_REP: the answer came, not get_mac's timeout.
        assert client.mac_addresses == {1: None}
        client.port_remove(1)
        assert wait_for(lambda: set(ports.port_info()) == {2})
    finally:
        client.close()


# -- the SP transport (nanomsg/NNG wire protocol on plain sockets) ----------------------
def free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def started(router, addr: str, **kwargs) -> tuple[SwitchCore, NanomsgPorts]:
    core = SwitchCore(0)
    core.set_pipeline(*router, 1)
    program_router(core)
    ports = NanomsgPorts(addr, **kwargs)
    core.add_port_backend(ports)
    core.start()
    return core, ports


class RawPeer:
    """A PAIR v0 peer written from the SP wire protocol, on a Unix socket."""

    def __init__(self, path: str, protocol: int = 0x10) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(3)
        self.sock.connect(path)
        self.sock.sendall(b"\x00SP\x00" + protocol.to_bytes(2, "big") + b"\x00\x00")

    def handshake(self) -> bytes:
        return self.recv_exact(8)

    @staticmethod
    def frame(msg: bytes) -> bytes:
        return b"\x01" + len(msg).to_bytes(8, "big") + msg

    def recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def recv_msg(self) -> bytes:
        head = self.recv_exact(9)
        assert head[0] == 1
        return self.recv_exact(int.from_bytes(head[1:], "big"))

    def close(self) -> None:
        self.sock.close()


def test_addresses() -> None:
    assert parse_address("ipc:///tmp/x.ipc") == ("ipc", "/tmp/x.ipc")
    assert parse_address("tcp://127.0.0.1:9090") == ("tcp", ("127.0.0.1", 9090))
    assert parse_address("tcp://*:9090") == ("tcp", (None, 9090))
    assert parse_address("tcp://[::1]:9090") == ("tcp", ("::1", 9090))
    for bad in ("tcp://host", "tcp://host:http", "ipc://", "udp://x:1"):
        with pytest.raises(ValueError):
            parse_address(bad)
    with pytest.raises(ValueError):
        NanomsgPorts("inproc://x", transport="sp")
    with pytest.raises(ValueError):
        NanomsgPorts("ipc:///tmp/x.ipc", transport="zmq")


@pytest.mark.parametrize("scheme", ["tcp", "inproc", "ipc-nng"])
def test_other_transports(tmp_path: Path, router, scheme: str) -> None:
    """tcp:// (SP framing without the type byte), inproc:// (pynng) and the pynng
    transport chosen for ipc://: frames in, routed frames out, in order."""
    if scheme == "tcp":
        addr, kwargs = f"tcp://127.0.0.1:{free_tcp_port()}", {}
    elif scheme == "inproc":
        addr, kwargs = f"inproc://bm-test-{id(tmp_path)}", {}
    else:
        addr, kwargs = f"ipc://{tmp_path}/nng.ipc", {"transport": "nng"}
    core, ports = started(router, addr, **kwargs)
    assert ports.transport == ("sp" if scheme == "tcp" else "nng")
    peer = Peer(addr)
    try:
        frames = [ipv6_frame(payload=bytes([i]) * 30) for i in range(20)]
        for f in frames:
            peer.packet(1, f)
        assert [peer.recv()[3] for _ in frames] == [routed(f) for f in frames]
        assert wait_for(lambda: ports.connected)
        peer.send(MSG_INFO_REQ, 3, 1)
        assert peer.recv()[:3] == (MSG_INFO_REP, 3, 1)
    finally:
        peer.close()
        core.stop()


def test_one_peer_at_a_time(switch) -> None:
    """As NNG's pair0: a second peer is turned away while the first is connected
    (its dialer keeps retrying) and gets through once the first has gone."""
    _, ports, addr = switch
    first = Peer(addr)
    second = pynng.Pair0(recv_timeout=3000, send_timeout=3000, reconnect_time_min=20,
                         reconnect_time_max=50)
    try:
        frame = ipv6_frame()
        first.packet(1, frame)
        assert first.recv()[3] == routed(frame)
        second.dial(addr, block=False)
        time.sleep(0.2)
        first.packet(1, frame)  # still the peer
        assert first.recv()[3] == routed(frame)
        first.close()
        time.sleep(0.3)  # the second dialer's next attempt is accepted
        second.send(pack_message(MSG_PACKET_IN, 1, len(frame), frame))
        assert unpack_message(second.recv())[3] == routed(frame)
    finally:
        second.close()


def test_sp_framing_split_and_coalesced_writes(switch) -> None:
    """Messages split across writes, several in one write, and a frame far larger
    than one read (256 KB) all come through; the replies are SP-framed."""
    _, ports, addr = switch
    raw = RawPeer(addr[len("ipc://"):])
    try:
        assert raw.handshake() == b"\x00SP\x00\x00\x10\x00\x00"
        frames = [ipv6_frame(payload=b"a" * 10), ipv6_frame(payload=b"b" * 300),
                  ipv6_frame() + bytes(range(256)) * 1024]  # trailing bytes: payload
        wire = b"".join(RawPeer.frame(pack_message(MSG_PACKET_IN, 1, len(f), f))
                        for f in frames)
        for cut in (5, 9, 40, 5000, len(wire)):  # in pieces, each cut mid-header/body
            raw.sock.sendall(wire[:cut])
            wire = wire[cut:]
            time.sleep(0.02)
        for f in frames:
            assert unpack_message(raw.recv_msg()) == (MSG_PACKET_OUT, 2, len(f), routed(f))
        assert wait_for(lambda: ports.rx_messages == 3)
    finally:
        raw.close()


def test_peers_that_break_the_protocol_are_closed(switch) -> None:
    _, ports, addr = switch
    path = addr[len("ipc://"):]
    for protocol in (0x11, 0x30):  # PAIR v1, PUB: not our peer
        raw = RawPeer(path, protocol)
        raw.handshake()
        assert raw.sock.recv(1) == b""  # closed
        raw.close()
    raw = RawPeer(path)
    raw.handshake()
    raw.sock.sendall(b"\x07" + bytes(8))  # unknown SP message type
    assert raw.sock.recv(1) == b""
    raw.close()
    raw = RawPeer(path)
    raw.handshake()
    raw.sock.sendall(b"\x01" + (1 << 40).to_bytes(8, "big"))  # absurd length
    assert raw.sock.recv(1) == b""
    raw.close()
    assert wait_for(lambda: not ports.connected)
    peer = Peer(addr)  # a proper peer still gets in
    try:
        peer.packet(1, ipv6_frame())
        assert peer.recv()[3] == routed(ipv6_frame())
    finally:
        peer.close()


def test_stale_socket_file_is_replaced_a_live_one_is_not(tmp_path: Path) -> None:
    path = tmp_path / "stale.ipc"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # a file left behind by a switch that died
    dead.close()
    first = NanomsgPorts(f"ipc://{path}")
    try:
        with pytest.raises(OSError, match="cannot listen"):
            NanomsgPorts(f"ipc://{path}")
    finally:
        first.close()
    assert not path.exists()  # removed on close, as NNG does


def test_slow_peer_gets_whole_messages(tmp_path: Path) -> None:
    """A peer that does not read: senders buffer up to ``send_buffer`` bytes, then
    wait their timeout and drop whole batches; the stream stays well-formed."""
    path = tmp_path / "slow.ipc"
    listener = SPPairListener(f"ipc://{path}", send_buffer=64 << 10)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set() and listener.recv_batch(0.05) is not None:
            pass

    thread = threading.Thread(target=loop)
    thread.start()
    raw = RawPeer(str(path))
    try:
        raw.handshake()
        assert wait_for(lambda: listener.connected)
        msg = bytes(range(256)) * 40  # 10 KB
        taken, refused = 0, 0
        while refused < 2:
            n = listener.send_many([msg, msg], timeout_s=0.05)
            assert n in (0, 2)
            taken += n
            refused += n == 0
        assert taken >= 12  # the kernel's buffer and ours took some
        for _ in range(taken):  # now read: every message arrives whole
            assert raw.recv_msg() == msg
        assert listener.send_many([b"after"], 1.0) == 1
        assert raw.recv_msg() == b"after"
    finally:
        raw.close()
        stop.set()
        listener.wake()
        thread.join(5)
        listener.close()
