"""The SP wire protocol of nanomsg / NNG stream transports, shared by both ends of a
connection (:mod:`.sp` listens, :mod:`.sp_dialer` dials).

nanomsg's ``sp-tcp-mapping`` and ``sp-ipc-mapping`` RFCs (and NNG's
``src/sp/transport/{ipc,tcp}``): after connecting, each side sends 8 bytes
``00 'S' 'P' 00``, its protocol number (big-endian 16 bits; PAIR v0 is 0x10) and two
zero bytes, and checks the peer's. Then every message is framed as

* ``ipc://``: one byte ``1`` (message type), the length as a big-endian 64-bit
  integer, the body;
* ``tcp://``: the length (big-endian 64 bits), the body.

PAIR v0 adds no header to the body.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

__all__ = [
    "MAX_MESSAGE",
    "PAIR0",
    "SPProtocolError",
    "SPStreamParser",
    "check_hello",
    "frame_messages",
    "hello",
    "parse_address",
]

PAIR0 = 0x10  # protocol number of PAIR v0 (its peer is PAIR v0 too)
MAX_MESSAGE = 1 << 20  # NNG's default NNG_OPT_RECVMAXSZ; a larger message closes the pipe

_IPC_HEAD = struct.Struct(">BQ")  # message type (1), length
_TCP_HEAD = struct.Struct(">Q")  # length


class SPProtocolError(Exception):
    """The peer broke the SP framing or handshake; its connection is closed."""


def hello(protocol: int) -> bytes:
    return b"\x00SP\x00" + protocol.to_bytes(2, "big") + b"\x00\x00"


def check_hello(header: bytes, protocol: int) -> None:
    """SPProtocolError unless ``header`` (8 bytes) is a PAIR peer's handshake."""
    if header[:4] != b"\x00SP\x00" or header[6:8] != b"\x00\x00":
        raise SPProtocolError("the peer does not speak SP")
    theirs = int.from_bytes(header[4:6], "big")
    if theirs != protocol:
        raise SPProtocolError(f"peer protocol 0x{theirs:x} is not 0x{protocol:x}")


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


def frame_messages(messages: Sequence[bytes], ipc: bool) -> bytes:
    """``messages`` framed for the stream, back to back, ready for one ``send``."""
    parts: list[bytes] = []
    add = parts.append
    if ipc:
        head = _IPC_HEAD.pack
        for msg in messages:
            add(head(1, len(msg)))
            add(msg)
    else:
        head = _TCP_HEAD.pack
        for msg in messages:
            add(head(len(msg)))
            add(msg)
    return b"".join(parts)


class SPStreamParser:
    """Cuts a received byte stream into messages; a message split across reads is
    kept until the rest arrives. SPProtocolError on a bad frame (then discard the
    parser with its connection)."""

    def __init__(self, ipc: bool, max_message: int = MAX_MESSAGE) -> None:
        self.ipc = ipc
        self.max_message = max_message
        self._head = _IPC_HEAD.size if ipc else _TCP_HEAD.size
        self._unpack = _IPC_HEAD.unpack_from if ipc else _TCP_HEAD.unpack_from
        self._rx = bytearray()  # an incomplete message
        self._need = 0  # bytes ``_rx`` must hold before it is worth parsing

    def reset(self) -> None:
        self._rx.clear()
        self._need = 0

    @property
    def pending(self) -> int:
        """Bytes of an incomplete message held."""
        return len(self._rx)

    def feed(self, data: bytes, msgs: list[bytes]) -> None:
        """Append the messages completed by ``data`` to ``msgs``."""
        rx = self._rx
        if rx:
            rx += data
            if len(rx) < self._need:
                return
            data = bytes(rx)
            rx.clear()
        head = self._head
        unpack = self._unpack
        ipc = self.ipc
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
            self._need = need
