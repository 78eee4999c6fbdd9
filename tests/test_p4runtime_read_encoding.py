"""The wire encoder of Read (``wire_encode``) against its protobuf reference (the
messages ``tables.encode_entry`` / ``encode_default`` build, the path the server used
before, assembled here as the server did): for tables of every
match kind, const entries, default entries, indirect tables, direct resources,
metadata and read filters, the encoder's bytes must be the serialization of the
reference messages, byte for byte. A Read over gRPC must send exactly the
ReadResponses the reference path would have built."""

from __future__ import annotations

import random
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import (
    INSERT,
    MODIFY,
    ROOT,
    SWITCH,
    Harness,
    Names,
    detail_codes,
    p4info_of,
    update,
)

from behavioral_model.p4runtime import server as server_module
from behavioral_model.p4runtime import tables, wire_encode
from behavioral_model.p4runtime.context import PipelineContext
from behavioral_model.p4runtime.entities import read_entity
from behavioral_model.p4runtime.wire_encode import read_responses

E = p4runtime_pb2.Entity
TE = p4runtime_pb2.TableEntry
PROFILES = ROOT / "tests" / "p4" / "p4rt_profiles.p4"
NOW_NS = 10**18

# One table with a field of every match kind (and a direct counter, a direct meter and
# idle timeouts), one table per match kind, and a table of const entries.
KINDS_P4 = r"""
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> b; bit<32> c; bit<48> d; bit<128> e; }
struct headers_t { h_t h; }
struct metadata_t { bit<2> color; }

parser KParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control KVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control KIngress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t std) {
    direct_counter(CounterType.packets_and_bytes) all_hits;
    direct_meter<bit<2>>(MeterType.bytes) all_meter;

    action fwd(bit<9> port) { std.egress_spec = port; }
    action rewrite(bit<48> mac, bit<128> addr, bit<8> tag) {
        hdr.h.d = mac;
        hdr.h.e = addr;
        hdr.h.a = tag;
    }
    action metered(bit<9> port) {
        all_meter.read(meta.color);
        std.egress_spec = port;
    }
    action nop() { }

    table all_kinds {
        key = {
            hdr.h.a: exact;
            hdr.h.e: lpm;
            hdr.h.b: ternary;
            hdr.h.c: range;
            hdr.h.d: optional;
        }
        actions = { fwd; rewrite; metered; nop; }
        default_action = nop();
        counters = all_hits;
        meters = all_meter;
        support_timeout = true;
        size = 4096;
    }
    table exact_t {
        key = { hdr.h.d: exact; hdr.h.a: exact; }
        actions = { fwd; rewrite; @defaultonly nop; }
        default_action = nop();
    }
    table lpm_t {
        key = { hdr.h.e: lpm; }
        actions = { fwd; rewrite; nop; }
        default_action = fwd(1);
        size = 4096;
    }
    table ternary_t {
        key = { hdr.h.b: ternary; }
        actions = { fwd; nop; }
    }
    table range_t {
        key = { hdr.h.c: range; }
        actions = { fwd; nop; }
    }
    table optional_t {
        key = { hdr.h.d: optional; hdr.h.a: optional; }
        actions = { fwd; nop; }
    }
    table const_t {
        key = { hdr.h.b: ternary; hdr.h.c: range; }
        actions = { fwd; nop; }
        const entries = {
            (0x0800 &&& 0xffff, 1 .. 10) : fwd(3);
            (_, 20 .. 30) : nop();
        }
        const default_action = nop();
    }

    apply {
        all_kinds.apply();
        exact_t.apply();
        lpm_t.apply();
        ternary_t.apply();
        range_t.apply();
        optional_t.apply();
        const_t.apply();
    }
}

control KEgress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t std) { apply { } }
control KCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }
control KDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(KParser(), KVerify(), KIngress(), KEgress(), KCompute(), KDeparser()) main;
"""


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("read_encoding") / "kinds.p4"
    path.write_text(KINDS_P4)
    return path


# -- the comparison ------------------------------------------------------------------------

def reference(ctx: PipelineContext, want: TE, now_ns: int = NOW_NS) -> list[E]:
    """The entities of the protobuf path."""
    out: list[E] = []

    for info, table, entry in tables.select_entries(ctx, want):
        out.append(E())
        if entry is None:
            tables.encode_default(ctx, info, table, out[-1].table_entry)
        else:
            tables.encode_entry(ctx, info, table, entry, want, now_ns, out[-1].table_entry)
    return out


def check(ctx: PipelineContext, want: TE, now_ns: int = NOW_NS) -> int:
    """The wire encoder agrees with the reference for ``want``; returns the count."""
    expected = reference(ctx, want, now_ns)
    got = wire_encode.read_table_entries(ctx, want, now_ns)
    assert [E.FromString(data) for data in got] == expected
    assert got == [e.SerializeToString() for e in expected]
    return len(got)


def ctx_of(h: Harness) -> PipelineContext:
    ctx = h.server.live_context()
    assert ctx is not None
    return ctx


def with_direct(want: TE, *which: str) -> TE:
    want = TE.FromString(want.SerializeToString())
    for name in which:
        getattr(want, name).SetInParent()
    return want


# -- entries -------------------------------------------------------------------------------

def kinds_entries(k: Names, rng: random.Random, count: int) -> list[TE]:
    """Varied entries of ``all_kinds``: wildcards, every action, priorities, metadata,
    idle timeouts, direct counter data and meter configs."""
    out = []
    for i in range(count):
        matches: dict[str, object] = {"hdr.h.a": i}
        if rng.random() < 0.8:
            plen = rng.randint(1, 128)
            matches["hdr.h.e"] = (rng.getrandbits(plen) << (128 - plen), plen)
        if rng.random() < 0.7:
            mask = rng.randint(1, 0xFFFF)
            matches["hdr.h.b"] = ("t", rng.getrandbits(16) & mask, mask)
        if rng.random() < 0.7:
            low = rng.choice((0, 1, rng.getrandbits(31)))
            matches["hdr.h.c"] = ("r", low, rng.randint(low, (1 << 32) - 2))
        if rng.random() < 0.7:
            matches["hdr.h.d"] = rng.choice((0, 1, rng.getrandbits(48)))
        action, args = rng.choice((
            ("fwd", (rng.getrandbits(9),)), ("metered", (rng.getrandbits(9),)),
            ("nop", ()), ("rewrite", (rng.getrandbits(48), rng.getrandbits(128), 0))))
        te = k.entry("all_kinds", matches, action, args,
                     priority=rng.choice((1, 127, 128, rng.randint(1, (1 << 31) - 1))))
        if rng.random() < 0.4:
            te.controller_metadata = rng.choice((1, (1 << 64) - 1, rng.getrandbits(40)))
        if rng.random() < 0.4:
            te.metadata = rng.randbytes(rng.choice((1, 127, 128, 300)))
        if rng.random() < 0.4:
            te.idle_timeout_ns = rng.choice((1, 10**9, (1 << 63) - 1))
        if rng.random() < 0.5:
            te.counter_data.packet_count = rng.choice((0, 1, rng.getrandbits(40)))
            te.counter_data.byte_count = rng.choice((0, 200, rng.getrandbits(50)))
        if rng.random() < 0.5:
            cir = rng.randint(0, 10**6)
            te.meter_config.CopyFrom(p4runtime_pb2.MeterConfig(
                cir=cir, cburst=rng.randint(0, 5000), pir=cir + rng.randint(0, 10**6),
                pburst=rng.randint(0, 5000)))
        out.append(te)
    return out


def one_kind_entries(k: Names) -> list[TE]:
    out = [k.entry("exact_t", {"hdr.h.d": d, "hdr.h.a": a}, "fwd", (a,))
           for d, a in ((0, 0), (1, 255), ((1 << 48) - 1, 7))]
    out += [k.entry("lpm_t", {"hdr.h.e": (v << (128 - plen), plen)}, "rewrite",
                    (v, v << 64, plen)) for v, plen in ((1, 1), (0x2001, 16), (3, 128))]
    out += [k.entry("ternary_t", {"hdr.h.b": ("t", v, m)}, "fwd", (1,), priority=p)
            for v, m, p in ((0, 1, 1), (0x800, 0xFF00, 2), (0xFFFF, 0xFFFF, 1000))]
    out += [k.entry("range_t", {"hdr.h.c": ("r", lo, hi)}, "nop", priority=p)
            for lo, hi, p in ((0, 0, 1), (5, 5, 2), (1, (1 << 32) - 1, 3))]
    out += [k.entry("optional_t", m, "fwd", (9,), priority=p)
            for m, p in (({}, 1), ({"hdr.h.d": 0}, 2), ({"hdr.h.a": 200}, 3),
                         ({"hdr.h.d": 5, "hdr.h.a": 6}, 4))]
    return out


def set_defaults(c, k: Names) -> None:  # type: ignore[no-untyped-def]
    """Change default actions, with and without metadata."""
    lpm = TE(table_id=k.table_id("lpm_t"), is_default_action=True,
             controller_metadata=(1 << 64) - 1, metadata=b"m" * 200)
    lpm.action.action.CopyFrom(k.action("rewrite", 1, 2, 3))
    exact = TE(table_id=k.table_id("exact_t"), is_default_action=True, metadata=b"x")
    exact.action.action.CopyFrom(k.action("nop"))
    ternary = TE(table_id=k.table_id("ternary_t"), is_default_action=True)
    ternary.action.action.CopyFrom(k.action("fwd", 0))
    c.write(*(update(MODIFY, table_entry=te) for te in (lpm, exact, ternary)))


def kinds_pipeline(h: Harness, kinds: Path, count: int = 120):  # type: ignore[no-untyped-def]
    c = h.primary_with(kinds)
    k = Names(p4info_of(kinds))
    rng = random.Random(1)
    c.write(*(update(INSERT, table_entry=te) for te in kinds_entries(k, rng, count)))
    c.write(*(update(INSERT, table_entry=te) for te in one_kind_entries(k)))
    set_defaults(c, k)
    state = ctx_of(h).state
    for i, entry in enumerate(state.tables["KIngress.all_kinds"].entries()):
        entry.last_hit_ns = (0, NOW_NS - 5, NOW_NS + 5, 1)[i % 4]  # + a future hit
    return c, k


# -- tests ---------------------------------------------------------------------------------

def test_every_match_kind_and_direct_resources(harness: Harness, kinds: Path) -> None:
    _, k = kinds_pipeline(harness, kinds)
    ctx = ctx_of(harness)
    everything = TE()
    assert check(ctx, everything) == 120 + 16 + 2
    for table in ("all_kinds", "exact_t", "lpm_t", "ternary_t", "range_t", "optional_t",
                  "const_t"):
        want = TE(table_id=k.table_id(table))
        assert check(ctx, want) > 0
        for which in (("counter_data",), ("meter_config",), ("time_since_last_hit",),
                      ("counter_data", "meter_config", "time_since_last_hit")):
            check(ctx, with_direct(want, *which))
    check(ctx, with_direct(everything, "counter_data", "meter_config",
                           "time_since_last_hit"))
    check(ctx, with_direct(everything, "time_since_last_hit"), now_ns=0)


def test_default_entries(harness: Harness, kinds: Path) -> None:
    _, k = kinds_pipeline(harness, kinds, count=10)
    ctx = ctx_of(harness)
    assert check(ctx, TE(is_default_action=True)) == 7
    for table in ("all_kinds", "exact_t", "lpm_t", "ternary_t", "const_t"):
        assert check(ctx, TE(table_id=k.table_id(table), is_default_action=True)) == 1
    check(ctx, with_direct(TE(is_default_action=True), "counter_data", "meter_config"))


def test_read_filters(harness: Harness, kinds: Path) -> None:
    c, k = kinds_pipeline(harness, kinds)
    ctx = ctx_of(harness)
    table_id = k.table_id("all_kinds")
    entries = [e.table_entry for e in reference(ctx, TE(table_id=table_id))]
    for te in entries[:20]:
        exact = TE(table_id=table_id, priority=te.priority)
        exact.match.extend(te.match)
        assert check(ctx, exact) == 1
        assert check(ctx, TE(table_id=table_id, priority=te.priority)) >= 1
        if te.controller_metadata:
            assert check(ctx, TE(table_id=table_id,
                                 controller_metadata=te.controller_metadata)) >= 1
        if te.metadata:
            assert check(ctx, TE(table_id=table_id, metadata=te.metadata)) >= 1
    for action in ("fwd", "rewrite", "metered", "nop"):
        want = TE(table_id=table_id)
        want.action.action.action_id = k.action_id(action)
        assert check(ctx, want) > 0
    # A MODIFY drops the metadata; the read shows it (and the filter finds nothing).
    te = next(t for t in entries if t.metadata)
    plain = TE(table_id=table_id, priority=te.priority)
    plain.match.extend(te.match)
    plain.action.CopyFrom(te.action)
    c.write(update(MODIFY, table_entry=plain))
    assert check(ctx, TE(table_id=table_id, metadata=te.metadata)) == sum(
        1 for t in entries if t.metadata == te.metadata) - 1
    check(ctx, TE(table_id=table_id))


def test_indirect_tables(harness: Harness) -> None:
    c = harness.primary_with(PROFILES)
    p = Names(p4info_of(PROFILES))

    def member(profile: str, member_id: int,
               *args: int) -> p4runtime_pb2.ActionProfileMember:
        m = p4runtime_pb2.ActionProfileMember(action_profile_id=p.profile_id(profile),
                                              member_id=member_id)
        m.action.CopyFrom(p.action("fwd", *args))
        return m

    def entry(table: str, a: int) -> TE:
        return p.entry(table, {"hdr.h.a": a})

    c.write(*(update(INSERT, action_profile_member=member("prof", m, m % 512))
              for m in (1, 2, 200, (1 << 31) - 1)))
    c.write(*(update(INSERT, action_profile_member=member("sel", m, 3)) for m in (5, 6)))
    group = p4runtime_pb2.ActionProfileGroup(action_profile_id=p.profile_id("sel"),
                                             group_id=300, max_size=4)
    group.members.add(member_id=5, weight=1)
    group.members.add(member_id=6, weight=3)
    c.write(update(INSERT, action_profile_group=group))
    updates = []
    for a, m in ((1, 1), (2, 200), (3, (1 << 31) - 1)):
        te = entry("by_profile", a)
        te.action.action_profile_member_id = m
        updates.append(update(INSERT, table_entry=te))
    te = entry("by_profile_too", 9)
    te.action.action_profile_member_id = 2
    updates.append(update(INSERT, table_entry=te))
    for a, ref in ((1, ("group", 300)), (2, ("member", 5))):
        te = entry("by_selector", a)
        if ref[0] == "group":
            te.action.action_profile_group_id = ref[1]
        else:
            te.action.action_profile_member_id = ref[1]
        updates.append(update(INSERT, table_entry=te))
    for a, shots in ((1, ((4, 1),)), (2, ((1, 2), (0, 5), (511, 3)))):
        te = entry("by_members", a)
        for port, weight in shots:
            shot = te.action.action_profile_action_set.action_profile_actions.add(
                weight=weight)
            shot.action.CopyFrom(p.action("fwd", port))
        updates.append(update(INSERT, table_entry=te))
    c.write(*updates)
    ctx = ctx_of(harness)
    assert check(ctx, TE()) == len(updates)
    assert check(ctx, TE(is_default_action=True)) == 4
    member_filter = TE(table_id=p.table_id("by_profile"))
    member_filter.action.action_profile_member_id = 200
    assert check(ctx, member_filter) == 1
    group_filter = TE(table_id=p.table_id("by_selector"))
    group_filter.action.action_profile_group_id = 300
    assert check(ctx, group_filter) == 1


@pytest.mark.parametrize("program", [ROOT / "tests" / "p4" / "p4info_externs.p4",
                                     ROOT / "tests" / "p4" / "p4info_basic.p4", SWITCH],
                         ids=lambda p: p.stem)
def test_const_entries_of_test_programs(harness: Harness, program: Path) -> None:
    """Entries from the programs themselves: const and initial entries, wildcards,
    static entries of profile tables, keyless tables."""
    harness.primary_with(program)
    ctx = ctx_of(harness)
    assert check(ctx, TE()) > 0
    assert check(ctx, TE(is_default_action=True)) > 0
    check(ctx, with_direct(TE(), "counter_data", "meter_config", "time_since_last_hit"))


# -- over gRPC -----------------------------------------------------------------------------

def raw_read(h: Harness, *entities: E) -> list[bytes]:
    """The serialized ReadResponses of a Read, as they came over the wire."""
    call = h.channel.unary_stream("/p4.v1.P4Runtime/Read", request_serializer=None,
                                  response_deserializer=None)
    request = p4runtime_pb2.ReadRequest(device_id=h.target.device_id)
    request.entities.extend(entities)
    return list(call(request.SerializeToString(), timeout=30))


def reference_entities(ctx: PipelineContext, entity: E) -> list[E]:
    """What the protobuf path reads for one requested entity (other kinds than table
    entries are still read through protobuf by ``read_entity``)."""
    if entity.WhichOneof("entity") == "table_entry":
        return reference(ctx, entity.table_entry, 0)
    return [E.FromString(data) for data in read_entity(ctx, entity)]


def reference_responses(ctx: PipelineContext, entities: list[E], chunk: int) -> list[bytes]:
    """What the protobuf path sent: per requested entity, ReadResponses of ``chunk``
    entities each."""
    out = []
    for entity in entities:
        found = reference_entities(ctx, entity)
        for start in range(0, len(found), chunk):
            out.append(p4runtime_pb2.ReadResponse(
                entities=found[start:start + chunk]).SerializeToString())
    return out


def test_grpc_read_sends_the_reference_bytes(harness: Harness, kinds: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    c, k = kinds_pipeline(harness, kinds)
    ctx = ctx_of(harness)
    monkeypatch.setattr(server_module, "READ_CHUNK", 7)
    want_direct = with_direct(TE(table_id=k.table_id("all_kinds")), "counter_data",
                              "meter_config")
    request = [
        E(table_entry=TE()),
        E(direct_counter_entry=p4runtime_pb2.DirectCounterEntry()),  # protobuf path
        E(table_entry=TE(is_default_action=True)),
        E(table_entry=want_direct),
        E(table_entry=TE(table_id=k.table_id("range_t"))),
        E(table_entry=TE(table_id=k.table_id("ternary_t"), priority=999)),  # none
    ]
    got = raw_read(harness, *request)
    assert got == reference_responses(ctx, request, 7)
    assert len(got) > 40
    assert c.read(*request) == [e for entity in request
                                for e in reference_entities(ctx, entity)]


def test_grpc_read_of_a_large_table_in_chunks(harness: Harness, kinds: Path) -> None:
    c = harness.primary_with(kinds)
    k = Names(p4info_of(kinds))
    c.write(*(update(INSERT, table_entry=k.entry("lpm_t", {"hdr.h.e": (i << 100, 28)},
                                                 "fwd", (i % 512,)))
              for i in range(1, 1501)))
    want = E(table_entry=TE(table_id=k.table_id("lpm_t")))
    got = raw_read(harness, want)
    assert [len(p4runtime_pb2.ReadResponse.FromString(r).entities) for r in got] == [
        server_module.READ_CHUNK, 1500 - server_module.READ_CHUNK]
    assert got == reference_responses(ctx_of(harness), [want], server_module.READ_CHUNK)


def test_grpc_read_errors_keep_their_codes(harness: Harness, kinds: Path) -> None:
    c = harness.primary_with(kinds)
    with pytest.raises(grpc.RpcError) as info:
        c.read(E(table_entry=TE()), E(table_entry=TE(table_id=12345)))
    assert info.value.code() == grpc.StatusCode.UNKNOWN
    assert detail_codes(info.value) == [code_pb2.OK, code_pb2.NOT_FOUND]


def test_read_responses_framing() -> None:
    entities = [E(table_entry=TE(table_id=i, metadata=b"x" * (i * 50))).SerializeToString()
                for i in range(1, 6)]
    got = list(read_responses(entities, 2))
    assert got == [p4runtime_pb2.ReadResponse(entities=[E.FromString(e) for e in chunk])
                   .SerializeToString() for chunk in (entities[:2], entities[2:4],
                                                      entities[4:])]
    assert list(read_responses([], 2)) == []
