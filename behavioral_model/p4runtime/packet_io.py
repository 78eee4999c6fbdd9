"""Controller packet headers (``@controller_header("packet_in"/"packet_out")``).

As in BMv2, a packet-out is injected on the CPU port with the ``packet_out`` header
serialized in front of the payload, and a packet the pipeline sends to the CPU port
starts with the ``packet_in`` header. A header is its fields' bits concatenated,
most significant first, in P4Info order; the P4 header is byte-aligned, so the total
is padded up to whole bytes at the end (never happens for valid programs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from behavioral_model.frontend import ast
from behavioral_model.frontend.checker import CheckedProgram
from behavioral_model.frontend.p4info_types import string_annotation
from behavioral_model.pipeline.values import bit_width

__all__ = ["ControllerHeader", "controller_header", "program_controller_header"]


@dataclass(frozen=True)
class ControllerHeader:
    """Field layout of one controller header: ``(id, name, bitwidth)`` in order."""

    name: str
    fields: tuple[tuple[int, str, int], ...]

    @property
    def width(self) -> int:
        return sum(w for _, _, w in self.fields)

    @property
    def length(self) -> int:
        """Length of the serialized header in bytes."""
        return (self.width + 7) // 8

    def pack(self, values: Mapping[str, int]) -> bytes:
        """Serialize; missing fields are 0, values are truncated to their width."""
        acc = 0
        for _, name, width in self.fields:
            acc = (acc << width) | (values.get(name, 0) & ((1 << width) - 1))
        pad = self.length * 8 - self.width
        return (acc << pad).to_bytes(self.length, "big") if self.length else b""

    def unpack(self, frame: bytes) -> tuple[dict[str, int], bytes]:
        """Split ``frame`` into the header's field values and the rest. A frame shorter
        than the header yields zeros for the missing bits."""
        length = self.length
        head = frame[:length].ljust(length, b"\x00")
        acc = int.from_bytes(head, "big") >> (length * 8 - self.width) if length else 0
        values: dict[str, int] = {}
        shift = self.width
        for _, name, width in self.fields:
            shift -= width
            values[name] = (acc >> shift) & ((1 << width) - 1)
        return values, frame[length:]


def controller_header(p4info: p4info_pb2.P4Info, which: str) -> ControllerHeader | None:
    """The ``packet_in`` or ``packet_out`` header of ``p4info``, or None."""
    for cpm in p4info.controller_packet_metadata:
        if cpm.preamble.name == which:
            return ControllerHeader(
                which, tuple((m.id, m.name, m.bitwidth) for m in cpm.metadata)
            )
    return None


def program_controller_header(checked: CheckedProgram, which: str) -> ControllerHeader | None:
    """The ``which`` controller header as the P4 program lays it out, hidden fields
    included (P4Info leaves out ``@hidden`` fields such as padding); field ids are
    0 here, fields are matched by name."""
    for decl in checked.program.decls:
        if isinstance(decl, ast.HeaderDecl) and \
                string_annotation(decl, "controller_header") == which:
            return ControllerHeader(which, tuple(
                (0, f.name, bit_width(f.type_ref.resolved)) for f in decl.fields
            ))
    return None
