"""Checks of our core.p4 / v1model.p4 against the declarations of p4c's files.

The expected names, orders, types and annotations below were read from p4c's
p4include/core.p4 and p4include/v1model.p4 (main branch).  The checks are
text-level on the preprocessed output, so they do not depend on the P4 parser.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from behavioral_model.frontend.preprocess import (
    BUILTIN_INCLUDE_DIR,
    preprocess,
    preprocess_text,
)

CORE = BUILTIN_INCLUDE_DIR / "core.p4"
V1MODEL = BUILTIN_INCLUDE_DIR / "v1model.p4"
NEW = {"V1MODEL_VERSION": "20200408"}

# standard_metadata_t in p4c's order: (field, type, @alias or None).
STANDARD_METADATA = [
    ("ingress_port", "bit<9>", None),
    ("egress_spec", "bit<9>", None),
    ("egress_port", "bit<9>", None),
    ("instance_type", "bit<32>", None),
    ("packet_length", "bit<32>", None),
    ("enq_timestamp", "bit<32>", "queueing_metadata.enq_timestamp"),
    ("enq_qdepth", "bit<19>", "queueing_metadata.enq_qdepth"),
    ("deq_timedelta", "bit<32>", "queueing_metadata.deq_timedelta"),
    ("deq_qdepth", "bit<19>", "queueing_metadata.deq_qdepth"),
    ("ingress_global_timestamp", "bit<48>", "intrinsic_metadata.ingress_global_timestamp"),
    ("egress_global_timestamp", "bit<48>", "intrinsic_metadata.egress_global_timestamp"),
    ("mcast_grp", "bit<16>", "intrinsic_metadata.mcast_grp"),
    ("egress_rid", "bit<16>", "intrinsic_metadata.egress_rid"),
    ("checksum_error", "bit<1>", None),
    ("parser_error", "error", None),
    ("priority", "bit<3>", "intrinsic_metadata.priority"),
]

# Extern functions of v1model.p4 with their full p4c signatures (annotations
# included), in p4c's order.
V1_FUNCTIONS = [
    "extern void random<T>(out T result, in T lo, in T hi);",
    "extern void digest<T>(in bit<32> receiver, in T data);",
    '@deprecated("Please use mark_to_drop(standard_metadata) instead.") '
    "extern void mark_to_drop();",
    "@pure extern void mark_to_drop(inout standard_metadata_t standard_metadata);",
    "@pure extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, "
    "in D data, in M max);",
    "extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, "
    "HashAlgorithm algo);",
    "@pure extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, "
    "HashAlgorithm algo);",
    "extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, "
    "in O checksum, HashAlgorithm algo);",
    "@noSideEffects extern void update_checksum_with_payload<T, O>(in bool condition, "
    "in T data, inout O checksum, HashAlgorithm algo);",
    "extern void clone(in CloneType type, in bit<32> session);",
    "@deprecated(\"Please use 'resubmit_preserving_field_list' instead\") "
    "extern void resubmit<T>(in T data);",
    "extern void resubmit_preserving_field_list(bit<8> index);",
    "@deprecated(\"Please use 'recirculate_preserving_field_list' instead\") "
    "extern void recirculate<T>(in T data);",
    "extern void recirculate_preserving_field_list(bit<8> index);",
    "@deprecated(\"Please use 'clone_preserving_field_list' instead\") "
    "extern void clone3<T>(in CloneType type, in bit<32> session, in T data);",
    "extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);",
    "extern void truncate(in bit<32> length);",
    "extern void assert(in bool check);",
    "extern void assume(in bool check);",
    "extern void log_msg(string msg);",
    "extern void log_msg<T>(string msg, in T data);",
]

# Extern objects: name -> members (constructor first), for V1MODEL_VERSION 20180101.
V1_OBJECTS_OLD = {
    "counter": ["counter(bit<32> size, CounterType type);", "void count(in bit<32> index);"],
    "direct_counter": ["direct_counter(CounterType type);", "void count();"],
    "meter": [
        "meter(bit<32> size, MeterType type);",
        "void execute_meter<T>(in bit<32> index, out T result);",
    ],
    "direct_meter<T>": ["direct_meter(MeterType type);", "void read(out T result);"],
    "register<T>": [
        "register(bit<32> size);",
        "@noSideEffects void read(out T result, in bit<32> index);",
        "void write(in bit<32> index, in T value);",
    ],
    "action_profile": ["action_profile(bit<32> size);"],
    "action_selector": [
        "action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);"
    ],
    "Checksum16": ["Checksum16();", "bit<16> get<D>(in D data);"],
}

# ... and what changes with V1MODEL_VERSION >= 20200408.
V1_OBJECTS_NEW = {
    **{k: v for k, v in V1_OBJECTS_OLD.items() if k not in ("counter", "meter", "register<T>")},
    "counter<I>": ["counter(bit<32> size, CounterType type);", "void count(in I index);"],
    "meter<I>": [
        "meter(bit<32> size, MeterType type);",
        "void execute_meter<T>(in I index, out T result);",
    ],
    "register<T, I>": [
        "register(bit<32> size);",
        "@noSideEffects void read(out T result, in I index);",
        "void write(in I index, in T value);",
    ],
}

ARCHITECTURE = [
    "parser Parser<H, M>(packet_in b, out H parsedHdr, inout M meta, "
    "inout standard_metadata_t standard_metadata);",
    "control VerifyChecksum<H, M>(inout H hdr, inout M meta);",
    "@pipeline control Ingress<H, M>(inout H hdr, inout M meta, "
    "inout standard_metadata_t standard_metadata);",
    "@pipeline control Egress<H, M>(inout H hdr, inout M meta, "
    "inout standard_metadata_t standard_metadata);",
    "control ComputeChecksum<H, M>(inout H hdr, inout M meta);",
    "@deparser control Deparser<H>(packet_out b, in H hdr);",
    "package V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, Ingress<H, M> ig, "
    "Egress<H, M> eg, ComputeChecksum<H, M> ck, Deparser<H> dep );",
]


def flat(text: str) -> str:
    """Whole text on one line with single spaces (declarations span lines)."""
    return " ".join(text.split())


def v1model(defines: dict[str, str] | None = None) -> str:
    return flat(preprocess_text("#include <v1model.p4>\n", defines=defines).text)


def block(text: str, head: str) -> str:
    """The {...} body that follows ``head`` (no nested braces in these files)."""
    # "extern counter\n<I>\n{" flattens to "extern counter <I> {".
    pattern = re.escape(head).replace("<", r" ?<")
    m = re.search(pattern + r" \{ (.*?) \}", text)
    assert m, f"{head} not found"
    return m.group(1)


def test_both_files_preprocess_cleanly() -> None:
    for path in (CORE, V1MODEL):
        result = preprocess(path)
        assert result.warnings == []
        assert "#" not in result.text.replace("#define", "")


def test_include_guards_and_version_macro() -> None:
    core_src = CORE.read_text()
    v1_src = V1MODEL.read_text()
    assert "#ifndef _CORE_P4_" in core_src and "#define _CORE_P4_" in core_src
    assert "#ifndef _V1_MODEL_P4_" in v1_src and "#define _V1_MODEL_P4_" in v1_src
    assert '#include "core.p4"' in v1_src
    twice = flat(preprocess_text("#include <v1model.p4>\n#include <v1model.p4>\n").text)
    assert twice == v1model()
    assert twice.count("extern packet_in") == 1


def test_core_declarations() -> None:
    text = flat(preprocess(CORE).text)
    assert block(text, "error").split(", ") == [
        "NoError",
        "PacketTooShort",
        "NoMatch",
        "StackOutOfBounds",
        "HeaderTooShort",
        "ParserTimeout",
        "ParserInvalidArgument",
    ]
    assert block(text, "extern packet_in") == (
        "void extract<T>(out T hdr); "
        "void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits); "
        "T lookahead<T>(); "
        "void advance(in bit<32> sizeInBits); "
        "bit<32> length();"
    )
    assert block(text, "extern packet_out") == "void emit<T>(in T hdr);"
    assert "extern void verify(in bool check, in error toSignal);" in text
    assert '@noWarn("unused") action NoAction() {}' in text
    assert block(text, "match_kind") == "exact, ternary, lpm"
    assert "extern bool static_assert(bool check, string message);" in text
    assert "extern bool static_assert(bool check);" in text


@pytest.mark.parametrize("defines", [None, NEW])
def test_standard_metadata_fields(defines: dict[str, str] | None) -> None:
    body = block(
        v1model(defines), '@metadata @name("standard_metadata") struct standard_metadata_t'
    )
    fields = re.findall(r'(?:@alias\("([^"]+)"\) )?([\w<>]+) (\w+);', body)
    got = [(name, typ, alias or None) for alias, typ, name in fields]
    # From 20200408 on, the three port fields use the PortId_t typedef.
    port_type = "PortId_t" if defines else "bit<9>"
    expected = [(n, port_type if t == "bit<9>" else t, a) for n, t, a in STANDARD_METADATA]
    assert got == expected


def test_v1model_version_variants() -> None:
    old, new = v1model(), v1model(NEW)
    assert "const bit<32> __v1model_version = 20180101;" in old
    assert "const bit<32> __v1model_version = 20200408;" in new
    assert "typedef bit<9> PortId_t;" in new and "PortId_t" not in old
    for text, objects in ((old, V1_OBJECTS_OLD), (new, V1_OBJECTS_NEW)):
        for head, members in objects.items():
            assert block(text, f"extern {head}") == " ".join(members), head
    assert "register<T, I>" not in old and "extern register<T> {" not in new


def test_v1model_enums_and_match_kinds() -> None:
    text = v1model()
    kinds = re.findall(r"match_kind \{ (.*?) \}", text)
    assert kinds == ["exact, ternary, lpm", "range, optional, selector"]
    assert block(text, "enum CounterType") == "packets, bytes, packets_and_bytes"
    assert block(text, "enum MeterType") == "packets, bytes"
    assert block(text, "enum HashAlgorithm").split(", ") == [
        "crc32",
        "crc32_custom",
        "crc16",
        "crc16_custom",
        "random",
        "identity",
        "csum16",
        "xor16",
    ]
    assert block(text, "enum CloneType") == "I2E, E2E"
    checksum16 = (
        '@deprecated("Please use verify_checksum/update_checksum instead.") extern Checksum16'
    )
    assert checksum16 in text


def test_v1model_extern_functions_in_order() -> None:
    text = v1model()
    positions = []
    for decl in V1_FUNCTIONS:
        assert decl in text, decl
        positions.append(text.index(decl))
    assert positions == sorted(positions)


def test_v1model_architecture_declarations_in_order() -> None:
    text = v1model()
    positions = [text.index(decl) for decl in ARCHITECTURE]
    assert positions == sorted(positions)
    assert text.index(V1_FUNCTIONS[-1]) < positions[0]


def test_meter_colour_macros() -> None:
    out = preprocess_text(
        "#include <v1model.p4>\n"
        "V1MODEL_METER_COLOR_GREEN V1MODEL_METER_COLOR_YELLOW V1MODEL_METER_COLOR_RED\n"
    )
    assert out.text.splitlines()[-1] == "0 1 2"


def test_every_named_extern_is_declared() -> None:
    text = v1model()
    names = [
        "counter", "direct_counter", "meter", "direct_meter", "register", "action_profile",
        "action_selector", "random", "digest", "mark_to_drop", "hash", "verify_checksum",
        "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload",
        "clone", "clone3", "clone_preserving_field_list", "resubmit",
        "resubmit_preserving_field_list", "recirculate", "recirculate_preserving_field_list",
        "truncate", "assert", "assume", "log_msg",
    ]  # fmt: skip
    for name in names:
        assert re.search(rf"extern (?:void |\w+ )?{name}\b", text), name


@pytest.mark.skipif(shutil.which("cpp") is None, reason="system cpp not installed")
@pytest.mark.parametrize("defines", [{}, NEW])
def test_same_output_as_system_cpp(defines: dict[str, str]) -> None:
    args = ["cpp", "-P", "-undef", "-nostdinc", f"-I{BUILTIN_INCLUDE_DIR}"]
    args += [f"-D{k}={v}" for k, v in defines.items()]
    src = "#include <v1model.p4>\n"
    cpp = subprocess.run(args, input=src, capture_output=True, text=True, check=True)
    assert flat(preprocess_text(src, defines=defines).text) == flat(cpp.stdout)


# The PNA externs and blocks the NIC uses, with the signatures of p4c's
# p4include/pna.p4 (main branch); comments stripped.  p4c-dpdk reads its own
# p4include/dpdk/pna.p4, whose Counter declares count(index) and count(index,
# pkt_len) as two overloads: a call with either arity type-checks against both.
PNA_OBJECTS = {
    "extern Counter<W, S>": [
        "Counter(bit<32> n_counters, PNA_CounterType_t type);",
        "void count(in S index, @optional in bit<32> increment);",
    ],
    "extern Register<T, S>": [
        "Register(bit<32> size);",
        "Register(bit<32> size, T initial_value);",
        "T read (in S index);",
        "void write (in S index, in T value);",
    ],
    "extern Random<T>": ["Random(T min, T max);", "T read();"],
    "extern Digest<T>": ["Digest();", "void pack(in T data);"],
}
PNA_DECLARATIONS = [
    "extern void drop_packet();",
    "extern void send_to_port(PortId_t dest_port);",
    "enum PNA_CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }",
    "package PNA_NIC<PH, PM, MH, MM>( MainParserT<MH, MM> main_parser, "
    "PreControlT<PH, PM> pre_control, MainControlT<MH, MM> main_control, "
    "MainDeparserT<MH, MM> main_deparser);",
]


def pna() -> str:
    text = preprocess_text("#include <pna.p4>\n").text
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return flat(re.sub(r"//[^\n]*", "", text))


@pytest.mark.parametrize("head", sorted(PNA_OBJECTS))
def test_pna_externs_the_nic_uses(head: str) -> None:
    body = block(pna(), head)
    assert body == " ".join(PNA_OBJECTS[head])


@pytest.mark.parametrize("decl", PNA_DECLARATIONS)
def test_pna_declarations_the_nic_uses(decl: str) -> None:
    assert flat(decl) in pna()
