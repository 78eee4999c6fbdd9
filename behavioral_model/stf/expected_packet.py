"""The packet an STF ``expect`` line describes, and how to compare a real packet to it.

Like p4c's runner, the comparison is per hex nibble: ``*`` matches any nibble and the
received packet may be longer than the pattern - unless the pattern ends with ``$``,
in which case it must end exactly there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ExpectedPacket"]

_HEX_DIGITS = frozenset("0123456789ABCDEF")
_BYTES_PER_ROW = 16


@dataclass(frozen=True)
class ExpectedPacket:
    """``nibbles`` holds upper-case hex digits and ``*``; ``exact_length`` is the
    ``$`` mark (no bytes may follow)."""

    nibbles: str
    exact_length: bool = False
    _value: int = field(init=False, repr=False, compare=False)
    _mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        nibbles = self.nibbles.upper()
        bad = set(nibbles) - _HEX_DIGITS - {"*"}
        if bad:
            raise ValueError(f"invalid packet pattern characters: {''.join(sorted(bad))}")
        if self.exact_length and len(nibbles) % 2:
            raise ValueError("a pattern ending in '$' needs whole bytes (an even digit count)")
        object.__setattr__(self, "nibbles", nibbles)
        # Precompute value/mask integers so matching is a couple of big-int operations.
        care = "".join("0" if c == "*" else "F" for c in nibbles)
        object.__setattr__(self, "_mask", int(care, 16) if nibbles else 0)
        object.__setattr__(
            self, "_value", int(nibbles.replace("*", "0"), 16) if nibbles else 0
        )

    @classmethod
    def from_text(cls, text: str) -> ExpectedPacket:
        """From STF data such as ``"0a0b ** 0c $"`` (spaces ignored, ``$`` last)."""
        compact = "".join(text.split())
        exact = compact.endswith("$")
        return cls(compact.removesuffix("$"), exact)

    @property
    def min_length(self) -> int:
        """Bytes a matching packet has at least (exactly, with ``$``)."""
        return (len(self.nibbles) + 1) // 2

    def matches(self, actual: bytes) -> bool:
        if self.exact_length:
            if len(actual) * 2 != len(self.nibbles):
                return False
        elif len(actual) < self.min_length:
            return False
        if not self.nibbles:
            return True
        prefix = int.from_bytes(actual[: self.min_length], "big")
        if len(self.nibbles) % 2:
            prefix >>= 4  # the pattern ends in the middle of a byte
        return prefix & self._mask == self._value

    def first_mismatch(self, actual: bytes) -> int | None:
        """Index of the first differing *nibble* (the length if the packet is too
        short or, with ``$``, too long); None if ``actual`` matches."""
        if self.matches(actual):
            return None
        received = actual.hex().upper()
        for i, want in enumerate(self.nibbles):
            if i >= len(received):
                return i
            if want != "*" and want != received[i]:
                return i
        return len(self.nibbles)

    def diff(self, actual: bytes) -> str:
        """A readable report: lengths, the first difference, and both packets as
        hex side by side (16 bytes a row, ``>`` on the row that differs first and
        ``^^`` under the byte). Empty string if ``actual`` matches."""
        nibble = self.first_mismatch(actual)
        if nibble is None:
            return ""
        byte = nibble // 2
        length_note = "exactly" if self.exact_length else "at least"
        lines = [
            f"expected {length_note} {self.min_length} bytes, received {len(actual)} bytes",
        ]
        if nibble >= len(self.nibbles):
            lines.append(f"received packet is too long (extra bytes from offset {byte})")
        elif byte >= len(actual):
            lines.append(f"received packet is too short (ends at offset {len(actual)})")
        else:
            lines.append(f"first difference at byte {byte} (offset {byte:#06x})")
        expected_bytes = self._expected_byte_texts()
        rows = max(len(expected_bytes), len(actual)) + _BYTES_PER_ROW - 1
        width = _BYTES_PER_ROW * 3 - 1
        lines.append(f"  offset  {'expected':<{width}}  received")
        for row in range(rows // _BYTES_PER_ROW):
            start = row * _BYTES_PER_ROW
            stop = start + _BYTES_PER_ROW
            left = " ".join(expected_bytes[start:stop])
            right = " ".join(f"{b:02x}" for b in actual[start:stop])
            marker = ">" if start <= byte < stop else " "
            lines.append(f"{marker} {start:06x}  {left:<{width}}  {right}".rstrip())
            if marker == ">":
                column = 10 + (byte - start) * 3
                lines.append(" " * column + "^^")
        return "\n".join(lines)

    def _expected_byte_texts(self) -> list[str]:
        text = self.nibbles.lower()
        return [text[i : i + 2] for i in range(0, len(text), 2)]

    def __str__(self) -> str:
        return " ".join(self._expected_byte_texts()) + (" $" if self.exact_length else "")
