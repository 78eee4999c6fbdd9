"""Tests for behavioral_model.pipeline.hashes (v1model hash/checksum semantics).

Check values come from independent sources: the CRC catalogue check values
(CRC of ASCII "123456789"), zlib/binascii, RFC 1071, a well-known real IPv4
header, scapy's checksum computation, and small bit-by-bit reference
implementations written here from the algorithm definitions.
"""

from __future__ import annotations

import binascii
import random
import struct
import zlib

import pytest

from behavioral_model.pipeline import hashes
from behavioral_model.pipeline.hashes import (
    CRC16_PARAMS,
    CRC32_PARAMS,
    CrcParams,
    HashAlgorithm,
    compute,
    crc,
    hash_bytes,
    hash_result,
    parse_algorithm,
    serialize_fields,
)

CHECK = b"123456789"


def as_fields(data: bytes) -> list[tuple[int, int]]:
    return [(b, 8) for b in data]


# ---------------------------------------------------------------- references


def ref_crc_bitwise(data: bytes, p: CrcParams) -> int:
    """Textbook MSB-first shift register, one bit at a time (no tables)."""
    top = 1 << (p.width - 1)
    mask = (1 << p.width) - 1
    reg = p.init
    for byte in data:
        if p.reflect_in:
            byte = int(f"{byte:08b}"[::-1], 2)
        for i in range(7, -1, -1):
            bit = (byte >> i) & 1
            fb = bool(reg & top) ^ bit
            reg = (reg << 1) & mask
            if fb:
                reg ^= p.poly
    if p.reflect_out:
        reg = int(f"{reg:0{p.width}b}"[::-1], 2)
    return reg ^ p.xor_out


def ref_rfc1071(data: bytes) -> int:
    """RFC 1071 section 4.1 style: 32-bit accumulator, fold, complement."""
    total = 0
    for i in range(0, len(data) - 1, 2):
        total += (data[i] << 8) | data[i + 1]
    if len(data) % 2:
        total += data[-1] << 8
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ref_bmv2_cksum16_arith(data: bytes) -> int:
    """The arithmetic BMv2's cksum16 performs on a little-endian host.

    Native uint64 words with end-around carry, then 32/16-bit folds, then
    ntohs(~t3).  Written here to pin down the 0x0000 / 0xFFFF corner cases.
    """
    m64 = (1 << 64) - 1
    s = 0

    def add(acc: int, v: int, mask: int) -> int:
        acc = acc + v
        if acc > mask:
            acc = (acc & mask) + 1
        return acc

    i = 0
    n = len(data)
    while n - i >= 8:
        s = add(s, struct.unpack_from("<Q", data, i)[0], m64)
        i += 8
    rest = n - i
    if rest & 4:
        s = add(s, struct.unpack_from("<I", data, i)[0], m64)
        i += 4
    if rest & 2:
        s = add(s, struct.unpack_from("<H", data, i)[0], m64)
        i += 2
    if rest & 1:
        s = add(s, data[i], m64)
    t1 = add(s & 0xFFFFFFFF, s >> 32, 0xFFFFFFFF)
    t3 = add(t1 & 0xFFFF, t1 >> 16, 0xFFFF)
    inv = ~t3 & 0xFFFF
    return ((inv & 0xFF) << 8) | (inv >> 8)  # ntohs on little endian


# ---------------------------------------------------------------- enum / names


def test_enum_matches_v1model_order() -> None:
    assert [a.name for a in HashAlgorithm] == [
        "crc32",
        "crc32_custom",
        "crc16",
        "crc16_custom",
        "random",
        "identity",
        "csum16",
        "xor16",
    ]
    for a in HashAlgorithm:
        assert a.value == a.name
        assert a == a.name  # str enum
        assert parse_algorithm(a.name) is a


@pytest.mark.parametrize("bad", ["crc64", "CRC32", "crc_16", "", "toeplitz", "xxh64"])
def test_bad_algorithm_name(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown hash algorithm") as ei:
        compute(bad, [(1, 8)])
    assert repr(bad) in str(ei.value)
    assert "crc16_custom" in str(ei.value)  # lists the valid names


def test_bad_algorithm_type() -> None:
    with pytest.raises(TypeError):
        compute(3, [(1, 8)])  # type: ignore[arg-type]


# ---------------------------------------------------------------- serialize


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ([], b""),
        ([(0xAB, 8)], b"\xab"),
        ([(0x1234, 16), (0x56, 8)], b"\x12\x34\x56"),
        # 12 bits: padding goes at the END (low bits of the last byte)
        ([(0xABC, 12)], b"\xab\xc0"),
        # fields are bit-packed with no per-field alignment
        ([(0x1, 4), (0x23, 8), (0x4, 4)], b"\x12\x34"),
        ([(1, 1), (0, 1), (0b101, 3)], b"\xa8"),
        ([(1, 1)], b"\x80"),
        ([(0x1FF, 9)], b"\xff\x80"),
        ([(0x3, 2), (0x0, 0), (0x3F, 6)], b"\xff"),  # zero-width field is nothing
        # values are reduced modulo 2**width (two's complement for negatives)
        ([(0x1FF, 8)], b"\xff"),
        ([(-1, 4)], b"\xf0"),
        ([(-2, 16)], b"\xff\xfe"),
        # IPv4 version/ihl + flags/fragOffset style layout
        ([(4, 4), (5, 4), (0b010, 3), (0, 13)], b"\x45\x40\x00"),
    ],
)
def test_serialize_fields(fields: list[tuple[int, int]], expected: bytes) -> None:
    assert serialize_fields(fields) == expected


def test_serialize_wide_field() -> None:
    v = int.from_bytes(bytes(range(16)), "big")
    assert serialize_fields([(v, 128)]) == bytes(range(16))
    assert serialize_fields([(v, 128), (1, 3)]) == bytes(range(16)) + b"\x20"


def test_serialize_negative_width() -> None:
    with pytest.raises(ValueError):
        serialize_fields([(1, -1)])


def test_payload_starts_on_byte_boundary_after_padding() -> None:
    assert compute("crc32", [(0xF, 4)], payload=b"\x01") == zlib.crc32(b"\xf0\x01")
    assert compute("identity", [(0x1, 4)], payload=b"\xaa") == 0x10AA


# ---------------------------------------------------------------- CRCs


def test_crc32_check_value() -> None:
    assert compute(HashAlgorithm.crc32, as_fields(CHECK)) == 0xCBF43926
    assert compute("crc32", [(int.from_bytes(CHECK, "big"), 72)]) == 0xCBF43926


def test_crc16_is_arc() -> None:
    assert compute(HashAlgorithm.crc16, as_fields(CHECK)) == 0xBB3D
    assert CRC16_PARAMS == CrcParams(16, 0x8005, 0, 0, True, True)


def test_crc16_table_matches_bmv2_table_head() -> None:
    # BMv2's table_crc16 (src/bm_sim/crc_tables.h) is the MSB-first 0x8005
    # table; its first entries are 0x0000, 0x8005, 0x800F, 0x000A.
    p = CrcParams(16, 0x8005)
    assert [crc(bytes([i]), p) for i in range(4)] == [0x0000, 0x8005, 0x800F, 0x000A]


def test_empty_input() -> None:
    assert compute("crc32", []) == 0
    assert compute("crc16", []) == 0
    assert compute("csum16", []) == 0xFFFF
    assert compute("xor16", []) == 0
    assert compute("identity", []) == 0


def test_custom_defaults_equal_fixed_variants() -> None:
    rng = random.Random(1)
    for n in (0, 1, 2, 3, 7, 64, 301):
        data = rng.randbytes(n)
        f = as_fields(data)
        assert compute("crc16_custom", f) == compute("crc16", f)
        assert compute("crc32_custom", f) == compute("crc32", f) == zlib.crc32(data)
        assert compute("crc16_custom", f, params=CRC16_PARAMS) == compute("crc16", f)


@pytest.mark.parametrize(
    ("params", "check"),
    [
        # catalogue check values for "123456789"
        (CrcParams(16, 0x8005, 0xFFFF, 0x0000, True, True), 0x4B37),  # MODBUS
        (CrcParams(16, 0x8005, 0xFFFF, 0xFFFF, True, True), 0xB4C8),  # USB
        (CrcParams(16, 0x8005, 0x0000, 0xFFFF, True, True), 0x44C2),  # MAXIM
        (CrcParams(16, 0x8005, 0x0000, 0x0000, False, False), 0xFEE8),  # BUYPASS
        (CrcParams(16, 0x1021, 0x0000, 0x0000, False, False), 0x31C3),  # XMODEM
        (CrcParams(16, 0x1021, 0xFFFF, 0x0000, False, False), 0x29B1),  # CCITT-FALSE
        (CrcParams(16, 0x1021, 0x0000, 0x0000, True, True), 0x2189),  # KERMIT
        (CrcParams(16, 0x1021, 0xFFFF, 0xFFFF, True, True), 0x906E),
        (CrcParams(16, 0x1021, 0xB2AA, 0x0000, True, True), 0x63D0),  # RIELLO
        (CrcParams(16, 0x8BB7, 0x0000, 0x0000, False, False), 0xD0DB),  # T10-DIF
        (CrcParams(32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, True, True), 0xE3069283),  # 32C
        (CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, False, False), 0xFC891918),  # BZIP2
        (CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0x00000000, False, False), 0x0376E6E7),  # MPEG-2
        (CrcParams(32, 0x04C11DB7, 0x00000000, 0xFFFFFFFF, False, False), 0x765E7680),  # POSIX
        (CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0x00000000, True, True), 0x340BC6D9),  # JAMCRC
        (CrcParams(32, 0x814141AB, 0, 0, False, False), 0x3010BF7F),  # CRC-32Q
        (CrcParams(32, 0x000000AF, 0, 0, False, False), 0xBD0BE338),  # XFER
        (CrcParams(8, 0x07, 0x00, 0x00, False, False), 0xF4),  # CRC-8
        (CrcParams(8, 0x31, 0x00, 0x00, True, True), 0xA1),  # CRC-8/MAXIM
        # mixed reflection (refin=false, refout=true): CRC-12/UMTS
        (CrcParams(12, 0x80F, 0x000, 0x000, False, True), 0xDAF),
        (
            CrcParams(64, 0x42F0E1EBA9EA3693, (1 << 64) - 1, (1 << 64) - 1, False, False),
            0x62EC59E3F1A4F00A,
        ),  # CRC-64/WE
    ],
)
def test_crc_catalogue(params: CrcParams, check: int) -> None:
    assert crc(CHECK, params) == check
    assert ref_crc_bitwise(CHECK, params) == check
    if params.width in (16, 32):
        algo = "crc16_custom" if params.width == 16 else "crc32_custom"
        assert compute(algo, as_fields(CHECK), params=params) == check


def test_crc_xmodem_matches_binascii() -> None:
    p = CrcParams(16, 0x1021)
    rng = random.Random(7)
    for n in range(0, 50):
        data = rng.randbytes(n)
        assert crc(data, p) == binascii.crc_hqx(data, 0)


def test_crc_engine_random_params_vs_bitwise_reference() -> None:
    rng = random.Random(2024)
    for _ in range(60):
        width = rng.choice([8, 12, 16, 24, 32, 64])
        mask = (1 << width) - 1
        p = CrcParams(
            width,
            rng.getrandbits(width) | 1,
            rng.getrandbits(width) & mask,
            rng.getrandbits(width) & mask,
            rng.random() < 0.5,
            rng.random() < 0.5,
        )
        data = rng.randbytes(rng.randrange(0, 40))
        assert crc(data, p) == ref_crc_bitwise(data, p), p


def test_crc_fixed_variants_vs_bitwise_reference() -> None:
    rng = random.Random(5)
    for n in (0, 1, 5, 33, 200):
        data = rng.randbytes(n)
        assert compute("crc16", as_fields(data)) == ref_crc_bitwise(data, CRC16_PARAMS)
        assert compute("crc32", as_fields(data)) == ref_crc_bitwise(data, CRC32_PARAMS)
        assert hashes._crc_engine(CRC32_PARAMS)(data) == zlib.crc32(data)


def test_crc_params_validation() -> None:
    with pytest.raises(ValueError, match="width"):
        CrcParams(4, 0x3)
    with pytest.raises(ValueError, match="width"):
        CrcParams(65, 0x3)
    with pytest.raises(ValueError, match="poly"):
        CrcParams(16, 0x18005)
    with pytest.raises(ValueError, match="init"):
        CrcParams(16, 0x8005, init=-1)


def test_params_rejected_for_wrong_algorithm_or_width() -> None:
    with pytest.raises(ValueError, match="crc16_custom"):
        compute("crc16", as_fields(CHECK), params=CRC16_PARAMS)
    with pytest.raises(ValueError, match="16-bit"):
        compute("crc16_custom", as_fields(CHECK), params=CRC32_PARAMS)
    with pytest.raises(ValueError, match="32-bit"):
        compute("crc32_custom", as_fields(CHECK), params=CRC16_PARAMS)


# ---------------------------------------------------------------- csum16

# The classic IPv4 header example (Wikipedia "Internet checksum"):
# 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7
IPV4_HDR = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
IPV4_CSUM = 0xB861


def ipv4_fields(hdr: bytes, with_checksum: bool = False) -> list[tuple[int, int]]:
    """The field list a v1model program passes to update_checksum for IPv4."""
    ver_ihl, tos, tlen, ident, flags_frag, ttl, proto, csum = struct.unpack_from("!BBHHHBBH", hdr)
    src, dst = struct.unpack_from("!II", hdr, 12)
    fields = [
        (ver_ihl >> 4, 4),
        (ver_ihl & 0xF, 4),
        (tos, 8),
        (tlen, 16),
        (ident, 16),
        (flags_frag >> 13, 3),
        (flags_frag & 0x1FFF, 13),
        (ttl, 8),
        (proto, 8),
    ]
    if with_checksum:
        fields.append((csum, 16))
    return [*fields, (src, 32), (dst, 32)]


def test_csum16_ipv4_header() -> None:
    assert compute(HashAlgorithm.csum16, ipv4_fields(IPV4_HDR)) == IPV4_CSUM
    # verify_checksum style: the whole header including a correct checksum sums to 0
    full = IPV4_HDR[:10] + IPV4_CSUM.to_bytes(2, "big") + IPV4_HDR[12:]
    assert compute("csum16", ipv4_fields(full, with_checksum=True)) == 0


def test_csum16_ipv4_against_scapy() -> None:
    from scapy.layers.inet import IP

    rng = random.Random(99)
    for _ in range(20):
        pkt = IP(
            src=".".join(str(rng.randrange(256)) for _ in range(4)),
            dst=".".join(str(rng.randrange(256)) for _ in range(4)),
            ttl=rng.randrange(256),
            id=rng.randrange(65536),
            flags=rng.randrange(8),
            frag=rng.randrange(8192),
            tos=rng.randrange(256),
            proto=rng.randrange(256),
        )
        raw = bytes(pkt)
        scapy_csum = IP(raw).chksum
        assert compute("csum16", ipv4_fields(raw)) == scapy_csum


def test_csum16_rfc1071_example() -> None:
    # RFC 1071 section 3: bytes 00 01 f2 03 f4 f5 f6 f7 -> one's complement sum ddf2
    data = bytes.fromhex("0001f203f4f5f6f7")
    assert compute("csum16", as_fields(data)) == (~0xDDF2 & 0xFFFF) == 0x220D


def test_csum16_returns_complement_and_pads_odd_byte() -> None:
    assert compute("csum16", [(0x0001, 16)]) == 0xFFFE  # complement, not the raw sum
    assert compute("csum16", [(0x01, 8)]) == 0xFEFF  # odd byte is the HIGH byte
    assert compute("csum16", [(0, 16), (0, 16)]) == 0xFFFF
    assert compute("csum16", [(0xFFFF, 16)]) == 0x0000
    # non-byte-aligned: 12 bits 0xABC -> buffer AB C0 -> ~0xABC0
    assert compute("csum16", [(0xABC, 12)]) == ~0xABC0 & 0xFFFF


def test_csum16_random_vs_references() -> None:
    rng = random.Random(3)
    bufs = [b"", b"\xff", b"\xff" * 2, b"\xff" * 9, b"\x00" * 17]
    bufs += [rng.randbytes(rng.randrange(0, 80)) for _ in range(300)]
    from scapy.utils import checksum as scapy_checksum

    for data in bufs:
        got = compute("csum16", as_fields(data))
        assert got == ref_rfc1071(data)
        assert got == ref_bmv2_cksum16_arith(data)
        assert got == scapy_checksum(data)
        assert hash_bytes("csum16", data) == got


def test_csum16_udp_over_ipv6_with_payload_against_scapy() -> None:
    """update_checksum_with_payload for UDP/IPv6 as a v1model program writes it."""
    from scapy.layers.inet import UDP
    from scapy.layers.inet6 import IPv6
    from scapy.packet import Raw

    rng = random.Random(6)
    for plen in (0, 1, 11, 64, 333):
        payload = rng.randbytes(plen)
        pkt = (
            IPv6(src="2001:db8::1", dst="fc00:0:1:2::e005", hlim=64)
            / UDP(sport=rng.randrange(65536), dport=4791)
            / Raw(payload)
        )
        built = IPv6(bytes(pkt))
        udp = built[UDP]
        src = int.from_bytes(bytes(pkt)[8:24], "big")
        dst = int.from_bytes(bytes(pkt)[24:40], "big")
        fields = [
            (src, 128),
            (dst, 128),
            (0, 16),  # upper 16 bits of the 32-bit upper-layer length
            (udp.len, 16),
            (0, 24),
            (17, 8),  # next header
            (udp.sport, 16),
            (udp.dport, 16),
            (udp.len, 16),
        ]
        got = compute("csum16", fields, payload=payload)
        # scapy transmits a computed 0x0000 as 0xFFFF (RFC 768); BMv2 does not.
        if udp.chksum != 0xFFFF:
            assert got == udp.chksum
        # verify_checksum_with_payload style: including the checksum gives 0
        check_fields = [*fields, (udp.chksum, 16)]
        assert compute("csum16", check_fields, payload=payload) == 0


# ---------------------------------------------------------------- xor16 / identity


def test_xor16() -> None:
    assert compute("xor16", [(0x1234, 16), (0xABCD, 16)]) == 0x1234 ^ 0xABCD
    # odd trailing byte is zero-padded at the tail: 0x56 -> 0x5600
    assert compute("xor16", as_fields(b"\x12\x34\x56")) == 0x1234 ^ 0x5600
    assert compute("xor16", [(0xABC, 12)]) == 0xABC0
    assert compute("xor16", [(0x1234, 16), (0x1234, 16)]) == 0
    rng = random.Random(4)
    for _ in range(50):
        data = rng.randbytes(rng.randrange(0, 30))
        padded = data + b"\x00" * (len(data) % 2)
        expect = 0
        for i in range(0, len(padded), 2):
            expect ^= int.from_bytes(padded[i : i + 2], "big")
        assert compute("xor16", as_fields(data)) == expect


def test_identity() -> None:
    assert compute("identity", [(0xABCD, 16)]) == 0xABCD
    assert compute("identity", [(0x0A000001, 32)]) == 0x0A000001
    assert compute("identity", [(0xABC, 12)]) == 0xABC0  # pad bits included
    data = bytes(range(1, 11))  # 10 bytes: only the first 8 are kept
    assert compute("identity", as_fields(data)) == int.from_bytes(data[:8], "big")
    assert compute("identity", [(2**64 - 1, 64)]) == 2**64 - 1


# ---------------------------------------------------------------- random


def test_random_uses_rng() -> None:
    got = compute("random", [(1, 8)], rng=random.Random(42))
    assert got == random.Random(42).getrandbits(64)
    assert 0 <= compute("random", []) < 2**64


# ---------------------------------------------------------------- hash_result


def test_hash_result_basic() -> None:
    assert hash_result(0xCBF43926, 0, 16, 32) == 0xCBF43926 % 16
    assert hash_result(100, 10, 7, 16) == 10 + 100 % 7
    assert hash_result(12345, 5, 1, 16) == 5


def test_hash_result_max_zero_gives_base() -> None:
    for h in (0, 1, 0xFFFF, 2**64 - 1):
        assert hash_result(h, 42, 0, 16) == 42


def test_hash_result_truncates_to_out_width() -> None:
    assert hash_result(0, 0x1FF, 0, 8) == 0xFF
    assert hash_result(300, 0, 1000, 8) == 300 & 0xFF
    assert hash_result(5, 0, 10, 0) == 0


def test_hash_result_range() -> None:
    rng = random.Random(8)
    for _ in range(500):
        base = rng.randrange(0, 1000)
        max_ = rng.randrange(1, 5000)
        h = rng.getrandbits(64)
        r = hash_result(h, base, max_, 32)
        assert base <= r <= base + max_ - 1


def test_hash_result_uses_low_64_bits() -> None:
    # BMv2 reads base/max with get<uint64_t>() and adds in 64-bit arithmetic
    assert hash_result(7, (1 << 64) + 3, (1 << 64) + 5, 64) == 3 + 7 % 5
    assert hash_result(1, 2**64 - 1, 2, 64) == 0  # wraps modulo 2**64
    with pytest.raises(ValueError):
        hash_result(1, 0, 1, -1)


def test_end_to_end_ecmp_style() -> None:
    """hash(meta.idx, crc16, 10w0, {5-tuple}, 10w64) as a v1model program would."""
    fields = [(0x0A000001, 32), (0x0A000002, 32), (6, 8), (1234, 16), (80, 16)]
    data = serialize_fields(fields)
    assert len(data) == 13
    h = compute("crc16", fields)
    assert h == ref_crc_bitwise(data, CRC16_PARAMS)
    assert hash_result(h, 0, 64, 10) == h % 64
