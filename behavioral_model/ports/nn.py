"""BMv2's nanomsg "packet-in" interface (``--packet-in ipc://... | tcp://...``) over NNG.

This is the transport of PTF's ``nn`` platform
(``ptf --platform nn --device-socket 0-{1-8}@ipc:///tmp/bmv2-0.ipc``). As in
behavioral-model ``src/bm_sim/dev_mgr_packet_in.cpp``, the switch *listens* on a PAIR
socket and PTF (``ptf/dataplane.py``, ``DataPlanePacketSourceNN``) dials it. Every
message starts with three 32-bit signed integers in the host's (little-endian) byte
order, ``struct packet_hdr_t { int type; int port; int more; }``:

=====  ==============  ====================  =========================================
type   name            ``more``              body / direction
=====  ==============  ====================  =========================================
0      PORT_ADD        0                     peer -> switch
1      PORT_REMOVE     0                     peer -> switch
2      PORT_SET_STATUS 0 = down, 1 = up      peer -> switch (BMv2's values)
3      PACKET_IN       frame length          frame; peer -> switch (into ``port``)
4      PACKET_OUT      frame length          frame; switch -> peer (out of ``port``)
5      INFO_REQ        info type             peer -> switch
6      INFO_REP        info type             ``int status``; switch -> peer
=====  ==============  ====================  =========================================

BMv2 answers every INFO_REQ (PTF asks for port MAC addresses and counters) with the
request header turned into INFO_REP plus status 1 (NOT_SUPPORTED); so does this class.
Port messages only update the port table unless ``enforce_ports`` is set (BMv2's
default, and simple_switch's, is not to enforce): then frames are accepted only on
ports that were added and are up. Note that PTF's own constants say 0 = up and 1 = down
for PORT_SET_STATUS, the reverse of BMv2's; we follow BMv2, and with ports not enforced
(the default) the difference has no effect on forwarding.

Transport: for ``ipc://`` and ``tcp://`` the socket is :class:`.sp.SPPairListener`, the
SP wire protocol of nanomsg and NNG on plain sockets (PTF's pynng, or nanomsg, dial it
unchanged): many messages per system call instead of NNG's per-message thread
hand-offs, which cost more CPU than the whole pipeline. ``inproc://`` (one process
only) goes through pynng. Received frames are handed to the switch in batches
(``start_batched``), sent frames leave in batches (``transmit_batch``).
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from . import Deliver, DeliverBatch, Frame, PortInfo
from .sp import SPPairListener

__all__ = [
    "HEADER",
    "MSG_PORT_ADD",
    "MSG_PORT_REMOVE",
    "MSG_PORT_SET_STATUS",
    "MSG_PACKET_IN",
    "MSG_PACKET_OUT",
    "MSG_INFO_REQ",
    "MSG_INFO_REP",
    "PORT_STATUS_DOWN",
    "PORT_STATUS_UP",
    "INFO_STATUS_SUCCESS",
    "INFO_STATUS_NOT_SUPPORTED",
    "NanomsgPorts",
    "TRANSPORTS",
    "pack_message",
    "unpack_message",
]

log = logging.getLogger("behavioral_model.ports.nn")

HEADER = struct.Struct("<iii")  # type, port, more
MSG_PORT_ADD, MSG_PORT_REMOVE, MSG_PORT_SET_STATUS = 0, 1, 2
MSG_PACKET_IN, MSG_PACKET_OUT, MSG_INFO_REQ, MSG_INFO_REP = 3, 4, 5, 6
PORT_STATUS_DOWN, PORT_STATUS_UP = 0, 1
INFO_STATUS_SUCCESS, INFO_STATUS_NOT_SUPPORTED = 0, 1
_INFO_STATUS = struct.Struct("<i")

TRACE = 5  # BMv2's "trace" log level, below DEBUG
RECV_TIMEOUT_MS = 100  # as BMv2: the receive loop checks for shutdown this often
SEND_TIMEOUT_MS = 1000  # when the peer's queue is full; then the frame is dropped
BUFFER_MESSAGES = 1024  # NNG socket buffers (inproc://), to absorb bursts
RECV_BATCH = 256  # messages taken from an NNG socket per wake-up (inproc://)
TRANSPORTS = ("auto", "sp", "nng")

PortEvent = Callable[[int, str], None]
"""``on_port_event(port, event)`` with event "added", "removed", "up" or "down"."""


def pack_message(msg_type: int, port: int, more: int, body: bytes = b"") -> bytes:
    return HEADER.pack(msg_type, port, more) + body


def unpack_message(msg: bytes) -> tuple[int, int, int, bytes]:
    """(type, port, more, body); ValueError if shorter than the header."""
    if len(msg) < HEADER.size:
        raise ValueError(f"nanomsg message of {len(msg)} bytes is shorter than its "
                         f"{HEADER.size}-byte header")
    msg_type, port, more = HEADER.unpack_from(msg)
    return msg_type, port, more, msg[HEADER.size:]


class _Transport(Protocol):
    connected: bool

    def recv_batch(self, timeout_s: float) -> list[bytes] | None: ...

    def send_many(self, messages: Sequence[bytes], timeout_s: float) -> int: ...

    def wake(self) -> None: ...

    def close(self) -> None: ...


class _NngTransport:
    """A pynng ``Pair0`` listening socket with the :class:`.sp.SPPairListener` API."""

    def __init__(self, addr: str, on_peer: Callable[[bool], None]) -> None:
        import pynng

        self._pynng = pynng
        self._peers = 0
        self._heard = False  # a message arrived since the last peer left
        self._on_peer = on_peer
        self._lock = threading.Lock()
        self._sock = pynng.Pair0(recv_timeout=RECV_TIMEOUT_MS, send_timeout=SEND_TIMEOUT_MS,
                                 send_buffer_size=BUFFER_MESSAGES,
                                 recv_buffer_size=BUFFER_MESSAGES)
        self._sock.add_post_pipe_connect_cb(lambda _pipe: self._peer(1))
        self._sock.add_post_pipe_remove_cb(lambda _pipe: self._peer(-1))
        try:
            self._sock.listen(addr)
        except pynng.NNGException as error:
            self._sock.close()
            raise OSError(f"cannot listen on {addr}: {error}") from None

    def _peer(self, delta: int) -> None:
        self._peers = max(0, self._peers + delta)
        if delta < 0:
            self._heard = False
        self._on_peer(delta > 0)

    @property
    def connected(self) -> bool:
        # NNG may run the post-connect callback only after the peer's first messages
        # were received (and answered): a message received is proof of a peer too
        return self._peers > 0 or self._heard

    def recv_batch(self, timeout_s: float) -> list[bytes] | None:
        pynng = self._pynng
        try:
            msgs = [self._sock.recv()]  # waits up to RECV_TIMEOUT_MS
        except pynng.Timeout:
            return []
        except pynng.Closed:
            return None
        except pynng.NNGException as error:  # pragma: no cover - transport error
            log.error("receive failed: %s", error)
            return []
        recv = self._sock.recv
        try:
            while len(msgs) < RECV_BATCH:
                msgs.append(recv(block=False))
        except (pynng.TryAgain, pynng.Timeout, pynng.Closed):
            pass
        self._heard = True
        return msgs

    def send_many(self, messages: Sequence[bytes], timeout_s: float) -> int:
        pynng = self._pynng
        sent = 0
        with self._lock:
            for msg in messages:
                try:
                    self._sock.send(msg)
                except (pynng.Timeout, pynng.Closed):
                    continue
                sent += 1
        return sent

    def wake(self) -> None:
        pass  # recv_batch returns within RECV_TIMEOUT_MS

    def close(self) -> None:
        self._sock.close()


class NanomsgPorts:
    """All ports behind one PAIR socket bound at ``addr``. ``transport``: "sp" (the
    SP protocol on plain sockets; ``ipc://`` and ``tcp://``), "nng" (pynng) or
    "auto" (sp, and nng for ``inproc://``)."""

    def __init__(self, addr: str, enforce_ports: bool = False,
                 on_port_event: PortEvent | None = None, transport: str = "auto") -> None:
        if not addr.startswith(("ipc://", "tcp://", "inproc://")):
            raise ValueError(f"packet-in address {addr!r}: expected ipc://PATH or "
                             "tcp://HOST:PORT")
        if transport not in TRANSPORTS:
            raise ValueError(f"transport {transport!r}: expected one of {TRANSPORTS}")
        if transport == "auto":
            transport = "nng" if addr.startswith("inproc://") else "sp"
        if transport == "sp" and addr.startswith("inproc://"):
            raise ValueError("inproc:// needs the nng transport")
        self.addr = addr
        self.enforce_ports = enforce_ports
        self.on_port_event = on_port_event
        self.rx_messages = 0
        self.tx_frames = 0
        self.tx_dropped = 0
        self._ports: dict[int, PortInfo] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._deliver: Deliver | None = None
        self._deliver_batch: DeliverBatch | None = None
        self._transport: _Transport
        if transport == "nng":
            self._transport = _NngTransport(addr, self._peer_event)
        else:
            try:
                self._transport = SPPairListener(addr, self._peer_event)
            except OSError as error:
                raise OSError(f"cannot listen on {addr}: "
                              f"{error.strerror or error}") from None
            except ValueError as error:
                raise ValueError(f"packet-in address {error}") from None
        self.transport = transport

    # -- PortBackend --------------------------------------------------------------------
    def start(self, deliver: Deliver) -> None:
        """Receive frames one by one: ``deliver(port, frame)``."""
        self._start(deliver, None)

    def start_batched(self, deliver_batch: DeliverBatch) -> None:
        """Receive frames in batches: ``deliver_batch([(port, frame), ...])`` with the
        frames of one wake-up, in arrival order."""
        self._start(None, deliver_batch)

    def _start(self, deliver: Deliver | None, deliver_batch: DeliverBatch | None) -> None:
        if self._thread is not None:
            return
        self._deliver = deliver
        self._deliver_batch = deliver_batch
        self._thread = threading.Thread(target=self._receive_loop, name="bm-nn-rx",
                                        daemon=True)
        self._thread.start()

    owns_all = True  # one socket carries every port

    def owns(self, port: int) -> bool:
        return True

    def port_info(self) -> dict[int, PortInfo]:
        with self._lock:
            return {p: PortInfo(i.port, i.name, i.up) for p, i in self._ports.items()}

    @property
    def connected(self) -> bool:
        return self._transport.connected

    def transmit(self, port: int, data: bytes) -> None:
        """Send a PACKET_OUT; dropped (and counted) when no peer is connected or the
        peer does not drain its socket within a second."""
        self._send_frames([HEADER.pack(MSG_PACKET_OUT, port, len(data)) + data], port)

    def transmit_batch(self, frames: Sequence[Frame]) -> None:
        """:meth:`transmit` for each of ``frames`` (objects with ``port`` and ``data``),
        in order, in one write."""
        pack = HEADER.pack
        self._send_frames([pack(MSG_PACKET_OUT, f.port, len(f.data)) + f.data
                           for f in frames], frames[0].port if frames else 0)

    def _send_frames(self, msgs: list[bytes], port: int) -> None:
        if self._stop.is_set() or not msgs:
            return
        transport = self._transport
        if not transport.connected:
            self.tx_dropped += len(msgs)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("port %d: no peer on %s, %d frame(s) dropped", port, self.addr,
                          len(msgs))
            return
        sent = transport.send_many(msgs, SEND_TIMEOUT_MS / 1000)
        self.tx_frames += sent
        if sent < len(msgs):
            self.tx_dropped += len(msgs) - sent
            log.warning("%d frame(s) dropped on %s (the peer does not read them)",
                        len(msgs) - sent, self.addr)

    def close(self) -> None:
        self._stop.set()
        self._transport.wake()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._transport.close()

    # -- internals ----------------------------------------------------------------------
    def _peer_event(self, connected: bool) -> None:
        log.info("peer %s %s", "connected to" if connected else "disconnected from",
                 self.addr)

    def _receive_loop(self) -> None:
        transport = self._transport
        timeout = RECV_TIMEOUT_MS / 1000
        while not self._stop.is_set():
            try:
                msgs = transport.recv_batch(timeout)
            except Exception:  # pragma: no cover - never let the port die
                log.exception("receive on %s failed", self.addr)
                continue
            if msgs is None:
                break
            if not msgs:
                continue
            self.rx_messages += len(msgs)
            try:
                self._handle_batch(msgs)
            except Exception:  # never let one bad message kill the port
                log.exception("error while handling a message from %s", self.addr)

    def _handle_batch(self, msgs: list[bytes]) -> None:
        """PACKET_IN frames are collected and delivered together; any other message is
        handled in its place in the sequence."""
        frames: list[tuple[int, bytes]] = []
        add = frames.append
        unpack = HEADER.unpack_from
        size = HEADER.size
        plain = not (self.enforce_ports or log.isEnabledFor(TRACE))
        for msg in msgs:
            try:
                msg_type, port, more = unpack(msg)
            except struct.error:  # shorter than the header: reported by _handle
                msg_type = -1
            if msg_type == MSG_PACKET_IN:
                body = msg[size:]
                if more != len(body):
                    body = self._fix_length(port, more, body)
                if plain or self._accept(port, body):
                    add((port, body))
                continue
            if frames:
                self._deliver_frames(frames)
                frames = []
                add = frames.append
            self._handle(msg)
        if frames:
            self._deliver_frames(frames)

    def _accept(self, port: int, body: bytes) -> bool:
        """Trace a received frame; whether its port may receive (``enforce_ports``)."""
        log.log(TRACE, "packet in received on port %d (%d bytes)", port, len(body))
        return not self.enforce_ports or self._port_up(port)

    def _deliver_frames(self, frames: list[tuple[int, bytes]]) -> None:
        if self._deliver_batch is not None:
            self._deliver_batch(frames)
        elif self._deliver is not None:
            for port, body in frames:
                self._deliver(port, body)

    @staticmethod
    def _fix_length(port: int, more: int, body: bytes) -> bytes:
        log.debug("PACKET_IN on port %d: header says %d bytes, got %d", port, more,
                  len(body))
        return body[:more] if 0 <= more < len(body) else body

    def _port_up(self, port: int) -> bool:
        info = self._ports.get(port)
        if info is None or not info.up:
            log.debug("frame on port %d ignored: port not added or down", port)
            return False
        return True

    def _handle(self, msg: bytes) -> None:
        try:
            msg_type, port, more, body = unpack_message(msg)
        except ValueError as error:
            log.error("%s", error)
            return
        if msg_type == MSG_PACKET_IN:
            if more != len(body):
                body = self._fix_length(port, more, body)
            if not self.enforce_ports or self._port_up(port):
                self._deliver_frames([(port, body)])
        elif msg_type == MSG_PORT_ADD:
            self._port_add(port)
        elif msg_type == MSG_PORT_REMOVE:
            self._port_remove(port)
        elif msg_type == MSG_PORT_SET_STATUS:
            if more in (PORT_STATUS_DOWN, PORT_STATUS_UP):
                self._port_set_status(port, more == PORT_STATUS_UP)
            else:
                log.error("unknown port status %d requested for port %d", more, port)
        elif msg_type == MSG_INFO_REQ:
            reply = HEADER.pack(MSG_INFO_REP, port, more) + _INFO_STATUS.pack(
                INFO_STATUS_NOT_SUPPORTED)
            self._transport.send_many([reply], SEND_TIMEOUT_MS / 1000)
        elif msg_type == MSG_PACKET_OUT:
            log.error("invalid PACKET_OUT message received")
        elif msg_type == MSG_INFO_REP:
            log.error("invalid INFO_REP message received")
        else:
            log.error("unknown message type %d", msg_type)

    def _event(self, port: int, event: str) -> None:
        log.debug("port %d %s", port, event)
        if self.on_port_event is not None:
            self.on_port_event(port, event)

    def _port_add(self, port: int) -> None:
        with self._lock:
            if port in self._ports:
                return
            self._ports[port] = PortInfo(port, self.addr, True)
        self._event(port, "added")
        self._event(port, "up")

    def _port_remove(self, port: int) -> None:
        with self._lock:
            if self._ports.pop(port, None) is None:
                return
        self._event(port, "removed")

    def _port_set_status(self, port: int, up: bool) -> None:
        with self._lock:
            info = self._ports.get(port)
            if info is None:
                return
            info.up = up
        self._event(port, "up" if up else "down")
