"""``--pcap DIR``: every frame a port receives or sends, in classic pcap files.

As BMv2 does for its interfaces, each port gets ``NAME_in.pcap`` and ``NAME_out.pcap``
in DIR, where NAME is the interface name for ``-i PORT@IFACE`` ports and ``portN``
otherwise (nanomsg ports have no interface name). Files are opened on a port's first
frame and flushed after every record, so they can be read while the switch runs.

The format (libpcap 2.4, microsecond timestamps, LINKTYPE_ETHERNET) is written here
directly; :func:`read_pcap` reads it back for tests.
"""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path
from typing import BinaryIO

__all__ = ["PcapWriter", "PcapRecorder", "read_pcap"]

_MAGIC = 0xA1B2C3D4
_GLOBAL = struct.Struct("<IHHiIII")  # magic, v2, v4, thiszone, sigfigs, snaplen, linktype
_RECORD = struct.Struct("<IIII")  # ts_sec, ts_usec, incl_len, orig_len
LINKTYPE_ETHERNET = 1
SNAPLEN = 262144


class PcapWriter:
    """One pcap file."""

    def __init__(self, path: str | Path, snaplen: int = SNAPLEN) -> None:
        self.path = Path(path)
        self.snaplen = snaplen
        self._file: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115
        self._file.write(_GLOBAL.pack(_MAGIC, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))
        self._file.flush()

    def write(self, data: bytes, timestamp: float | None = None) -> None:
        if self._file is None:
            return
        ts = time.time() if timestamp is None else timestamp
        sec = int(ts)
        usec = int((ts - sec) * 1e6)
        incl = data[: self.snaplen]
        self._file.write(_RECORD.pack(sec, usec, len(incl), len(data)) + incl)
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class PcapRecorder:
    """Per-port in/out pcap files in one directory (thread-safe)."""

    def __init__(self, directory: str | Path, names: dict[int, str] | None = None) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise FileNotFoundError(f"directory '{directory}' specified with '--pcap' "
                                    "does not exist")
        self.names = dict(names or {})
        self._writers: dict[tuple[int, str], PcapWriter] = {}
        self._lock = threading.Lock()
        self._closed = False

    def path(self, port: int, direction: str) -> Path:
        name = self.names.get(port, f"port{port}")
        return self.directory / f"{name}_{direction}.pcap"

    def _write(self, port: int, direction: str, data: bytes) -> None:
        with self._lock:
            if self._closed:
                return
            writer = self._writers.get((port, direction))
            if writer is None:
                writer = self._writers[(port, direction)] = PcapWriter(
                    self.path(port, direction))
            writer.write(data)

    def received(self, port: int, data: bytes) -> None:
        self._write(port, "in", data)

    def sent(self, port: int, data: bytes) -> None:
        self._write(port, "out", data)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for writer in self._writers.values():
                writer.close()
            self._writers.clear()


def read_pcap(path: str | Path) -> list[tuple[float, bytes]]:
    """(timestamp, frame) records of a pcap file written by :class:`PcapWriter`
    (little-endian, microsecond timestamps)."""
    raw = Path(path).read_bytes()
    magic = struct.unpack_from("<I", raw)[0]
    if magic != _MAGIC:
        raise ValueError(f"{path}: not a little-endian microsecond pcap file")
    out: list[tuple[float, bytes]] = []
    pos = _GLOBAL.size
    while pos + _RECORD.size <= len(raw):
        sec, usec, incl, _ = _RECORD.unpack_from(raw, pos)
        pos += _RECORD.size
        out.append((sec + usec / 1e6, raw[pos:pos + incl]))
        pos += incl
    return out
