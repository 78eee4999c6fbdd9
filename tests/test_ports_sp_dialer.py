"""The dialing end of the SP PAIR v0 protocol (``ports/sp_dialer.py``) against our
listener and against pynng (NNG's own implementation), on ipc:// and tcp://, plus the
shared framing (``ports/sp_frames.py``) and the errors a user can run into."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pynng
import pytest

from behavioral_model.ports.sp import SPPairListener
from behavioral_model.ports.sp_dialer import SPPairDialer
from behavioral_model.ports.sp_frames import (
    SPProtocolError,
    SPStreamParser,
    check_hello,
    frame_messages,
    hello,
)


def free_tcp_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(params=["ipc", "tcp"])
def addr(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "ipc":
        return f"ipc://{tmp_path}/sp.ipc"
    return f"tcp://127.0.0.1:{free_tcp_port()}"


class Listening:
    """Our listener with its receive loop in a thread, collecting messages."""

    def __init__(self, addr: str, **kwargs: object) -> None:
        self.listener = SPPairListener(addr, **kwargs)  # type: ignore[arg-type]
        self.got: list[bytes] = []
        self.peers: list[bool] = []
        self.listener.on_peer = self.peers.append
        self._stop = False
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self._stop:
            msgs = self.listener.recv_batch(0.05)
            if msgs is None:
                return
            self.got.extend(msgs)

    def wait_for(self, n: int, timeout: float = 5.0) -> list[bytes]:
        deadline = time.monotonic() + timeout
        while len(self.got) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.got

    def close(self) -> None:
        self._stop = True
        self.listener.wake()
        self.thread.join(5)
        self.listener.close()


@pytest.fixture
def listening(addr: str) -> Iterator[Listening]:
    server = Listening(addr)
    yield server
    server.close()


def test_messages_both_ways_with_our_listener(addr: str, listening: Listening) -> None:
    msgs = [bytes([i]) * (i * 37 % 300) for i in range(200)]  # incl. an empty one
    with SPPairDialer(addr) as peer:
        peer.send_many(msgs[:150])
        peer.send_framed(frame_messages(msgs[150:], peer.ipc))
        assert listening.wait_for(200) == msgs
        deadline = time.monotonic() + 5
        while not listening.listener.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        assert listening.listener.send_many([b"back", b"", b"again"], 1.0) == 3
        got: list[bytes] = []
        while len(got) < 3:
            batch = peer.recv_batch(5.0)
            assert batch, "nothing came back within 5 s"
            got += batch
        assert got == [b"back", b"", b"again"]
        assert peer.recv_batch(0.05) == []  # time-out: nothing more


def test_messages_both_ways_with_pynng(addr: str) -> None:
    with pynng.Pair0(recv_timeout=5000, send_timeout=5000) as nng:
        nng.listen(addr)
        with SPPairDialer(addr) as peer:
            peer.send_many([b"one", b"two" * 1000])
            assert nng.recv() == b"one"
            assert nng.recv() == b"two" * 1000
            nng.send(b"three")
            assert peer.recv_batch(5.0) == [b"three"]


def test_the_listener_may_start_after_the_dialer(tmp_path: Path) -> None:
    addr = f"ipc://{tmp_path}/late.ipc"
    server: list[Listening] = []
    timer = threading.Timer(0.3, lambda: server.append(Listening(addr)))
    timer.start()
    try:
        with SPPairDialer(addr, timeout_s=5.0) as peer:
            peer.send_many([b"late"])
            timer.join()
            assert server[0].wait_for(1) == [b"late"]
    finally:
        timer.join()
        for s in server:
            s.close()


def test_closed_listener_is_a_connection_error(addr: str) -> None:
    server = Listening(addr)
    peer = SPPairDialer(addr)
    try:
        deadline = time.monotonic() + 5
        while not server.listener.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        server.close()
        with pytest.raises(ConnectionError):
            for _ in range(50):
                peer.recv_batch(0.1)
    finally:
        peer.close()


def test_nobody_listening(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        SPPairDialer(f"ipc://{tmp_path}/nobody.ipc", timeout_s=0.2)
    with pytest.raises(ConnectionRefusedError):
        SPPairDialer(f"tcp://127.0.0.1:{free_tcp_port()}", timeout_s=0.2)


@pytest.mark.parametrize("bad", ["udp://x:1", "ipc://", "tcp://host", "tcp://h:99999", ""])
def test_bad_addresses(bad: str) -> None:
    with pytest.raises(ValueError):
        SPPairDialer(bad, timeout_s=0.1)


def test_a_listener_of_another_protocol_is_refused(tmp_path: Path) -> None:
    addr = f"ipc://{tmp_path}/other.ipc"
    server = Listening(addr, protocol=0x11)  # PAIR v1
    try:
        with pytest.raises(SPProtocolError, match="0x11 is not 0x10"):
            SPPairDialer(addr)
    finally:
        server.close()


def test_a_server_that_does_not_speak_sp_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "http.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)

    def answer() -> None:
        conn, _ = srv.accept()
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n")
        time.sleep(0.2)
        conn.close()

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        with pytest.raises(SPProtocolError, match="does not speak SP"):
            SPPairDialer(f"ipc://{path}", timeout_s=2.0)
    finally:
        thread.join()
        srv.close()


def test_handshake_bytes() -> None:
    assert hello(0x10) == b"\x00SP\x00\x00\x10\x00\x00"
    check_hello(hello(0x10), 0x10)
    with pytest.raises(SPProtocolError):
        check_hello(b"\x00SP\x01\x00\x10\x00\x00", 0x10)


@pytest.mark.parametrize("ipc", [True, False])
def test_stream_parser_reassembles_any_split(ipc: bool) -> None:
    msgs = [b"a" * n for n in (0, 1, 100, 3000, 5)]
    stream = frame_messages(msgs, ipc)
    assert len(stream) == sum(len(m) for m in msgs) + len(msgs) * (9 if ipc else 8)
    for step in (1, 2, 7, 64, len(stream)):
        parser = SPStreamParser(ipc)
        got: list[bytes] = []
        for i in range(0, len(stream), step):
            parser.feed(stream[i:i + step], got)
        assert got == msgs
        assert parser.pending == 0


def test_stream_parser_rejects_bad_frames() -> None:
    with pytest.raises(SPProtocolError, match="message type 2"):
        SPStreamParser(True).feed(b"\x02" + bytes(8), [])
    with pytest.raises(SPProtocolError, match="exceeds the maximum"):
        SPStreamParser(False, max_message=10).feed((11).to_bytes(8, "big"), [])
