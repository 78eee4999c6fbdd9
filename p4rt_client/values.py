"""Control-plane values: how they are written (BMv2 CLI notation, shared with STF
files) and their P4Runtime byte strings.

Written forms: decimal (``10``), hex (``0x0a``), binary (``0b1010``), and for
addresses a MAC (``00:11:22:33:44:55``), an IPv4 (``10.0.0.1``) or an IPv6 address
(``2001:db8::1``).
"""

from __future__ import annotations

import ipaddress

__all__ = ["Value", "parse_int", "parse_value", "to_int", "encode_value", "decode_value"]

Value = int | bytes | str


def parse_int(text: str) -> int:
    """A number written in decimal, ``0x`` hex or ``0b`` binary; ValueError if not.
    Decimal may have leading zeros (``010`` is ten, as BMv2's CLI reads it)."""
    prefix = text[:2].lower()
    digits, base = (text[2:], 16 if prefix == "0x" else 2) if prefix in ("0x", "0b") \
        else (text, 10)
    if not digits.isalnum() or not digits.isascii():  # int() would take "_", "+", " "
        raise ValueError(f"'{text}' is not a number")
    try:
        return int(digits, base)
    except ValueError:
        raise ValueError(f"'{text}' is not a number") from None


def _is_mac(text: str) -> bool:
    parts = text.split(":")
    return len(parts) == 6 and all(len(p) in (1, 2) for p in parts)


def parse_value(text: str) -> int:
    """A number (see :func:`parse_int`) or a MAC, IPv4 or IPv6 address."""
    text = text.strip()
    if _is_mac(text):
        try:
            return int("".join(p.zfill(2) for p in text.split(":")), 16)
        except ValueError:
            pass  # e.g. an IPv6 address with six groups: tried below
    if ":" in text or text.count(".") == 3:
        try:
            return int(ipaddress.ip_address(text))
        except ValueError:
            raise ValueError(f"'{text}' is not a valid address") from None
    return parse_int(text)


def to_int(value: Value) -> int:
    """An int from an int, big-endian bytes or written text (:func:`parse_value`)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, bytes | bytearray):
        return int.from_bytes(value, "big")
    if isinstance(value, str):
        return parse_value(value)
    raise TypeError(f"cannot encode {value!r} as a P4Runtime value")


def encode_value(value: Value, bitwidth: int, canonical: bool = True) -> bytes:
    """The P4Runtime byte string of ``value`` for a ``bitwidth``-bit field; ValueError
    if it does not fit (negative ints are taken modulo 2**bitwidth). ``canonical``:
    the shortest string (P4Runtime 1.4, 8.4), else padded to the full width."""
    number = to_int(value)
    if number < 0:
        number &= (1 << bitwidth) - 1
    if bitwidth and number >> bitwidth:
        raise ValueError(f"value {value!r} does not fit in {bitwidth} bits")
    width = max(1, (bitwidth + 7) // 8)
    if canonical:
        width = max(1, (number.bit_length() + 7) // 8)
    return number.to_bytes(width, "big")


def decode_value(data: bytes) -> int:
    return int.from_bytes(data, "big")
