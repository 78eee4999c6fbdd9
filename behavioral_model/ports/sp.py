"""The listening side of a nanomsg / NNG ``PAIR`` (v0) socket, speaking the SP wire
protocol on plain sockets: what ``pynng.Pair0().listen(addr)`` does for ``ipc://`` and
``tcp://``, without NNG's per-message thread hand-offs.

The wire protocol (handshake and framing) is in :mod:`.sp_frames`. As NNG's pair0,
only one peer is connected at a time: a second connection is closed after the
handshake (its dialer retries).

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
import threading
import time
from collections.abc import Callable, Sequence

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

__all__ = ["PAIR0", "SPPairListener", "SPProtocolError", "parse_address"]

log = logging.getLogger("behavioral_model.ports.nn")

NEGOTIATION_TIMEOUT_S = 10.0  # as NNG
SEND_BUFFER = 4 << 20  # bytes buffered for a slow peer before senders wait
RECV_CHUNK = 1 << 16

_POLLIN = select.POLLIN | select.POLLPRI
_POLLERR = select.POLLERR | select.POLLHUP | select.POLLNVAL

PeerCallback = Callable[[bool], None]
"""``on_peer(connected)``, from the receiving thread."""


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
        self._parser = SPStreamParser(self._ipc, max_message)
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
            self._parser.feed(data, msgs)
        except SPProtocolError as error:
            log.error("%s: %s; closing the connection", self.addr, error)
            self._drop_peer(str(error))

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
        try:
            check_hello(bytes(got), self._protocol)
            refused = None
        except SPProtocolError as error:
            refused = str(error)
        if refused is not None:
            log.warning("%s: %s; closed", self.addr, refused)
        elif self._conn is not None:
            # its dialer retries every 100 ms or so: say it once per peer
            log.log(logging.DEBUG if self._refused else logging.INFO,
                    "%s: a second peer connected; closed (PAIR has one peer)", self.addr)
            self._refused = True
        else:
            self._parser.reset()
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
        self._parser.reset()
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
        data = frame_messages(messages, self._ipc)
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
