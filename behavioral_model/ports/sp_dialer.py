"""The dialing side of a nanomsg / NNG ``PAIR`` (v0) socket on plain sockets: what
``pynng.Pair0().dial(addr)`` does for ``ipc://`` and ``tcp://``, for programs that
inject and collect frames through a switch's ``--packet-in`` socket (PTF's ``nn``
platform does the same with pynng) and want to do it cheaply: a batch of messages
goes out in one ``sendall``, and one ``recv`` returns every message the kernel holds.

    with SPPairDialer("ipc:///tmp/bmv2-0.ipc") as peer:
        peer.send_many([msg1, msg2])
        msgs = peer.recv_batch(timeout_s=1.0)   # [] on time-out

Sending blocks while the switch does not read (that is the back pressure a traffic
generator wants). One thread may send while another receives.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Sequence
from types import TracebackType

from .sp_frames import (
    MAX_MESSAGE,
    PAIR0,
    SPProtocolError,
    SPStreamParser,
    check_hello,
    frame_messages,
    hello,
    parse_address,
)

__all__ = ["SPPairDialer"]

RECV_CHUNK = 1 << 18


class SPPairDialer:
    """A connected PAIR v0 peer of the listener at ``addr``. The connection is retried
    until ``timeout_s`` (the listener may still be starting); OSError if it cannot be
    made, SPProtocolError if the listener is not a PAIR v0 socket, ValueError for an
    address that is not ``ipc://PATH`` or ``tcp://HOST:PORT``."""

    def __init__(self, addr: str, timeout_s: float = 10.0, *, protocol: int = PAIR0,
                 max_message: int = MAX_MESSAGE) -> None:
        self.addr = addr
        kind, where = parse_address(addr)
        self.ipc = kind == "ipc"
        self._parser = SPStreamParser(self.ipc, max_message)
        self._sock = self._connect(where, timeout_s)
        try:
            self._handshake(protocol, timeout_s)
        except BaseException:
            self._sock.close()
            raise
        self._closed = False

    def _connect(self, where: str | tuple[str | None, int], timeout_s: float
                 ) -> socket.socket:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if isinstance(where, str):
                    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        sock.connect(where)
                    except OSError:
                        sock.close()
                        raise
                else:
                    host, port = where
                    sock = socket.create_connection((host or "127.0.0.1", port),
                                                    timeout=timeout_s)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    def _handshake(self, protocol: int, timeout_s: float) -> None:
        self._sock.settimeout(timeout_s)
        self._sock.sendall(hello(protocol))
        got = b""
        while len(got) < 8:
            chunk = self._sock.recv(8 - len(got))
            if not chunk:
                raise SPProtocolError(f"{self.addr}: the listener closed the connection "
                                      "during the handshake")
            got += chunk
        check_hello(got, protocol)
        self._sock.settimeout(None)

    # -- use ------------------------------------------------------------------------------
    def fileno(self) -> int:
        return self._sock.fileno()

    def send_many(self, messages: Sequence[bytes]) -> None:
        """Send ``messages`` in order, in one write (blocks until the kernel took all)."""
        if messages:
            self._sock.sendall(frame_messages(messages, self.ipc))

    def send_framed(self, data: bytes) -> None:
        """Send bytes already framed with :func:`.sp_frames.frame_messages` (lets a
        traffic generator frame its messages once and replay them)."""
        self._sock.sendall(data)

    def recv_batch(self, timeout_s: float | None = None) -> list[bytes]:
        """The messages that arrived: waits up to ``timeout_s`` (None: for ever) for
        the first; [] on time-out. ConnectionError when the listener closed the
        connection; SPProtocolError on a framing error."""
        msgs: list[bytes] = []
        while not msgs:
            if timeout_s is not None:
                ready, _, _ = select.select([self._sock], [], [], timeout_s)
                if not ready:
                    return msgs
            data = self._sock.recv(RECV_CHUNK)
            if not data:
                raise ConnectionError(f"{self.addr}: connection closed by the listener")
            self._parser.feed(data, msgs)
        return msgs

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._sock.close()

    def __enter__(self) -> SPPairDialer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
