"""P4Runtime binary strings <-> Python ints (P4Runtime spec, section "Bytestrings").

On input any length is accepted as long as the value fits the P4Info bitwidth: leading
zero bytes (or sign-extension bytes for ``int<W>``) are fine, an empty string is not.
On output the canonical (shortest) form is used: ``0`` is ``b"\\x00"``.
"""

from __future__ import annotations

from google.rpc import code_pb2

from .errors import P4RTError

__all__ = ["encode_uint", "decode_uint", "encode_int", "decode_int", "min_bytes"]


def min_bytes(width: int) -> int:
    return max(1, (width + 7) // 8)


def encode_uint(value: int) -> bytes:
    """Shortest big-endian string for a non-negative ``value``."""
    if value < 0:
        raise ValueError(f"cannot encode negative value {value} as unsigned")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def decode_uint(data: bytes, width: int, what: str,
                code: int = code_pb2.INVALID_ARGUMENT) -> int:
    """The unsigned value of ``data``; P4RTError(``code``) if empty or wider than
    ``width`` bits once leading zeros are dropped."""
    if not data:
        raise P4RTError(code, f"{what}: empty byte string")
    value = int.from_bytes(data, "big")
    if value >> width:
        raise P4RTError(code, f"{what}: value 0x{data.hex()} does not fit in {width} bits")
    return value


def encode_int(value: int) -> bytes:
    """Shortest two's-complement big-endian string for a signed ``value``."""
    length = 1
    while not -(1 << (8 * length - 1)) <= value < (1 << (8 * length - 1)):
        length += 1
    return value.to_bytes(length, "big", signed=True)


def decode_int(data: bytes, width: int, what: str,
               code: int = code_pb2.INVALID_ARGUMENT) -> int:
    """The signed value of ``data`` (sign extension allowed); must fit ``int<width>``."""
    if not data:
        raise P4RTError(code, f"{what}: empty byte string")
    value = int.from_bytes(data, "big", signed=True)
    if not -(1 << (width - 1)) <= value < (1 << (width - 1)):
        raise P4RTError(code, f"{what}: value 0x{data.hex()} does not fit in int<{width}>")
    return value
