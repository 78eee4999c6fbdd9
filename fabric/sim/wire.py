"""The socket pair between the processes of a partitioned run (``fabric.sim.partition``):
pickled messages, each after its length in 4 bytes.

A run exchanges two messages per window of virtual time (thousands of windows of a
few frames each), so what a message costs beyond its bytes is on the run's critical
path. ``multiprocessing.connection.Connection`` spent about 9 us more per message
sent and received than this: its pickler goes through a BytesIO, a message takes two
reads, and ``poll`` builds a selector each time, which the spinning side
(``fabric.sim.spin``) calls thousands of times per run.
"""

from __future__ import annotations

import pickle
import select
import socket
import struct

_LENGTH = struct.Struct("!I")
_READ = 1 << 16  # bytes asked of the socket per read


class Wire:
    """One end: ``send`` an object, ``poll`` for and ``recv`` the next one. EOFError
    when the other end has closed; OSError when the socket fails."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()  # what has been read past the last whole message
        # what ``recv`` raises once the messages read are used up: EOFError when the
        # other end closed, or the OSError a read met while polling
        self._ended: Exception | None = None

    @classmethod
    def from_fd(cls, fd: int) -> Wire:
        """The end whose socket is file descriptor ``fd`` (inherited from the parent)."""
        return cls(socket.socket(fileno=fd))

    def fileno(self) -> int:
        return self._sock.fileno()

    def send(self, message: object) -> None:
        data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
        self._sock.sendall(_LENGTH.pack(len(data)) + data)

    def poll(self, timeout_s: float) -> bool:
        """Whether a message (or the end of the stream) can be read within
        ``timeout_s`` seconds (0: without waiting). What the socket holds then is read
        at once: the ``recv`` that follows, once a window, needs no system call."""
        if self._whole() or self._ended is not None:
            return True
        ready, _, _ = select.select([self._sock], [], [], timeout_s)
        if ready:
            try:
                self._read()
            except OSError as err:  # told by the recv that follows, as it would be
                self._ended = err
        return bool(ready)

    def recv(self) -> object:
        """The next message, waiting for it as long as it takes."""
        while not (end := self._whole()):
            if self._ended is not None:
                raise self._ended
            self._read()
        message = pickle.loads(self._buffer[_LENGTH.size:end])
        del self._buffer[:end]
        return message

    def _read(self) -> None:
        """What the socket has (waiting for something if it has nothing)."""
        chunk = self._sock.recv(_READ)
        if chunk:
            self._buffer += chunk
        else:
            self._ended = EOFError("the other process closed its end")

    def _whole(self) -> int:
        """Where the buffer's first message ends, its length included; 0 while the
        buffer holds no whole message."""
        buffer = self._buffer
        if len(buffer) < _LENGTH.size:
            return 0
        end = _LENGTH.size + _LENGTH.unpack_from(buffer)[0]
        return end if len(buffer) >= end else 0

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Wire:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
