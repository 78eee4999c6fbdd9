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
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable

import pynng

from . import Deliver, PortInfo

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
BUFFER_MESSAGES = 1024  # NNG socket buffers, to absorb bursts

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


class NanomsgPorts:
    """All ports behind one NNG PAIR socket bound at ``addr``."""

    def __init__(self, addr: str, enforce_ports: bool = False,
                 on_port_event: PortEvent | None = None) -> None:
        if not addr.startswith(("ipc://", "tcp://", "inproc://")):
            raise ValueError(f"packet-in address {addr!r}: expected ipc://PATH or "
                             "tcp://HOST:PORT")
        self.addr = addr
        self.enforce_ports = enforce_ports
        self.on_port_event = on_port_event
        self.rx_messages = 0
        self.tx_frames = 0
        self.tx_dropped = 0
        self._ports: dict[int, PortInfo] = {}
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._deliver: Deliver | None = None
        self._peers = 0
        self._sock = pynng.Pair0(recv_timeout=RECV_TIMEOUT_MS, send_timeout=SEND_TIMEOUT_MS,
                                 send_buffer_size=BUFFER_MESSAGES,
                                 recv_buffer_size=BUFFER_MESSAGES)
        self._sock.add_post_pipe_connect_cb(self._peer_connected)
        self._sock.add_post_pipe_remove_cb(self._peer_removed)
        try:
            self._sock.listen(addr)
        except pynng.NNGException as error:
            self._sock.close()
            raise OSError(f"cannot listen on {addr}: {error}") from None

    # -- PortBackend --------------------------------------------------------------------
    def start(self, deliver: Deliver) -> None:
        if self._thread is not None:
            return
        self._deliver = deliver
        self._thread = threading.Thread(target=self._receive_loop, name="bm-nn-rx",
                                        daemon=True)
        self._thread.start()

    def owns(self, port: int) -> bool:
        return True

    def port_info(self) -> dict[int, PortInfo]:
        with self._lock:
            return {p: PortInfo(i.port, i.name, i.up) for p, i in self._ports.items()}

    @property
    def connected(self) -> bool:
        return self._peers > 0

    def transmit(self, port: int, data: bytes) -> None:
        """Send a PACKET_OUT; dropped (and counted) when no peer is connected or the
        peer does not drain its socket within a second."""
        if self._stop.is_set():
            return
        if not self._peers:
            self.tx_dropped += 1
            log.debug("port %d: no peer on %s, frame dropped", port, self.addr)
            return
        msg = HEADER.pack(MSG_PACKET_OUT, port, len(data)) + data
        try:
            with self._send_lock:
                self._sock.send(msg)
        except (pynng.Timeout, pynng.Closed) as error:
            self.tx_dropped += 1
            log.warning("port %d: frame dropped on %s (%s)", port, self.addr,
                        type(error).__name__)
            return
        self.tx_frames += 1

    def close(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._sock.close()

    # -- internals ----------------------------------------------------------------------
    def _peer_connected(self, _pipe: pynng.Pipe) -> None:
        self._peers += 1
        log.info("peer connected to %s", self.addr)

    def _peer_removed(self, _pipe: pynng.Pipe) -> None:
        self._peers = max(0, self._peers - 1)
        log.info("peer disconnected from %s", self.addr)

    def _receive_loop(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self._sock.recv()
            except pynng.Timeout:
                continue
            except pynng.Closed:
                break
            except pynng.NNGException as error:  # pragma: no cover - transport error
                log.error("receive on %s failed: %s", self.addr, error)
                continue
            self.rx_messages += 1
            try:
                self._handle(msg)
            except Exception:  # never let one bad message kill the port
                log.exception("error while handling a message from %s", self.addr)

    def _handle(self, msg: bytes) -> None:
        try:
            msg_type, port, more, body = unpack_message(msg)
        except ValueError as error:
            log.error("%s", error)
            return
        if msg_type == MSG_PACKET_IN:
            if log.isEnabledFor(TRACE):
                log.log(TRACE, "packet in received on port %d (%d bytes)", port, len(body))
            if self.enforce_ports:
                info = self._ports.get(port)
                if info is None or not info.up:
                    log.debug("frame on port %d ignored: port not added or down", port)
                    return
            if more != len(body):
                log.debug("PACKET_IN on port %d: header says %d bytes, got %d", port,
                          more, len(body))
                body = body[:more] if 0 <= more < len(body) else body
            if self._deliver is not None:
                self._deliver(port, body)
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
            try:
                with self._send_lock:
                    self._sock.send(reply)
            except (pynng.Timeout, pynng.Closed):
                pass
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
