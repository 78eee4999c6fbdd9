"""v1model hash and checksum algorithms, matching BMv2 ``simple_switch``.

The executor uses this module for the v1model externs

* ``hash(out O result, in HashAlgorithm algo, in T base, in D data, in M max)``
* ``verify_checksum`` / ``update_checksum`` and their ``_with_payload`` forms.

It hands over the data as a sequence of ``(value, width_in_bits)`` fields (the
tuple elements in order, a varbit with its current width) plus, for the payload
forms, the payload bytes (the part of the packet the parser did not extract).

How BMv2 does it (our reading of the BMv2 sources, re-implemented here):

1. p4c (``backends/bmv2``) turns the data list into a JSON "calculation" whose
   ``input`` is the list of fields (constants get their type's width as
   ``bitwidth``; a struct or header argument is expanded into its fields), plus a
   trailing ``{"type": "payload"}`` entry for the ``_with_payload`` forms.
   ``hash()`` becomes the primitive ``modify_field_with_hash_based_offset(dst,
   base, calculation, max)``.
2. BMv2 turns the input into a byte buffer (``BufBuilder`` in
   ``src/bm_sim/calculations.cpp``), see :func:`serialize_fields`.  Fields of an
   *invalid* header are skipped entirely, so the caller must leave them out of
   ``fields``.
3. It runs the named hash function over the buffer; every function returns a
   ``uint64_t`` (:func:`hash_bytes` / :func:`compute`).
4. ``hash()`` then stores ``base + H % max`` into the destination (max 0 is
   treated as 1), see :func:`hash_result`.  ``update_checksum`` stores ``H``
   into the checksum field, ``verify_checksum`` compares ``H`` with the field
   value (``src/bm_sim/checksums.cpp``); both truncate/compare as the
   executor's field semantics dictate.

Nothing here keeps state between calls, apart from CRC tables (built once at
import for the built-in variants, and memoised per :class:`CrcParams` for the
control-plane-configured ``*_custom`` variants).
"""

from __future__ import annotations

import random
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache, reduce
from operator import xor

__all__ = [
    "CRC16_PARAMS",
    "CRC32_PARAMS",
    "DEFAULT_CUSTOM_PARAMS",
    "CrcParams",
    "HashAlgorithm",
    "compute",
    "crc",
    "hash_bytes",
    "hash_result",
    "parse_algorithm",
    "serialize_fields",
]

_MASK64 = (1 << 64) - 1
_LITTLE_ENDIAN_HOST = sys.byteorder == "little"


class HashAlgorithm(StrEnum):
    """v1model's ``enum HashAlgorithm``: same member names, same order.

    A ``StrEnum`` (so also a ``str``): each member's value is its name.
    """

    crc32 = "crc32"
    crc32_custom = "crc32_custom"
    crc16 = "crc16"
    crc16_custom = "crc16_custom"
    random = "random"
    identity = "identity"
    csum16 = "csum16"
    xor16 = "xor16"


_VALID_NAMES = ", ".join(a.value for a in HashAlgorithm)


def parse_algorithm(algo: HashAlgorithm | str) -> HashAlgorithm:
    """Return the :class:`HashAlgorithm` for ``algo`` (a member or its exact name).

    Raises ``ValueError`` for a name that is not a v1model hash algorithm.
    """
    if isinstance(algo, HashAlgorithm):
        return algo
    if not isinstance(algo, str):
        raise TypeError(f"hash algorithm must be a HashAlgorithm or str, not {type(algo).__name__}")
    try:
        return HashAlgorithm(algo)
    except ValueError:
        raise ValueError(
            f"unknown hash algorithm {algo!r}; v1model HashAlgorithm is one of: {_VALID_NAMES}"
        ) from None


# --------------------------------------------------------------------------
# Field list -> byte buffer
# --------------------------------------------------------------------------


def serialize_fields(fields: Sequence[tuple[int, int]]) -> bytes:
    """Pack ``(value, width)`` fields into the byte buffer BMv2 hashes.

    BMv2 (``BufBuilder::Deparse`` in ``src/bm_sim/calculations.cpp``, using
    ``extract::generic_deparse`` from ``src/bm_sim/extract.h``) writes the
    fields one after another as a single big-endian *bit* string: each field
    starts at the bit right after the previous one (no per-field byte
    alignment), most significant bit first.  The buffer is grown to
    ``ceil(total_bits / 8)`` bytes filled with zeros, so when the total width is
    not a multiple of 8 the padding is ``(-total_bits) % 8`` zero bits at the
    very *end* (the low-order bits of the last byte), never at the front and
    never between fields.  E.g. ``[(0b1, 1), (0b0101, 4)]`` -> ``0b10101000``.

    Zero-width fields (an empty varbit) contribute nothing.  Values are reduced
    modulo ``2**width`` (so a negative ``int<W>`` value is taken in two's
    complement, as BMv2 stores it).
    """
    acc = 0
    nbits = 0
    for value, width in fields:
        if width < 0:
            raise ValueError(f"field width must be >= 0, got {width}")
        acc = (acc << width) | (value & ((1 << width) - 1))
        nbits += width
    pad = -nbits % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big")


# --------------------------------------------------------------------------
# CRC engine
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CrcParams:
    """CRC parameters in the Rocksoft / "reveng" model, as BMv2 takes them.

    This is BMv2's ``crc_config_t`` (``polynomial``, ``initial_remainder``,
    ``final_xor_value``, ``data_reflected``, ``remainder_reflected``) plus the
    width.  ``poly`` is given without its top bit; ``init`` is loaded into the
    (unreflected) shift register before the first byte; each input byte is
    bit-reversed first if ``reflect_in``; the final register is bit-reversed if
    ``reflect_out``; then XORed with ``xor_out``.
    """

    width: int
    poly: int
    init: int = 0
    xor_out: int = 0
    reflect_in: bool = False
    reflect_out: bool = False

    def __post_init__(self) -> None:
        if not 8 <= self.width <= 64:
            raise ValueError(f"CRC width must be between 8 and 64 bits, got {self.width}")
        limit = 1 << self.width
        for name in ("poly", "init", "xor_out"):
            value = getattr(self, name)
            if not 0 <= value < limit:
                raise ValueError(f"CRC {name}={value:#x} does not fit in width {self.width}")


# crc16: BMv2's ``struct crc16`` uses ``table_crc16`` (src/bm_sim/crc_tables.h,
# entry [1] == 0x8005, i.e. polynomial 0x8005 MSB-first), init 0, reflected
# input bytes, reflected remainder, final XOR 0: that is CRC-16/ARC (a.k.a.
# CRC-16/IBM, "crc_16" in BMv2's crc_map.cpp); check value 0xBB3D.
CRC16_PARAMS = CrcParams(16, 0x8005, 0x0000, 0x0000, True, True)
# crc32: BMv2's ``struct crc32`` = table_crc32 (poly 0x04C11DB7), init and final
# XOR 0xFFFFFFFF, reflected in and out: CRC-32/ISO-HDLC (zlib); check 0xCBF43926.
CRC32_PARAMS = CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)
# ``crc_custom_init<uint16_t/uint32_t>::config`` in calculations.cpp: the
# *_custom calculations start out identical to the fixed variants until the
# control plane reconfigures them (simple_switch_CLI set_crc16_parameters /
# set_crc32_parameters).
DEFAULT_CUSTOM_PARAMS: dict[HashAlgorithm, CrcParams] = {
    HashAlgorithm.crc16_custom: CRC16_PARAMS,
    HashAlgorithm.crc32_custom: CRC32_PARAMS,
}
_CUSTOM_WIDTH = {HashAlgorithm.crc16_custom: 16, HashAlgorithm.crc32_custom: 32}


def _reflect(value: int, nbits: int) -> int:
    """Bit-reverse the low ``nbits`` bits of ``value``."""
    out = 0
    for _ in range(nbits):
        out = (out << 1) | (value & 1)
        value >>= 1
    return out


class _Crc:
    """Byte-wise table-driven CRC for one parameter set (tables built once)."""

    __slots__ = ("_fn",)

    def __init__(self, p: CrcParams) -> None:
        w = p.width
        mask = (1 << w) - 1
        table: list[int] = []
        if p.reflect_in:
            # LSB-first ("reflected") algorithm: its register is the bit-reversal
            # of the MSB-first register BMv2 keeps while feeding reflected bytes.
            rpoly = _reflect(p.poly, w)
            for i in range(256):
                r = i
                for _ in range(8):
                    r = (r >> 1) ^ rpoly if r & 1 else r >> 1
                table.append(r)
            tbl = tuple(table)
            start = _reflect(p.init, w)
            # register is reflected already; un-reflect it if reflect_out is off
            fix_out = not p.reflect_out
            xor_out = p.xor_out

            def fn(data: bytes) -> int:
                r = start
                for b in data:
                    r = tbl[(r ^ b) & 0xFF] ^ (r >> 8)
                if fix_out:
                    r = _reflect(r, w)
                return r ^ xor_out
        else:
            top = 1 << (w - 1)
            shift = w - 8
            for i in range(256):
                r = i << shift
                for _ in range(8):
                    r = ((r << 1) ^ p.poly) & mask if r & top else (r << 1) & mask
                table.append(r)
            tbl = tuple(table)
            start = p.init
            fix_out = p.reflect_out
            xor_out = p.xor_out

            def fn(data: bytes) -> int:
                r = start
                for b in data:
                    r = tbl[((r >> shift) ^ b) & 0xFF] ^ ((r << 8) & mask)
                if fix_out:
                    r = _reflect(r, w)
                return r ^ xor_out

        self._fn: Callable[[bytes], int] = fn

    def __call__(self, data: bytes) -> int:
        return self._fn(data)


@lru_cache(maxsize=64)
def _crc_engine(params: CrcParams) -> _Crc:
    return _Crc(params)


# Precomputed at import: the built-in variants are used per packet.
# (Plain CRC-32 goes through zlib.crc32, which is exactly CRC32_PARAMS.)
_CRC16 = _crc_engine(CRC16_PARAMS)


def crc(data: bytes, params: CrcParams) -> int:
    """CRC of ``data`` with arbitrary parameters (BMv2's ``crc_custom``)."""
    if params == CRC32_PARAMS:
        return zlib.crc32(data)
    if params == CRC16_PARAMS:
        return _CRC16(data)
    return _crc_engine(params)(data)


# --------------------------------------------------------------------------
# The other algorithms
# --------------------------------------------------------------------------


def _csum16(buf: bytes) -> int:
    """BMv2 ``csum16``/``cksum16``: RFC 1071 Internet checksum, complemented.

    The 16-bit words are big-endian; an odd trailing byte is the high byte of a
    last word whose low byte is 0.  BMv2 returns ``~sum`` (the value to put in
    an IPv4/UDP/TCP checksum field), not the raw one's-complement sum; an empty
    or all-zero buffer gives 0xFFFF, a buffer that already contains its correct
    checksum gives 0x0000.
    """
    if len(buf) & 1:
        buf += b"\x00"
    # One's-complement addition does not care about byte order (RFC 1071 2(B)):
    # sum native words at C speed and swap the 16-bit result if needed.
    s = sum(memoryview(buf).cast("H"))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    s = ~s & 0xFFFF
    if _LITTLE_ENDIAN_HOST:
        s = ((s & 0xFF) << 8) | (s >> 8)
    return s


def _xor16(buf: bytes) -> int:
    """BMv2 ``xor16`` (``xor_hash<uint16_t>``): XOR of big-endian 16-bit words.

    An odd trailing byte is zero-padded at the tail (``emitAsInteger``), i.e. it
    is XORed in as ``byte << 8``.  Empty buffer -> 0.
    """
    if len(buf) & 1:
        buf += b"\x00"
    x = reduce(xor, memoryview(buf).cast("H"), 0)
    if _LITTLE_ENDIAN_HOST:
        x = ((x & 0xFF) << 8) | (x >> 8)
    return x


def _identity(buf: bytes) -> int:
    """BMv2 ``identity``: the first ``min(8, len)`` bytes as a big-endian integer.

    Only the first 8 bytes (64 bits) of the buffer are kept; bytes after them
    are ignored.  A shorter buffer is not padded, so a single 16-bit field
    hashes to its own value; note that the buffer itself already carries the
    trailing pad bits of :func:`serialize_fields` (a lone 12-bit field 0xABC
    hashes to 0xABC0).
    """
    return int.from_bytes(buf[:8], "big")


_SYSTEM_RNG = random.SystemRandom()


def hash_bytes(
    algo: HashAlgorithm | str,
    buf: bytes,
    params: CrcParams | None = None,
    rng: random.Random | None = None,
) -> int:
    """Run hash ``algo`` over an already-serialised buffer; see :func:`compute`."""
    a = parse_algorithm(algo)
    if params is not None:
        if a not in _CUSTOM_WIDTH:
            raise ValueError(
                f"CRC parameters only apply to crc16_custom and crc32_custom, not {a.value}"
            )
        if params.width != _CUSTOM_WIDTH[a]:
            raise ValueError(
                f"{a.value} needs {_CUSTOM_WIDTH[a]}-bit CRC parameters, got width {params.width}"
            )
    if a is HashAlgorithm.crc32:
        return zlib.crc32(buf)
    if a is HashAlgorithm.crc16:
        return _CRC16(buf)
    if a is HashAlgorithm.csum16:
        return _csum16(buf)
    if a is HashAlgorithm.xor16:
        return _xor16(buf)
    if a is HashAlgorithm.identity:
        return _identity(buf)
    if a is HashAlgorithm.random:
        # BMv2 registers no hash called "random" (calculations.cpp / crc_map.cpp),
        # so simple_switch rejects such a JSON at load time with "Unknown hash
        # algorithm: random".  We return a uniform 64-bit value (BMv2 hash
        # outputs are uint64_t), ignoring the data.
        return (rng if rng is not None else _SYSTEM_RNG).getrandbits(64)
    # crc16_custom / crc32_custom
    return crc(buf, params if params is not None else DEFAULT_CUSTOM_PARAMS[a])


def compute(
    algo: HashAlgorithm | str,
    fields: Sequence[tuple[int, int]],
    payload: bytes = b"",
    params: CrcParams | None = None,
    rng: random.Random | None = None,
) -> int:
    """The raw hash value H that BMv2 computes over ``fields`` (+ ``payload``).

    The buffer is ``serialize_fields(fields)`` followed by ``payload``; the
    payload starts on the byte boundary after the (zero-padded) fields, as in
    ``BufBuilder::operator()``.  Results:

    * ``crc32``  : CRC-32/ISO-HDLC, 32 bits.
    * ``crc16``  : CRC-16/ARC (poly 0x8005, init 0, reflected, xorout 0), 16 bits.
    * ``crc16_custom`` / ``crc32_custom``: CRC with ``params`` (16 / 32-bit),
      defaulting to the crc16 / crc32 parameters.
    * ``csum16`` : complemented RFC 1071 Internet checksum, 16 bits.
    * ``xor16``  : XOR of big-endian 16-bit words, 16 bits.
    * ``identity``: first 8 bytes of the buffer as a big-endian integer (<= 64 bits).
    * ``random`` : uniform 64-bit value from ``rng`` (not supported by BMv2 itself).

    ``params`` is only accepted for the ``*_custom`` algorithms.  Raises
    ``ValueError`` for an unknown algorithm name.
    """
    a = parse_algorithm(algo)
    return hash_bytes(a, serialize_fields(fields) + payload, params, rng)


def hash_result(h: int, base: int, max_: int, out_width: int) -> int:
    """The value v1model's ``hash()`` writes into its ``result`` argument.

    Mirrors ``modify_field_with_hash_based_offset`` in
    ``targets/simple_switch/primitives.cpp``: base and max are read as
    ``uint64_t`` (their low 64 bits), a max of 0 is treated as 1 (so the result
    is ``base``), ``v = H % max + base`` in 64-bit arithmetic, then the
    destination keeps the low ``out_width`` bits.  For max >= 1 and no
    overflow the result lies in ``[base, base + max - 1]``.
    """
    if out_width < 0:
        raise ValueError(f"out_width must be >= 0, got {out_width}")
    size = max_ & _MASK64
    if size == 0:
        size = 1
    v = ((h & _MASK64) % size + (base & _MASK64)) & _MASK64
    return v & ((1 << out_width) - 1)
