"""The listening side of a nanomsg / NNG ``PAIR`` (v0) socket, speaking the SP wire
protocol on plain sockets: what ``pynng.Pair0().listen(addr)`` does for ``ipc://`` and
``tcp://``, without NNG's per-message thread hand-offs.

The wire protocol (nanomsg's ``sp-tcp-mapping`` / ``sp-ipc-mapping`` RFCs, NNG's
``src/sp/transport/{ipc,tcp}``): after connecting, each side sends 8 bytes
``00 'S' 'P' 00``, its protocol number (big-endian 16 bits; PAIR v0 is 0x10) and two
zero bytes, and checks the peer's. Then every message is framed as

* ``ipc://``: one byte ``1`` (message type), the length as a big-endian 64-bit
  integer, the body;
* ``tcp://``: the length (big-endian 64 bits), the body.

PAIR v0 adds no header to the body. As NNG's pair0, only one peer is connected at a
time: a second connection is closed after the handshake (its dialer retries).

Receiving reads whatever the kernel has (many messages per system call); sending
frames a whole batch of messages into one ``send``. A slow peer is buffered up to
``send_buffer`` bytes; beyond that a sender waits (up to its timeout) for the peer to
drain, then drops the batch, whole messages only, so the stream stays well-formed.
"""

from __future__ import annotations

import errno
import logging
import os
import select
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable, Sequence

__all__ = ["PAIR0", "SPPairListener", "SPProtocolError", "parse_address"]

log = logging.getLogger("behavioral_model.ports.nn")

PAIR0 = 0x10  # protocol number of PAIR v0 (its peer is PAIR v0 too)
NEGOTIATION_TIMEOUT_S = 10.0  # as NNG
MAX_MESSAGE = 1 << 20  # NNG's default NNG_OPT_RECVMAXSZ; a larger message closes the pipe
SEND_BUFFER = 4 << 20  # bytes buffered for a slow peer before senders wait
RECV_CHUNK = 1 << 16

_IPC_HEAD = struct.Struct(">BQ")  # message type (1), length
_TCP_HEAD = struct.Struct(">Q")  # length
_POLLIN = select.POLLIN | select.POLLPRI
_POLLERR = select.POLLERR | select.POLLHUP | select.POLLNVAL

PeerCallback = Callable[[bool], None]
"""``on_peer(connected)``, from the receiving thread."""


class SPProtocolError(Exception):
    """The peer broke the SP framing; its connection is closed."""


def hello(protocol: int) -> bytes:
    return b"\x00SP\x00" + protocol.to_bytes(2, "big") + b"\x00\x00"


def parse_address(addr: str) -> tuple[str, str | tuple[str | None, int]]:
    """``ipc://PATH`` -> ("ipc", PATH); ``tcp://HOST:PORT`` -> ("tcp", (HOST, PORT))
    with HOST None for ``*`` or empty (all interfaces); ValueError otherwise."""
    if addr.startswith("ipc://"):
        path = addr[len("ipc://"):]
        if not path:
            raise ValueError(f"{addr!r}: no path")
        return "ipc", path
    if addr.startswith("tcp://"):
        rest = addr[len("tcp://"):].rstrip("/")
        host, sep, port_text = rest.rpartition(":")
        if not sep or not port_text.isdigit() or int(port_text) > 65535:
            raise ValueError(f"{addr!r}: expected tcp://HOST:PORT")
        host = host.strip("[]")
        return "tcp", (None if host in ("", "*") else host, int(port_text))
    raise ValueError(f"{addr!r}: expected ipc://PATH or tcp://HOST:PORT")


class SPPairListener:
    """A PAIR v0 socket listening on ``addr`` (``ipc://PATH`` or ``tcp://HOST:PORT``).

    One thread calls :meth:`recv_batch` in a loop (it also accepts connections and
    writes out what senders left buffered); any thread may call :meth:`send_many`.
    OSError if the address cannot be listened on (e.g. another live socket has it)."""

    def __init__(self, addr: str, on_peer: PeerCallback | None = None, *,
                 protocol: int = PAIR0, max_message: int = MAX_MESSAGE,
                 send_buffer: int = SEND_BUFFER) -> None:
        self.addr = addr
        self.kind, where = parse_address(addr)
        self.on_peer = on_peer
        self.max_message = max_message
        self.send_buffer = send_buffer
        self._hello = hello(protocol)
        self._protocol = protocol
        self._ipc = self.kind == "ipc"
        self._head_size = _IPC_HEAD.size if self._ipc else _TCP_HEAD.size
        self._path: str | None = None
        self._listener = self._listen(where)
        self._listen_fd = self._listener.fileno()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._poll = select.poll()
        self._poll.register(self._listen_fd, _POLLIN)
        self._poll.register(self._wake_r.fileno(), _POLLIN)
        # connections still negotiating: fd -> (socket, header bytes so far, deadline)
        self._nego: dict[int, tuple[socket.socket, bytearray, float]] = {}
        self._conn: socket.socket | None = None
        self._conn_fd = -1
        self._pollout = False
        self._rx = bytearray()  # an incomplete message
        self._rx_need = 0  # bytes ``_rx`` must hold before it is worth parsing
        self._send_lock = threading.Lock()
        self._out = bytearray()  # framed messages the kernel did not take yet
        self._broken = False  # a send failed; the receiving thread closes the pipe
        self._refused = False  # a second peer was turned away (logged once)
        self._rx_thread: int | None = None
        self._closed = False

    # -- set-up -------------------------------------------------------------------------
    def _listen(self, where: str | tuple[str | None, int]) -> socket.socket:
        if isinstance(where, str):
            return self._listen_ipc(where)
        host, port = where
        infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
                                   socket.AI_PASSIVE)
        if host is None:  # all interfaces: prefer IPv4's 0.0.0.0, as NNG does
            infos.sort(key=lambda info: info[0] != socket.AF_INET)
        family, kind, proto, _, sockaddr = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(sockaddr)
            sock.listen(16)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        return sock

    def _listen_ipc(self, path: str) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                sock.bind(path)
            except OSError as error:
                if error.errno != errno.EADDRINUSE or not _stale_unix_socket(path):
                    raise
                os.unlink(path)  # left behind by a process that is gone (NNG does this)
                sock.bind(path)
            sock.listen(16)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self._path = path
        return sock

    # -- state --------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._conn is not None

    def wake(self) -> None:
        """Make a :meth:`recv_batch` in progress return now."""
        try:
            self._wake_w.send(b"\x00")
        except OSError:
            pass

    def close(self) -> None:
        """Close every socket (call after the receiving thread has stopped)."""
        if self._closed:
            return
        self._closed = True
        with self._send_lock:
            conn, self._conn = self._conn, None
            self._out.clear()
        for sock, _, _ in self._nego.values():
            sock.close()
        self._nego.clear()
        for sock in (conn, self._listener, self._wake_r, self._wake_w):
            if sock is not None:
                sock.close()
        if self._path is not None:
            try:
                if stat.S_ISSOCK(os.stat(self._path).st_mode):
                    os.unlink(self._path)
            except OSError:
                pass

    # -- receiving (one thread) ---------------------------------------------------------
    def recv_batch(self, timeout_s: float) -> list[bytes] | None:
        """The messages that arrived (maybe none) within ``timeout_s``; None once the
        listener is closed. Also accepts and negotiates connections and flushes what
        :meth:`send_many` left buffered."""
        if self._closed:
            return None
        self._rx_thread = threading.get_ident()
        conn = self._conn
        if conn is not None:
            if self._broken:
                self._drop_peer("send failed")
                conn = None
            else:
                want = bool(self._out)
                if want != self._pollout:
                    self._pollout = want
                    self._poll.modify(self._conn_fd, _POLLIN | select.POLLOUT if want
                                      else _POLLIN)
        if self._nego:
            now = time.monotonic()
            for fd, (_sock, _, deadline) in list(self._nego.items()):
                if deadline <= now:
                    log.warning("%s: peer did not complete the SP handshake in %.0f s",
                                self.addr, NEGOTIATION_TIMEOUT_S)
                    self._close_nego(fd)
            if self._nego:
                timeout_s = min(timeout_s, max(0.0, min(d for _, _, d in self._nego.values())
                                               - now))
        try:
            events = self._poll.poll(int(timeout_s * 1000))
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            return []
        if self._closed:
            return None
        msgs: list[bytes] = []
        for fd, ev in events:
            if fd == self._conn_fd and self._conn is not None:
                if ev & select.POLLOUT:
                    with self._send_lock:
                        self._flush(self._conn)
                if ev & (_POLLIN | _POLLERR):
                    self._read(msgs)
            elif fd == self._listen_fd:
                self._accept()
            elif fd in self._nego:
                self._negotiate(fd)
            elif fd == self._wake_r.fileno():
                try:
                    while self._wake_r.recv(4096):
                        pass
                except OSError:
                    pass
        return msgs

    def _read(self, msgs: list[bytes]) -> None:
        conn = self._conn
        assert conn is not None
        try:
            data = conn.recv(RECV_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._drop_peer(str(error))
            return
        if not data:
            self._drop_peer("connection closed")
            return
        try:
            self._parse(data, msgs)
        except SPProtocolError as error:
            log.error("%s: %s; closing the connection", self.addr, error)
            self._drop_peer(str(error))

    def _parse(self, data: bytes, msgs: list[bytes]) -> None:
        rx = self._rx
        if rx:
            rx += data
            if len(rx) < self._rx_need:
                return
            data = bytes(rx)
            rx.clear()
        head = self._head_size
        unpack = _IPC_HEAD.unpack_from if self._ipc else _TCP_HEAD.unpack_from
        ipc = self._ipc
        limit = self.max_message
        n = len(data)
        pos = 0
        need = head
        while n - pos >= head:
            if ipc:
                kind, size = unpack(data, pos)
                if kind != 1:
                    raise SPProtocolError(f"unknown SP message type {kind}")
            else:
                (size,) = unpack(data, pos)
            if size > limit:
                raise SPProtocolError(f"message of {size} bytes exceeds the maximum of "
                                      f"{limit}")
            end = pos + head + size
            if end > n:
                need = end - pos
                break
            msgs.append(data[pos + head:end])
            pos = end
        if pos < n:
            rx += memoryview(data)[pos:]
            self._rx_need = need

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # e.g. EMFILE: try again on the next wake-up
                log.error("%s: accept failed: %s", self.addr, error)
                return
            sock.setblocking(False)
            if not self._ipc:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                sent = sock.send(self._hello)  # a fresh socket's buffer takes 8 bytes
            except OSError:
                sent = 0
            if sent != len(self._hello):
                sock.close()
                continue
            fd = sock.fileno()
            self._nego[fd] = (sock, bytearray(), time.monotonic() + NEGOTIATION_TIMEOUT_S)
            self._poll.register(fd, _POLLIN)

    def _close_nego(self, fd: int) -> None:
        sock, _, _ = self._nego.pop(fd)
        self._poll.unregister(fd)
        sock.close()

    def _negotiate(self, fd: int) -> None:
        sock, got, _ = self._nego[fd]
        try:
            data = sock.recv(8 - len(got))  # only the header: messages may follow
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close_nego(fd)
            return
        got += data
        if len(got) < 8:
            return
        del self._nego[fd]
        if got[:4] != b"\x00SP\x00" or got[6:8] != b"\x00\x00":
            log.warning("%s: a peer that does not speak SP connected; closed", self.addr)
        elif int.from_bytes(got[4:6], "big") != self._protocol:
            log.warning("%s: peer protocol 0x%x is not PAIR v0; closed", self.addr,
                        int.from_bytes(got[4:6], "big"))
        elif self._conn is not None:
            # its dialer retries every 100 ms or so: say it once per peer
            log.log(logging.DEBUG if self._refused else logging.INFO,
                    "%s: a second peer connected; closed (PAIR has one peer)", self.addr)
            self._refused = True
        else:
            self._rx.clear()
            self._rx_need = 0
            with self._send_lock:
                self._conn = sock
                self._conn_fd = fd
                self._out.clear()
                self._broken = False
            self._pollout = False
            if self.on_peer is not None:
                self.on_peer(True)
            return
        self._poll.unregister(fd)
        sock.close()

    def _drop_peer(self, reason: str) -> None:
        with self._send_lock:
            conn, self._conn = self._conn, None
            fd, self._conn_fd = self._conn_fd, -1
            self._out.clear()
            self._broken = False
        if conn is None:
            return
        log.debug("%s: peer connection closed (%s)", self.addr, reason)
        self._refused = False
        self._poll.unregister(fd)
        conn.close()
        self._rx.clear()
        self._rx_need = 0
        self._pollout = False
        if self.on_peer is not None:
            self.on_peer(False)

    # -- sending (any thread) -----------------------------------------------------------
    def send_many(self, messages: Sequence[bytes], timeout_s: float) -> int:
        """Send ``messages`` to the peer, in order; returns how many were taken (all or
        none): none without a peer, or when more than ``send_buffer`` bytes are still
        waiting for the peer after ``timeout_s``."""
        if not messages:
            return 0
        parts: list[bytes] = []
        add = parts.append
        if self._ipc:
            head = _IPC_HEAD.pack
            for msg in messages:
                add(head(1, len(msg)))
                add(msg)
        else:
            head = _TCP_HEAD.pack
            for msg in messages:
                add(head(len(msg)))
                add(msg)
        data = b"".join(parts)
        with self._send_lock:
            conn = self._conn
            if conn is None or self._broken:
                return 0
            out = self._out
            if out:
                if len(out) >= self.send_buffer and not self._wait_drain(conn, timeout_s):
                    return 0
                out += data
                self._flush(conn)
            else:
                try:
                    sent = conn.send(data)
                except (BlockingIOError, InterruptedError):
                    sent = 0
                except OSError:
                    self._broken = True
                    self.wake()
                    return 0
                if sent == len(data):
                    return len(messages)
                out += memoryview(data)[sent:]
            if out and threading.get_ident() != self._rx_thread:
                self.wake()  # so the receiving thread polls for room to write
        return len(messages)

    def _flush(self, conn: socket.socket) -> None:
        """Write out what is buffered, as far as the kernel takes it (send lock held)."""
        out = self._out
        while out:
            try:
                sent = conn.send(out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._broken = True
                out.clear()
                self.wake()
                return
            del out[:sent]

    def _wait_drain(self, conn: socket.socket, timeout_s: float) -> bool:
        """Wait until less than ``send_buffer`` bytes are buffered (send lock held)."""
        deadline = time.monotonic() + timeout_s
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLOUT)
        while True:
            self._flush(conn)
            if self._broken:
                return False
            if len(self._out) < self.send_buffer:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            poller.poll(max(1, int(left * 1000)))


def _stale_unix_socket(path: str) -> bool:
    """True if ``path`` is a Unix socket nobody listens on any more."""
    try:
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            return False
    except OSError:
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    finally:
        probe.close()
    return False
