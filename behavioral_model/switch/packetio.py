"""Controller packet headers (``@controller_header("packet_in")`` / ``("packet_out")``)
as BMv2 ``simple_switch_grpc`` handles them, from the P4Info alone.

The header is the P4Info ``ControllerPacketMetadata`` fields in order, each
``bitwidth`` bits, most significant bit first, padded with zero bits to a whole number
of bytes (PI's packet I/O manager does the same). Packet-in: a packet that leaves on
the CPU port starts with the ``packet_in`` header; it is parsed into
``{field name: int}`` and stripped. Packet-out: the ``packet_out`` header is built from
the PacketOut metadata (missing fields are 0) and prepended to the payload, and the
result enters ingress on the CPU port. A program without one of the headers exchanges
bare payloads in that direction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ControllerHeader", "PacketIOCodec", "PacketIOError"]


class PacketIOError(ValueError):
    """Bad packet-out metadata, or a packet-in too short for its header."""


@dataclass(frozen=True)
class ControllerHeader:
    """One controller header: ``fields`` are (id, name, bitwidth) in wire order."""

    name: str
    fields: tuple[tuple[int, str, int], ...]

    @property
    def width_bits(self) -> int:
        return sum(width for _, _, width in self.fields)

    @property
    def size(self) -> int:
        """Bytes on the wire (bits rounded up to a byte)."""
        return (self.width_bits + 7) // 8

    def encode(self, values: Mapping[str | int, int | bytes]) -> bytes:
        """The header bytes; ``values`` is keyed by field name or P4Info id, each an
        int or a big-endian byte string (P4Runtime's encoding)."""
        known = {name for _, name, _ in self.fields} | {fid for fid, _, _ in self.fields}
        unknown = [k for k in values if k not in known]
        if unknown:
            raise PacketIOError(f"{self.name}: unknown metadata {unknown!r}")
        acc = 0
        for fid, name, width in self.fields:
            value = values.get(name, values.get(fid, 0))
            if isinstance(value, bytes | bytearray):  # P4Runtime canonical bytestring
                value = int.from_bytes(value, "big")
            if not isinstance(value, int) or value < 0 or value >> width:
                raise PacketIOError(f"{self.name}.{name}: value {value!r} does not fit "
                                    f"in {width} bits")
            acc = (acc << width) | value
        pad = self.size * 8 - self.width_bits
        return (acc << pad).to_bytes(self.size, "big")

    def decode(self, data: bytes) -> tuple[dict[str, int], bytes]:
        """(metadata by field name, payload after the header)."""
        size = self.size
        if len(data) < size:
            raise PacketIOError(f"{self.name}: packet of {len(data)} bytes is shorter "
                                f"than the {size}-byte header")
        acc = int.from_bytes(data[:size], "big") >> (size * 8 - self.width_bits)
        values: dict[str, int] = {}
        for _, name, width in reversed(self.fields):
            values[name] = acc & ((1 << width) - 1)
            acc >>= width
        return dict(reversed(values.items())), data[size:]


class PacketIOCodec:
    """The packet_in / packet_out headers of one P4Info (either may be None)."""

    def __init__(self, p4info: Any | None) -> None:
        self.packet_in: ControllerHeader | None = None
        self.packet_out: ControllerHeader | None = None
        if p4info is None:
            return
        for cpm in p4info.controller_packet_metadata:
            header = ControllerHeader(
                cpm.preamble.name,
                tuple((m.id, m.name, m.bitwidth) for m in cpm.metadata))
            if cpm.preamble.name == "packet_in":
                self.packet_in = header
            elif cpm.preamble.name == "packet_out":
                self.packet_out = header

    def to_controller(self, data: bytes) -> tuple[bytes, dict[str, int]]:
        """A packet leaving on the CPU port -> (payload, packet_in metadata)."""
        if self.packet_in is None:
            return data, {}
        metadata, payload = self.packet_in.decode(data)
        return payload, metadata

    def from_controller(self, payload: bytes,
                        metadata: Mapping[str | int, int | bytes]) -> bytes:
        """A PacketOut -> the bytes that enter ingress on the CPU port."""
        if self.packet_out is None:
            if metadata:
                raise PacketIOError("the program has no @controller_header(\"packet_out\") "
                                    "header, but metadata was given")
            return payload
        return self.packet_out.encode(metadata) + payload
