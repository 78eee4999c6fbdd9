"""The Write hot path's wire decoder (``behavioral_model.p4runtime.wire``) against the
protobuf library's own decoding, on random requests: canonical serializations, and
re-encodings with shuffled fields, padded varints, repeated scalars, unknown fields,
truncations and bit flips. Whatever the fast path accepts must decode to exactly what
protobuf gives; everything else must be handed to protobuf."""

from __future__ import annotations

import random

import grpc
import pytest
from google.protobuf import descriptor
from google.protobuf.message import DecodeError, Message
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import ROUTER, Harness, Names

from behavioral_model.p4runtime.entrydata import entry_data
from behavioral_model.p4runtime.wire import FastWrite, decode_write_request

FD = descriptor.FieldDescriptor
M64 = (1 << 64) - 1


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def uint(self, bits: int) -> int:
        return self.r.choice([0, 1, self.r.randrange(1 << bits), (1 << bits) - 1])

    def int_(self, bits: int) -> int:
        return self.r.choice([0, 1, -1, self.r.randrange(-(1 << (bits - 1)), 1 << (bits - 1)),
                              -(1 << (bits - 1)), (1 << (bits - 1)) - 1])

    def raw(self) -> bytes:
        return bytes(self.r.randrange(256) for _ in range(self.r.choice([0, 1, 2, 4, 16])))

    def action(self, a: p4runtime_pb2.Action) -> None:
        a.action_id = self.uint(32)
        for _ in range(self.r.randint(0, 3)):
            p = a.params.add(param_id=self.uint(32))
            if self.chance(0.8):
                p.value = self.raw()

    def table_action(self, ta: p4runtime_pb2.TableAction) -> None:
        kind = self.r.choice(["action"] * 6 + ["member", "group", "set", "empty"])
        if kind == "action":
            self.action(ta.action)
        elif kind == "member":
            ta.action_profile_member_id = self.uint(32)
        elif kind == "group":
            ta.action_profile_group_id = self.uint(32)
        elif kind == "set":
            for _ in range(self.r.randint(0, 2)):
                shot = ta.action_profile_action_set.action_profile_actions.add(
                    weight=self.int_(32))
                self.action(shot.action)
            ta.action_profile_action_set.SetInParent()
        else:
            ta.SetInParent()  # a TableAction with no oneof set

    def field_match(self, fm: p4runtime_pb2.FieldMatch) -> None:
        fm.field_id = self.uint(32)
        kind = self.r.choice(["exact", "lpm", "ternary", "range", "optional", "none",
                              "other"])
        if kind == "exact":
            fm.exact.value = self.raw()
        elif kind == "lpm":
            fm.lpm.value = self.raw()
            fm.lpm.prefix_len = self.int_(32)
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = self.raw(), self.raw()
        elif kind == "range":
            fm.range.low, fm.range.high = self.raw(), self.raw()
        elif kind == "optional":
            fm.optional.value = self.raw()
            fm.optional.SetInParent()
        elif kind == "other":
            fm.other.value = b"\x01"

    def table_entry(self, te: p4runtime_pb2.TableEntry) -> None:
        te.table_id = self.uint(32)
        for _ in range(self.r.choice([0, 1, 1, 2, 4])):
            self.field_match(te.match.add())
        if self.chance(0.9):
            self.table_action(te.action)
        if self.chance(0.3):
            te.priority = self.int_(32)
        if self.chance(0.2):
            te.controller_metadata = self.uint(64)
        if self.chance(0.2):
            te.metadata = self.raw()
        te.is_default_action = self.chance(0.1)
        if self.chance(0.2):
            te.idle_timeout_ns = self.int_(64)
        te.is_const = self.chance(0.05)
        if self.chance(0.05):
            te.counter_data.packet_count = 3
        if self.chance(0.05):
            te.time_since_last_hit.SetInParent()
        if self.chance(0.03):
            te.meter_config.cir = 5

    def request(self) -> p4runtime_pb2.WriteRequest:
        req = p4runtime_pb2.WriteRequest(device_id=self.uint(64))
        if self.chance(0.8):
            req.election_id.high, req.election_id.low = self.uint(64), self.uint(64)
        if self.chance(0.1):
            req.role = self.r.choice(["", "sdn", "rôle"])
        if self.chance(0.1):
            req.role_id = self.uint(64)
        req.atomicity = self.r.choice([0, 0, 0, 1, 2])
        for _ in range(self.r.randint(0, 4)):
            u = req.updates.add(type=self.r.choice([0, 1, 1, 2, 3]))
            if self.chance(0.9):
                self.table_entry(u.entity.table_entry)
            elif self.chance(0.5):
                u.entity.action_profile_member.member_id = self.uint(32)
        return req

    # -- re-encoding with legal (and some illegal) variations ---------------------------
    def varint(self, value: int, pad: float = 0.05) -> bytes:
        out = bytearray()
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
        if len(out) < 10 and self.chance(pad):  # non-minimal, still <= 10 bytes
            out[-1] |= 0x80
            pad = self.r.randint(0, 9 - len(out))
            out += b"\x80" * pad + b"\x00"
        return bytes(out)

    def key(self, number: int, wire_type: int) -> bytes:
        return self.varint((number << 3) | wire_type, pad=0.005)

    def scalar(self, fd: FD, value: object) -> bytes:
        if fd.type in (FD.TYPE_BYTES, FD.TYPE_STRING):
            data = value if isinstance(value, bytes) else str(value).encode()
            return self.key(fd.number, 2) + self.varint(len(data)) + data
        return self.key(fd.number, 0) + self.varint(int(value) & M64)  # type: ignore[call-overload]

    def encode(self, msg: Message) -> bytes:
        groups: list[list[bytes]] = []
        for fd, value in msg.ListFields():
            values = list(value) if fd.label == FD.LABEL_REPEATED else [value]
            chunks = []
            for v in values:
                if fd.type == FD.TYPE_MESSAGE:
                    payload = self.encode(v)
                    chunks.append(self.key(fd.number, 2) + self.varint(len(payload)) + payload)
                else:
                    if fd.label != FD.LABEL_REPEATED and self.chance(0.05):  # last wins
                        decoy = b"\x07" if fd.type in (FD.TYPE_BYTES, FD.TYPE_STRING) else 1
                        if fd.enum_type is None:
                            chunks.append(self.scalar(fd, decoy))
                    chunks.append(self.scalar(fd, v))
            groups.append(chunks)
        if self.chance(0.02):
            groups.append([self.key(15, 0) + self.varint(3)])  # an unknown field
        out = b""
        while groups:  # interleave fields, keeping each repeated field's order
            g = self.r.choice(groups)
            out += g.pop(0)
            if not g:
                groups.remove(g)
        return out

    def mangle(self, data: bytes) -> bytes:
        if not data:
            return data
        data = bytearray(data)
        if self.chance(0.5):
            del data[self.r.randrange(len(data)):]
        else:
            for _ in range(self.r.randint(1, 3)):
                data[self.r.randrange(len(data))] ^= 1 << self.r.randrange(8)
        return bytes(data)


def _protobuf(data: bytes) -> p4runtime_pb2.WriteRequest | None:
    try:
        return p4runtime_pb2.WriteRequest.FromString(data)
    except (DecodeError, UnicodeDecodeError):
        return None


def check(data: bytes) -> str:
    """Compare the fast decoder with protobuf on ``data``; returns what happened."""
    want = _protobuf(data)
    try:
        got = decode_write_request(data)
    except (DecodeError, UnicodeDecodeError):
        assert want is None, "fast path refused bytes protobuf accepts"
        return "error"
    if got is None:
        return "fallback" if want is not None else "invalid"
    assert want is not None, "fast path accepted bytes protobuf refuses"
    assert isinstance(got, FastWrite)
    assert got.device_id == want.device_id
    assert got.role_id == want.role_id
    assert got.role == want.role
    assert got.atomicity == want.atomicity
    want_eid = ((want.election_id.high << 64) | want.election_id.low
                if want.HasField("election_id") else None)
    assert got.election_id == want_eid
    assert len(got.updates) == len(want.updates)
    fast = 0
    for g, w in zip(got.updates, want.updates, strict=True):
        if isinstance(g, p4runtime_pb2.Update):
            assert g == w
            continue
        fast += 1
        kind, entry = g
        assert kind == w.type
        assert w.entity.WhichOneof("entity") == "table_entry"
        assert entry == entry_data(w.entity.table_entry)
    return "fast" if fast else "slow"


@pytest.mark.parametrize("seed", range(4))
def test_random_canonical_requests(seed: int) -> None:
    gen = Gen(seed)
    seen: dict[str, int] = {}
    for _ in range(400):
        how = check(gen.request().SerializeToString())
        seen[how] = seen.get(how, 0) + 1
    assert seen.get("fast", 0) > 250, seen


@pytest.mark.parametrize("seed", range(4))
def test_random_reencoded_and_mangled_requests(seed: int) -> None:
    gen = Gen(100 + seed)
    seen: dict[str, int] = {}
    for _ in range(400):
        data = gen.encode(gen.request())
        for variant in (data, gen.mangle(data)):
            how = check(variant)
            seen[how] = seen.get(how, 0) + 1
    assert seen.get("fast", 0) > 150, seen
    assert seen.get("fallback", 0) + seen.get("error", 0) + seen.get("invalid", 0) > 20, seen


def test_common_lpm_entry_is_decoded_fast() -> None:
    req = p4runtime_pb2.WriteRequest(device_id=1)
    req.election_id.low = 1
    te = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
    te.table_id = 0x02000001
    fm = te.match.add(field_id=1)
    fm.lpm.value, fm.lpm.prefix_len = bytes(16), 64
    te.action.action.action_id = 0x01000002
    te.action.action.params.add(param_id=1, value=b"\x01\x02")
    got = decode_write_request(req.SerializeToString())
    assert got is not None
    ((kind, entry),) = got.updates  # type: ignore[misc]
    assert kind == p4runtime_pb2.Update.INSERT
    assert entry.matches == [(1, "lpm", bytes(16), 64)]
    assert entry.action is not None and entry.action.params == [(1, b"\x01\x02")]


def test_edge_cases() -> None:
    # 11-byte varint: protobuf refuses it, so must the fast path.
    assert check(b"\x08" + b"\xff" * 10 + b"\x01") == "invalid"
    te = p4runtime_pb2.TableEntry(table_id=5).SerializeToString()
    entity = b"\x12" + bytes([len(te)]) + te
    update = b"\x08\x01\x12" + bytes([len(entity) + 1]) + entity + b"\x08"
    assert check(b"\x22" + bytes([len(update)]) + update) == "error"
    # A length past the end, an empty request, a field with a wrong wire type.
    assert check(b"\x22\x05\x08\x01") == "invalid"
    assert check(b"") in ("slow", "fast")
    assert check(b"\x09" + bytes(8)) == "fallback"  # device_id as fixed64: unknown
    # Two election ids: protobuf merges them; the fast path leaves it to protobuf.
    assert check(b"\x1a\x02\x08\x01\x1a\x02\x10\x02") == "fallback"
    # An Update whose entity is given twice (merged by protobuf).
    update = b"\x08\x01" + (b"\x12" + bytes([len(entity)]) + entity) * 2
    assert check(b"\x22" + bytes([len(update)]) + update) == "slow"
    # An unknown Update.type value is an unknown field for protobuf.
    update = b"\x08\x09\x12" + bytes([len(entity)]) + entity
    assert check(b"\x22" + bytes([len(update)]) + update) == "slow"
    # Invalid UTF-8 in the role string.
    assert check(b"\x32\x01\xff") == "invalid"


def test_server_answers_malformed_bytes_with_invalid_argument(harness: Harness) -> None:
    c = harness.primary_with(ROUTER)
    raw = harness.channel.unary_unary("/p4.v1.P4Runtime/Write")
    good = p4runtime_pb2.WriteRequest(device_id=1)
    good.election_id.low = 1
    te = good.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
    te.CopyFrom(Names(c.p4info).entry("nexthop", {"meta.nexthop": 1}, "forward",
                                      (1, 0xA, 0xB)))
    data = good.SerializeToString()
    with pytest.raises(grpc.RpcError) as info:
        raw(data[:-3], timeout=10)  # truncated inside the last update
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "malformed WriteRequest" in (info.value.details() or "")
    with pytest.raises(grpc.RpcError) as info:
        raw(b"\x08" + b"\xff" * 11, timeout=10)  # an over-long varint
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    raw(data, timeout=10)  # the intact request is applied
    assert len(c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry()))) == 1
