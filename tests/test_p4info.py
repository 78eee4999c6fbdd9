"""Tests for behavioral_model.frontend.p4info: P4Info as p4c writes it for v1model.

Expected values come from three independent places:

* `p4info_basic.p4info.txtpb`, written by hand from p4c's conventions (as its published
  testdata outputs show them) for `p4info_basic.p4`; compared message and text.
* ids computed here by a separately written Jenkins one-at-a-time hash (`ref_hash`).
* (name -> id) pairs copied as values from p4c's testdata outputs
  (testdata/p4_16_samples_outputs/*.p4info.txtpb), proving the hash is p4c's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.p4info import (
    TEXT_HEADER,
    generate_p4info,
    p4info_text,
    write_p4info,
)
from behavioral_model.frontend.p4info_ids import SuffixSet, SymbolTable, jenkins_hash
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program, load_program_text

P4_DIR = Path(__file__).parent / "p4"

PREFIX = {
    "action": 0x01, "table": 0x02, "value_set": 0x03, "controller_header": 0x04,
    "action_profile": 0x11, "counter": 0x12, "direct_counter": 0x13, "meter": 0x14,
    "direct_meter": 0x15, "register": 0x16, "digest": 0x17,
}


def ref_hash(name: str) -> int:
    """Jenkins one-at-a-time, written from the published algorithm (32-bit arithmetic)."""
    h = 0
    for c in name.encode("ascii"):
        h = (h + c) % 2**32
        h = (h + h * 1024) % 2**32
        h = h ^ (h // 64)
    h = (h + h * 8) % 2**32
    h = h ^ (h // 2048)
    h = (h + h * 32768) % 2**32
    return h


def ref_id(kind: str, name: str) -> int:
    return PREFIX[kind] * 2**24 + ref_hash(name) % 2**24


# Values from p4c's testdata outputs (file: name -> id).
P4C_IDS = [
    # action_profile-bmv2.p4.p4info.txtpb (and every v1model output with NoAction)
    ("action", "NoAction", 21257015),
    ("action", "IngressI.drop", 23455883),
    ("table", "IngressI.indirect", 46872340),
    ("table", "IngressI.indirect_ws", 38116258),
    ("action_profile", "ap", 294074782),
    ("action_profile", "ap_ws", 300324846),
    # v1model-digest-containing-ser-enum.p4.p4info.txtpb
    ("action", "MyIngress.drop", 25652968),
    ("action", "MyIngress.set_nhop", 24952588),
    ("table", "MyIngress.ipv4_lpm", 37375156),
    ("table", "MyIngress.forward", 46460945),
    ("digest", "test_digest_t", 387015589),
    # pvs-struct-1-bmv2.p4.p4info.txtpb
    ("value_set", "MyParser.pvs", 56033750),
    # fabric_20190420/fabric.p4.p4info.txtpb
    ("controller_header", "packet_in_header_t", 81826293),
    ("counter", "FabricIngress.port_counters_control.egress_port_counter", 314528581),
    ("direct_counter", "FabricIngress.filtering.ingress_port_vlan_counter", 326221069),
    ("action_profile", "FabricIngress.next.hashed_selector", 291115404),
]


@pytest.fixture(scope="module")
def basic() -> p4info_pb2.P4Info:
    return generate_p4info(load_program(P4_DIR / "p4info_basic.p4").checked)


@pytest.fixture(scope="module")
def externs() -> p4info_pb2.P4Info:
    return generate_p4info(load_program(P4_DIR / "p4info_externs.p4").checked)


def by_name(entities, name: str):
    matches = [e for e in entities if e.preamble.name == name]
    assert len(matches) == 1, f"{name}: {len(matches)} matches"
    return matches[0]


def names(entities) -> list[str]:
    return [e.preamble.name for e in entities]


# ---------------------------------------------------------------------------------------
# ids


@pytest.mark.parametrize(("kind", "name", "expected"), P4C_IDS)
def test_reference_hash_matches_p4c(kind: str, name: str, expected: int) -> None:
    assert ref_id(kind, name) == expected


@pytest.mark.parametrize(("kind", "name", "expected"), P4C_IDS)
def test_symbol_table_ids_match_p4c(kind: str, name: str, expected: int) -> None:
    symbols = SymbolTable()
    symbols.add(PREFIX[kind], name)
    symbols.assign()
    assert symbols.id(PREFIX[kind], name) == expected


def test_jenkins_hash_matches_reference() -> None:
    for name in ["", "a", "NoAction", "MyIngress.ipv6_lpm", "x" * 300]:
        assert jenkins_hash(name) == ref_hash(name)


def test_program_ids_match_p4c_values() -> None:
    """A program of our own reusing names of p4c's samples gets p4c's published ids."""
    info = generate_p4info(load_program_text(SAMPLE_NAMES, "sample_names.p4").checked)
    ids = {e.preamble.name: e.preamble.id for e in [*info.tables, *info.actions]}
    assert ids["NoAction"] == 21257015
    assert ids["MyIngress.drop"] == 25652968
    assert ids["MyIngress.set_nhop"] == 24952588
    assert ids["MyIngress.ipv4_lpm"] == 37375156
    assert ids["MyIngress.forward"] == 46460945
    assert by_name(info.digests, "test_digest_t").preamble.id == 387015589


def test_collision_is_resolved_by_linear_probing_in_name_order() -> None:
    # Two names whose hashes agree in the low 24 bits (found by search with ref_hash).
    a, b = "c.t1626", "c.t3872"
    assert ref_hash(a) % 2**24 == ref_hash(b) % 2**24
    assert ref_hash(a) != ref_hash(b)
    symbols = SymbolTable()
    symbols.add(0x02, b)  # insertion order does not matter, sorted order does
    symbols.add(0x02, a)
    symbols.assign()
    assert symbols.id(0x02, a) == ref_id("table", a)
    assert symbols.id(0x02, b) == ref_id("table", a) + 1


def test_explicit_id_takes_the_slot_of_a_hashed_name(externs: p4info_pb2.P4Info) -> None:
    # @id(0x5c560b) on "squatter" is the hash slot of "MyIngress.victim".
    victim = ref_id("action", "MyIngress.victim")
    assert victim & 0xFFFFFF == 0x5C560B
    assert by_name(externs.actions, "MyIngress.squatter").preamble.id == victim
    assert by_name(externs.actions, "MyIngress.victim").preamble.id == victim + 1


def test_id_annotations(externs: p4info_pb2.P4Info) -> None:
    assert by_name(externs.tables, "MyIngress.nh_a").preamble.id == 0x02000064
    assert by_name(externs.counters, "MyIngress.port_bytes").preamble.id == 0x12000009
    acl = by_name(externs.tables, "MyIngress.acl")
    assert [(f.id, f.name) for f in acl.match_fields] == [
        (1, "hdr.ethernet.ether_type"), (5, "meta.tag"), (2, "meta.group")]
    packet_in = by_name(externs.controller_packet_metadata, "packet_in")
    assert [(m.id, m.name) for m in packet_in.metadata] == [
        (1, "ingress_port"), (4, "reason"), (2, "color"), (3, "_pad")]


def test_all_hashed_ids_follow_the_reference(externs: p4info_pb2.P4Info,
                                             basic: p4info_pb2.P4Info) -> None:
    explicit = {"MyIngress.nh_a", "MyIngress.port_bytes", "MyIngress.squatter",
                "MyIngress.victim"}
    groups = {
        "table": "tables", "action": "actions", "action_profile": "action_profiles",
        "counter": "counters", "direct_counter": "direct_counters", "meter": "meters",
        "direct_meter": "direct_meters", "register": "registers", "digest": "digests",
        "value_set": "value_sets",
    }
    checked = 0
    for info in (basic, externs):
        for kind, attr in groups.items():
            for e in getattr(info, attr):
                if e.preamble.name not in explicit:
                    assert e.preamble.id == ref_id(kind, e.preamble.name), e.preamble.name
                    checked += 1
    # controller headers hash the header type's name, not the "packet_in" name.
    assert by_name(externs.controller_packet_metadata, "packet_in").preamble.id == ref_id(
        "controller_header", "packet_in_t")
    assert by_name(externs.controller_packet_metadata, "packet_out").preamble.id == ref_id(
        "controller_header", "packet_out_t")
    assert checked > 30


def test_suffix_set_aliases() -> None:
    s = SuffixSet()
    for name in ["d.a.c", "e.b.c", "x.y", "y", "MyIngress.t", "MyEgress.t", "MyIngress.t"]:
        s.add(name)
    assert s.shortest_unique_suffix("d.a.c") == "a.c"
    assert s.shortest_unique_suffix("e.b.c") == "b.c"
    assert s.shortest_unique_suffix("x.y") == "x.y"
    assert s.shortest_unique_suffix("y") == "y"
    assert s.shortest_unique_suffix("MyIngress.t") == "MyIngress.t"


# ---------------------------------------------------------------------------------------
# whole message


def test_basic_program_matches_expected_message(basic: p4info_pb2.P4Info) -> None:
    expected = text_format.Parse((P4_DIR / "p4info_basic.p4info.txtpb").read_text(),
                                 p4info_pb2.P4Info())
    assert basic == expected


def test_basic_program_text_is_identical(basic: p4info_pb2.P4Info) -> None:
    text = p4info_text(basic)
    assert text.startswith(TEXT_HEADER)
    assert text == (P4_DIR / "p4info_basic.p4info.txtpb").read_text()


def test_basic_names_aliases_and_scopes(basic: p4info_pb2.P4Info) -> None:
    # The unused action and the @hidden table are left out; NoAction and the top-level
    # action come first among actions, as p4c localizes them ahead of the control's own.
    assert names(basic.tables) == ["MyIngress.vrf_map", "MyIngress.ipv6_lpm",
                                   "MyIngress.classifier", "MyEgress.rewrite_mac"]
    assert names(basic.actions)[:2] == ["NoAction", "drop_packet"]
    assert "MyIngress.unused_action" not in names(basic.actions)
    assert by_name(basic.actions, "MyIngress.on_miss").preamble.alias == "MyIngress.on_miss"
    assert by_name(basic.actions, "MyIngress.set_vrf_id").preamble.alias == "set_vrf_id"
    lpm = by_name(basic.tables, "MyIngress.ipv6_lpm")
    scopes = [r.scope for r in lpm.action_refs]
    assert scopes == [p4info_pb2.ActionRef.TABLE_AND_DEFAULT,
                      p4info_pb2.ActionRef.DEFAULT_ONLY, p4info_pb2.ActionRef.TABLE_ONLY]


# ---------------------------------------------------------------------------------------
# entity kinds (p4info_externs.p4)


def test_pkg_info(externs: p4info_pb2.P4Info) -> None:
    pkg = externs.pkg_info
    assert (pkg.arch, pkg.name, pkg.version) == ("v1model", "p4info_externs.p4", "2")
    assert pkg.doc.brief == "P4Info test program"
    assert list(pkg.annotations) == []


def test_nested_control_is_inlined_by_instance_name(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.tables) == [
        "MyIngress.stats.flows", "MyIngress.acl", "MyIngress.ecmp", "MyIngress.nh_a",
        "nh_b_absolute", "MyIngress.inline_impl"]
    assert "MyIngress.stats.meter_flow" in names(externs.actions)
    assert not any("never_applied" in n for n in names(externs.counters))
    # Only called from another action's body: inlined by p4c, so not an action of MyIngress.
    assert "set_tag" not in names(externs.actions)
    assert "MyIngress.hidden_action" not in names(externs.actions)


def test_counters_and_meters(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.counters) == [
        "global_counter", "MyIngress.port_bytes", "MyIngress.stats.port_packets"]
    units = {c.preamble.name: (c.spec.unit, c.size) for c in externs.counters}
    assert units == {
        "global_counter": (p4info_pb2.CounterSpec.BOTH, 256),
        "MyIngress.port_bytes": (p4info_pb2.CounterSpec.BYTES, 1024),
        "MyIngress.stats.port_packets": (p4info_pb2.CounterSpec.PACKETS, 512),
    }
    meter = by_name(externs.meters, "MyIngress.stats.port_meter")
    assert (meter.spec.unit, meter.size, meter.preamble.alias) == (
        p4info_pb2.MeterSpec.BYTES, 512, "port_meter")


def test_direct_resources(externs: p4info_pb2.P4Info) -> None:
    acl = by_name(externs.tables, "MyIngress.acl")
    hits = by_name(externs.direct_counters, "MyIngress.acl_hits")
    assert list(acl.direct_resource_ids) == [hits.preamble.id]
    assert hits.direct_table_id == acl.preamble.id
    assert hits.spec.unit == p4info_pb2.CounterSpec.PACKETS
    flows = by_name(externs.tables, "MyIngress.stats.flows")
    meter = by_name(externs.direct_meters, "MyIngress.stats.flow_meter")
    assert list(flows.direct_resource_ids) == [meter.preamble.id]
    assert (meter.direct_table_id, meter.spec.unit) == (flows.preamble.id,
                                                         p4info_pb2.MeterSpec.PACKETS)
    inline = by_name(externs.tables, "MyIngress.inline_impl")
    counter = by_name(externs.direct_counters, "inline_counter")
    assert list(inline.direct_resource_ids) == [counter.preamble.id]
    assert counter.spec.unit == p4info_pb2.CounterSpec.BOTH


def test_action_profiles_and_selectors(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.action_profiles) == [
        "MyIngress.nh_profile", "MyIngress.ecmp_selector", "inline_profile"]
    nh = by_name(externs.action_profiles, "MyIngress.nh_profile")
    nh_ids = [by_name(externs.tables, n).preamble.id for n in ("MyIngress.nh_a",
                                                               "nh_b_absolute")]
    assert list(nh.table_ids) == nh_ids  # sorted by table name
    assert (nh.with_selector, nh.size) == (False, 64)
    for t in ("MyIngress.nh_a", "nh_b_absolute"):
        assert by_name(externs.tables, t).implementation_id == nh.preamble.id
    sel = by_name(externs.action_profiles, "MyIngress.ecmp_selector")
    assert (sel.with_selector, sel.size, sel.max_group_size) == (True, 128, 8)
    assert sel.WhichOneof("selector_size_semantics") == "sum_of_members"
    assert sel.sum_of_members.max_member_weight == 100
    assert list(sel.preamble.annotations) == ['@my_selector_note("spread")']
    ecmp = by_name(externs.tables, "MyIngress.ecmp")
    assert ecmp.implementation_id == sel.preamble.id
    # the selector key is not a match field, but it uses up id 2
    assert [(f.id, f.name) for f in ecmp.match_fields] == [(1, "meta.group"), (3, "meta.tag")]
    inline = by_name(externs.action_profiles, "inline_profile")
    assert (inline.size, list(inline.table_ids)) == (
        16, [by_name(externs.tables, "MyIngress.inline_impl").preamble.id])


def test_registers(externs: p4info_pb2.P4Info) -> None:
    reg = by_name(externs.registers, "MyIngress.flow_reg")
    assert reg.size == 256
    assert reg.type_spec.bitstring.bit.bitwidth == 32
    signed = by_name(externs.registers, "MyIngress.signed_reg")
    assert (signed.size, signed.type_spec.bitstring.int.bitwidth) == (16, 16)


def test_table_properties(externs: p4info_pb2.P4Info) -> None:
    acl = by_name(externs.tables, "MyIngress.acl")
    assert acl.idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL
    assert (acl.is_const_table, acl.has_initial_entries) == (False, True)
    assert acl.size == 1024
    assert by_name(externs.tables, "MyIngress.stats.flows").size == 2048
    assert by_name(externs.tables, "MyIngress.ecmp").idle_timeout_behavior == \
        p4info_pb2.Table.NO_TIMEOUT


def test_digests_and_type_info(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.digests) == ["learn_t", "flow_event_t"]
    learn = by_name(externs.digests, "learn_t")
    assert learn.type_spec.struct.name == "learn_t"
    struct = externs.type_info.structs["learn_t"]
    members = {m.name: m.type_spec for m in struct.members}
    assert list(members) == ["src", "port", "color", "flag", "err"]
    assert members["src"].bitstring.bit.bitwidth == 48
    assert members["port"].bitstring.bit.bitwidth == 9  # typedef resolved
    assert members["color"].serializable_enum.name == "Color"
    assert members["flag"].HasField("bool")
    assert members["err"].HasField("error")
    assert list(externs.type_info.error.members) == [
        "NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort",
        "ParserTimeout", "ParserInvalidArgument"]
    color = externs.type_info.serializable_enums["Color"]
    assert color.underlying_type.bitwidth == 8
    assert [(m.name, m.value) for m in color.members] == [
        ("GREEN", b"\x00"), ("YELLOW", b"\x01"), ("RED", b"\x02")]
    # @name on the struct names the digest and its type_info entry
    flow = by_name(externs.digests, "flow_event_t")
    assert flow.type_spec.struct.name == "flow_event_t"
    assert [m.name for m in externs.type_info.structs["flow_event_t"].members] == ["flow"]


def test_controller_headers(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.controller_packet_metadata) == ["packet_in", "packet_out"]
    packet_in = by_name(externs.controller_packet_metadata, "packet_in")
    assert packet_in.preamble.alias == "packet_in"
    assert list(packet_in.preamble.annotations) == ['@controller_header("packet_in")']
    assert [(m.name, m.bitwidth) for m in packet_in.metadata] == [
        ("ingress_port", 9), ("reason", 8), ("color", 8), ("_pad", 7)]
    packet_out = by_name(externs.controller_packet_metadata, "packet_out")
    # the @hidden field is left out
    assert [(m.id, m.name, m.bitwidth) for m in packet_out.metadata] == [
        (1, "egress_port", 9)]


def test_value_sets(externs: p4info_pb2.P4Info) -> None:
    assert names(externs.value_sets) == ["MyParser.pvs", "MyParser.tunnel_types"]
    pvs = by_name(externs.value_sets, "MyParser.pvs")
    assert pvs.size == 8
    assert [(m.id, m.name, m.bitwidth, m.match_type, m.doc.brief) for m in pvs.match] == [
        (1, "ether_type", 16, p4info_pb2.MatchField.TERNARY, "EtherType")]
    tunnels = by_name(externs.value_sets, "MyParser.tunnel_types")
    assert tunnels.preamble.doc.brief == "EtherTypes of tunnels"
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in tunnels.match] == [
        (1, "", 16, p4info_pb2.MatchField.EXACT)]


def test_other_match_kind_and_default_action_arguments() -> None:
    info = generate_p4info(load_program_text(OTHER_MATCH, "other_match.p4").checked)
    t = by_name(info.tables, "C.t")
    # The unused counter E.t shares the last component: both aliases need two.
    assert t.preamble.alias == "C.t"
    assert by_name(info.counters, "E.t").preamble.alias == "E.t"
    # An action only called from the apply block is part of the control.
    assert names(info.actions) == ["C.set", "C.direct"]
    assert [(f.name, f.match_type, f.other_match_type) for f in t.match_fields] == [
        ("h.a", p4info_pb2.MatchField.UNSPECIFIED, "fancy"),
        ("h.b", p4info_pb2.MatchField.EXACT, "")]
    action = by_name(info.actions, "C.set")
    assert [(p.id, p.name, p.bitwidth) for p in action.params] == [
        (1, "x", 9), (2, "y", 32), (3, "flag", 1)]
    default = t.initial_default_action
    assert default.action_id == action.preamble.id
    assert t.const_default_action_id == 0
    assert [(a.param_id, a.value) for a in default.arguments] == [
        (1, b"\x01\x02"), (2, b"\x00\x00\x00\x0a"), (3, b"\x01")]


def test_new_types_and_translation() -> None:
    info = generate_p4info(load_program_text(NEW_TYPES, "new_types.p4").checked)
    t = by_name(info.tables, "C.t")
    assert [(f.name, f.bitwidth, f.type_name.name) for f in t.match_fields] == [
        ("m.port", 32, "port_id_t"), ("m.vrf", 16, "vrf_t")]
    fwd = by_name(info.actions, "C.fwd")
    assert [(p.name, p.bitwidth, p.type_name.name) for p in fwd.params] == [
        ("port", 32, "port_id_t"), ("vrf", 16, "vrf_t")]
    port = info.type_info.new_types["port_id_t"]
    assert (port.translated_type.uri, port.translated_type.sdn_bitwidth) == (
        "p4.org/psa/v1/PortId_t", 32)
    assert info.type_info.new_types["vrf_t"].original_type.bitstring.bit.bitwidth == 16


# ---------------------------------------------------------------------------------------
# output formats


@pytest.mark.parametrize("suffix", [".txtpb", ".txt", ".bin", ".pb", ".json"])
def test_write_formats_round_trip(tmp_path: Path, externs: p4info_pb2.P4Info,
                                  suffix: str) -> None:
    path = tmp_path / f"out{suffix}"
    write_p4info(externs, path)
    back = p4info_pb2.P4Info()
    if suffix in (".txtpb", ".txt"):
        text = path.read_text()
        assert text.startswith(TEXT_HEADER)
        text_format.Parse(text, back)
    elif suffix == ".json":
        json.loads(path.read_text())
        json_format.Parse(path.read_text(), back)
    else:
        back.ParseFromString(path.read_bytes())
    assert back == externs


def test_write_rejects_unknown_suffix(tmp_path: Path, basic: p4info_pb2.P4Info) -> None:
    with pytest.raises(ValueError, match="unknown P4Info format"):
        write_p4info(basic, tmp_path / "out.yaml")


# ---------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(("snippet", "message", "line"), [
    # A value set P4Runtime cannot describe.
    ("struct vs_t { bool flag; }\n"
     "control C(inout h_t h) { apply { } }\n"
     "parser Q(packet_in p, out h_t h) {\n"
     "    value_set<vs_t>(4) vs;\n"
     "    state start { transition select(h.a) { vs: accept; default: accept; } }\n"
     "}", "value_set 'P.q.vs': field 'flag'", 1),
    # An action parameter P4Runtime cannot describe.
    ("struct s_t { bit<8> a; }\n"
     "control C(inout h_t h) {\n"
     "    action a(s_t s) { h.a = s.a; }\n"
     "    table t { key = { h.a : exact; } actions = { a; } }\n"
     "    apply { t.apply(); }\n"
     "}", "action parameter 's'", 3),
    # @id with the prefix of another kind.
    ("control C(inout h_t h) {\n"
     "    action a() { }\n"
     "    @id(0x01000005) table t { key = { h.a : exact; } actions = { a; } }\n"
     "    apply { t.apply(); }\n"
     "}", "wrong 8-bit prefix", 3),
    # Two objects of one kind with the same @id.
    ("control C(inout h_t h) {\n"
     "    @id(7) action a() { }\n"
     "    @id(7) action b() { }\n"
     "    table t { key = { h.a : exact; } actions = { a; b; } }\n"
     "    apply { t.apply(); }\n"
     "}", "assigned to multiple declarations", 3),
    # An extern built in place in a table property needs a @name.
    ("control C(inout h_t h) {\n"
     "    action a() { }\n"
     "    table t {\n"
     "        key = { h.a : exact; }\n"
     "        actions = { a; }\n"
     "        implementation = action_profile(32w4);\n"
     "    }\n"
     "    apply { t.apply(); }\n"
     "}", "anonymous table property 'implementation'", 6),
    # An action reference cannot be both @tableonly and @defaultonly.
    ("control C(inout h_t h) {\n"
     "    action a() { }\n"
     "    table t {\n"
     "        key = { h.a : exact; }\n"
     "        actions = { @tableonly @defaultonly a; }\n"
     "    }\n"
     "    apply { t.apply(); }\n"
     "}", "both @tableonly and @defaultonly", 5),
    # Two tables whose @name makes them one P4Runtime object.
    ("control C(inout h_t h) {\n"
     "    action a() { }\n"
     "    @name(\".same\") table t1 { key = { h.a : exact; } actions = { a; } }\n"
     "    @name(\".same\") table t2 { key = { h.a : exact; } actions = { a; } }\n"
     "    apply { t1.apply(); t2.apply(); }\n"
     "}", "used for multiple table objects", 4),
])
def test_bad_input_raises_p4error_with_location(snippet: str, message: str,
                                                line: int | None) -> None:
    epilogue = BAD_EPILOGUE
    if "parser Q" in snippet:  # use the snippet's parser as a sub-parser
        epilogue = epilogue.replace("state start { p.extract(hdr.h); transition accept; }",
                                    "Q() q;\n    state start { q.apply(p, hdr.h); "
                                    "transition accept; }")
    text = BAD_PROLOGUE + snippet + epilogue
    checked = check_source(preprocess_text(text, "bad.p4"))  # P4Info needs no pipeline
    with pytest.raises(P4Error, match=message) as exc:
        generate_p4info(checked)
    err = exc.value
    assert err.location is not None
    assert err.location.file == "bad.p4"
    if line is not None:
        assert err.location.line == BAD_PROLOGUE.count("\n") + line
    assert str(err).startswith(f"bad.p4:{err.location.line}:")


# ---------------------------------------------------------------------------------------
# inline programs

SAMPLE_NAMES = """
#include <core.p4>
#include <v1model.p4>
header ipv4_t { bit<32> dstAddr; }
struct headers { ipv4_t ipv4; }
struct test_digest_t { bit<32> addr; }
struct metadata { test_digest_t d; }
parser MyParser(packet_in p, out headers h, inout metadata m, inout standard_metadata_t s) {
    state start { p.extract(h.ipv4); transition accept; }
}
control V(inout headers h, inout metadata m) { apply { } }
control MyIngress(inout headers h, inout metadata m, inout standard_metadata_t s) {
    action drop() { mark_to_drop(s); }
    action set_nhop(bit<32> addr, bit<9> port) { s.egress_spec = port; }
    table ipv4_lpm { key = { h.ipv4.dstAddr : lpm; } actions = { set_nhop; drop; } }
    table forward { key = { h.ipv4.dstAddr : exact; } actions = { drop; NoAction; } }
    apply {
        ipv4_lpm.apply();
        forward.apply();
        digest(1, m.d);
    }
}
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control CC(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { p.emit(h.ipv4); } }
V1Switch(MyParser(), V(), MyIngress(), E(), CC(), D()) main;
"""

OTHER_MATCH = """
#include <core.p4>
#include <v1model.p4>
match_kind { fancy }
header h_t { bit<8> a; bit<16> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in p, out headers hdr, inout metadata m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout headers h, inout metadata m) { apply { } }
control C(inout headers hdr, inout metadata m, inout standard_metadata_t s) {
    action set(bit<9> x, bit<32> y, bool flag) { s.egress_spec = x; }
    action direct() { }
    table t {
        key = { hdr.h.a : fancy @name("h.a"); hdr.h.b : exact @name("h.b"); }
        actions = { set; }
        default_action = set(0x102, 10, true);
    }
    apply { t.apply(); direct(); }
}
control E(inout headers h, inout metadata m, inout standard_metadata_t s) {
    counter(32w4, CounterType.packets) t;
    apply { }
}
control CC(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { } }
V1Switch(P(), V(), C(), E(), CC(), D()) main;
"""

NEW_TYPES = """
#include <core.p4>
#include <v1model.p4>
@p4runtime_translation("p4.org/psa/v1/PortId_t", 32)
type bit<9> port_id_t;
type bit<16> vrf_t;
header h_t { bit<8> a; }
struct headers { h_t h; }
struct metadata { port_id_t port; vrf_t vrf; }
parser P(packet_in p, out headers hdr, inout metadata m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout headers h, inout metadata m) { apply { } }
control C(inout headers hdr, inout metadata m, inout standard_metadata_t s) {
    action fwd(port_id_t port, vrf_t vrf) { m.port = port; m.vrf = vrf; }
    table t { key = { m.port : exact; m.vrf : exact; } actions = { fwd; } }
    apply { t.apply(); }
}
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control CC(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { } }
V1Switch(P(), V(), C(), E(), CC(), D()) main;
"""

BAD_PROLOGUE = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
"""

BAD_EPILOGUE = """
struct headers { h_t h; }
struct metadata { }
parser P(packet_in p, out headers hdr, inout metadata m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout headers h, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t s) {
    C() c;
    apply { c.apply(hdr.h); }
}
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control CC(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { } }
V1Switch(P(), V(), I(), E(), CC(), D()) main;
"""
