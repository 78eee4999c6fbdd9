"""STF parser: every command, value forms, packet patterns, errors with locations."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.matches import Exact, Lpm, MatchKind, Optional_, Range, Ternary
from behavioral_model.stf import (
    AddEntry,
    CheckCounter,
    CounterRead,
    CounterReset,
    CounterWrite,
    ExpectedPacket,
    ExpectNoPacket,
    ExpectPacket,
    MaskedValue,
    McGroupCreate,
    McGroupDestroy,
    McNodeAssociate,
    McNodeCreate,
    McNodeDestroy,
    McNodeDissociate,
    McNodeUpdate,
    MeterArraySetRates,
    MeterGetRates,
    MeterRate,
    MeterSetRates,
    MirroringAdd,
    MirroringAddMc,
    MirroringDelete,
    MirroringGet,
    NumberValue,
    PrefixValue,
    RangeValue,
    RegisterRead,
    RegisterReset,
    RegisterWrite,
    RemoveAll,
    RemoveEntry,
    SendPacket,
    SetDefault,
    STFError,
    STFSyntaxError,
    STFValueError,
    Wait,
    parse_stf,
    parse_stf_file,
    to_field_match,
)


def one(text: str) -> object:
    commands = parse_stf(text, "t.stf")
    assert len(commands) == 1
    return commands[0]


def syntax_error(text: str) -> STFSyntaxError:
    with pytest.raises(STFSyntaxError) as info:
        parse_stf(text, "bad.stf")
    return info.value


# -- table commands --------------------------------------------------------------------


def test_add_with_priority_qualified_action_and_args() -> None:
    command = one("add test1 503 data.f1:0x****0202 ingress.setb1(val:7, port:3)")
    assert command == AddEntry(
        "test1",
        503,
        (("data.f1", NumberValue(0x0202, 0x0000FFFF, 32)),),
        "ingress.setb1",
        (("val", 7), ("port", 3)),
    )


def test_add_without_priority_several_keys_and_no_args() -> None:
    command = one("add mac_da fwd.l2ptr:0xe50b meta.vrf:3 drop()")
    assert isinstance(command, AddEntry)
    assert command.priority is None
    assert [name for name, _ in command.keys] == ["fwd.l2ptr", "meta.vrf"]
    assert command.args == ()


def test_add_with_entry_handle() -> None:
    command = one("add tab1 dstAddr:0xa1a2a3a4a5a6 act(port:2) = A")
    assert isinstance(command, AddEntry)
    assert command.handle == "A"


def test_key_names_with_dollar_array_index_and_quotes() -> None:
    command = one('add t extra$0.h:1 hdr.vlan[1].vid:2 h.$valid$:1 "my key":4 a()')
    assert isinstance(command, AddEntry)
    assert [name for name, _ in command.keys] == [
        "extra$0.h",
        "hdr.vlan[1].vid",
        "h.$valid$",
        "my key",
    ]


def test_key_value_forms() -> None:
    command = one(
        "add t 1 a:10 b:0x0A c:0b101 d:0x0A&&&0xFF e:0x0a000000/8 f:10..20 g:0x**"
        " h:0b1*0* x()"
    )
    assert isinstance(command, AddEntry)
    values = dict(command.keys)
    assert values["a"] == NumberValue(10, 0, None)
    assert values["b"] == NumberValue(0x0A, 0xFF, 8)
    assert values["c"] == NumberValue(0b101, 0b111, 3)
    assert values["d"] == MaskedValue(0x0A, 0xFF)
    assert values["e"] == PrefixValue(0x0A000000, 8)
    assert values["f"] == RangeValue(10, 20)
    assert values["g"] == NumberValue(0, 0, 8)
    assert values["h"] == NumberValue(0b1000, 0b1010, 4)
    assert values["h"].has_wildcards and not values["b"].has_wildcards
    assert values["d"].text == "0x0A&&&0xFF"


def test_setdefault() -> None:
    assert one("setdefault ethertype_match l2_packet()") == SetDefault(
        "ethertype_match", "l2_packet"
    )
    assert one("setdefault t ingress.set(port:0x10)") == SetDefault(
        "t", "ingress.set", (("port", 16),)
    )


def test_remove_all_and_remove_entry() -> None:
    assert one("remove all") == RemoveAll()
    assert one("remove acl 10 f:0x1*") == RemoveEntry(
        "acl", 10, (("f", NumberValue(0x10, 0xF0, 8)),)
    )


# -- packets ---------------------------------------------------------------------------


def test_packet_hex_with_spaces() -> None:
    assert one("packet 0 01010101 0202 ab") == SendPacket(0, bytes.fromhex("01010101 0202 ab"))


def test_expect_with_wildcards() -> None:
    command = one("expect 2 00000101 ******** **** 7f 66")
    assert isinstance(command, ExpectPacket)
    assert command.port == 2
    assert command.expected == ExpectedPacket("00000101************7F66")


def test_expect_exact_end_mark_attached_or_spaced() -> None:
    for text in ("expect 1 0a0b$", "expect 1 0a0b $", "expect 1 0a 0b  $  # done"):
        command = one(text)
        assert isinstance(command, ExpectPacket)
        assert command.expected == ExpectedPacket("0A0B", exact_length=True)


def test_expect_port_only_means_any_packet() -> None:
    assert one("expect 5") == ExpectPacket(5, None)


def test_no_packet_and_wait() -> None:
    assert parse_stf("no_packet\nwait\n") == [ExpectNoPacket(), Wait()]


# -- counters and BMv2 pass-through ------------------------------------------------------


def test_check_counter_forms() -> None:
    assert one("check_counter cntDum(10) packets == 2") == CheckCounter(
        "cntDum", 10, "packets", "==", 2
    )
    assert one("check_counter ingress.c(0x3) BYTES >= 100") == CheckCounter(
        "ingress.c", 3, "bytes", ">=", 100
    )
    assert one("check_counter cntDum($A)") == CheckCounter("cntDum", "$A")
    for op in ("==", "!=", "<", "<=", ">", ">="):
        command = one(f"check_counter c(1) packets {op} 0")
        assert isinstance(command, CheckCounter)
        assert command.op == op


def test_multicast_and_mirroring_commands() -> None:
    text = """
mc_mgrp_create 1113
mc_node_create 400 6
mc_node_create 401 7 8
mc_node_associate 1113 0
mc_node_update 1 9
mc_node_dissociate 1113 0
mc_node_destroy 0
mc_mgrp_destroy 1113
mirroring_add 5 4
mirroring_add_mc 6 1113
mirroring_get 5
mirroring_delete 5
"""
    assert parse_stf(text) == [
        McGroupCreate(1113),
        McNodeCreate(400, (6,)),
        McNodeCreate(401, (7, 8)),
        McNodeAssociate(1113, 0),
        McNodeUpdate(1, (9,)),
        McNodeDissociate(1113, 0),
        McNodeDestroy(0),
        McGroupDestroy(1113),
        MirroringAdd(5, 4),
        MirroringAddMc(6, 1113),
        MirroringGet(5),
        MirroringDelete(5),
    ]


def test_extern_commands() -> None:
    text = """
counter_read ingress.rx 3
counter_write rx 3 10 1000
counter_reset rx
register_read psn 7
register_write psn 7 0xffffff
register_reset psn
meter_get_rates m 0
meter_set_rates m 0 0.0001:10 0.0005:20
meter_array_set_rates m 1:100 2:200
"""
    assert parse_stf(text) == [
        CounterRead("ingress.rx", 3),
        CounterWrite("rx", 3, 10, 1000),
        CounterReset("rx"),
        RegisterRead("psn", 7),
        RegisterWrite("psn", 7, 0xFFFFFF),
        RegisterReset("psn"),
        MeterGetRates("m", 0),
        MeterSetRates("m", 0, (MeterRate(0.0001, 10), MeterRate(0.0005, 20))),
        MeterArraySetRates("m", (MeterRate(1.0, 100), MeterRate(2.0, 200))),
    ]


# -- a whole file in the style of p4c's testdata -----------------------------------------

SAMPLE = """\
# Two ternary entries; the more specific one has the larger priority.
add ex1 100 extra$0.h:0x25** act1(val:0x25)
add ex1 110 extra$0.h:0x2525 act2(val:0x27)
ADD fwd hdr.ipv6.dst:0xfc000000000000000000000000000000/16 ingress.set_port(port:3)

mc_mgrp_create 7
mc_node_create 0 1 2

#          dst          src          type payload
packet 0   0a0b0c0d0e0f 010203040506 86dd 6000 0000
expect 3   0a0b0c0d0e0f 010203040506 86dd 6000 ****
expect 4
wait

check_counter ingress.rx(0) packets == 1
"""


def test_sample_file_commands_and_line_numbers() -> None:
    commands = parse_stf(SAMPLE, "sample.stf")
    kinds = [type(c).__name__ for c in commands]
    assert kinds == [
        "AddEntry",
        "AddEntry",
        "AddEntry",
        "McGroupCreate",
        "McNodeCreate",
        "SendPacket",
        "ExpectPacket",
        "ExpectPacket",
        "Wait",
        "CheckCounter",
    ]
    assert [c.line for c in commands] == [2, 3, 4, 6, 7, 10, 11, 12, 13, 15]
    fwd = commands[2]
    assert isinstance(fwd, AddEntry)
    assert fwd.keys[0][1] == PrefixValue(0xFC << 120, 16)


def test_parse_stf_file(tmp_path: Path) -> None:
    path = tmp_path / "t.stf"
    path.write_text("packet 1 00\nexpect 1 00\n")
    assert parse_stf_file(path) == [SendPacket(1, b"\x00"), ExpectPacket(1, ExpectedPacket("00"))]
    with pytest.raises(STFError, match="cannot read"):
        parse_stf_file(tmp_path / "missing.stf")
    path.write_bytes(b"packet 0 \xff\n")
    with pytest.raises(STFSyntaxError, match="not UTF-8"):
        parse_stf_file(path)


def test_blank_and_comment_only_input() -> None:
    assert parse_stf("") == []
    assert parse_stf("\n  # nothing here\n\n") == []
    assert parse_stf("wait\r\n") == [Wait()]


# -- syntax errors ---------------------------------------------------------------------


def test_syntax_errors_carry_file_line_and_column() -> None:
    error = syntax_error("wait\n\nadd t k:1\n")
    assert isinstance(error, P4Error)
    assert error.location is not None
    assert (error.location.file, error.location.line) == ("bad.stf", 3)
    assert str(error).startswith("bad.stf:3:")
    assert "unexpected end of line" in str(error)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("frobnicate 1", 1, "unknown command 'frobnicate'"),
        ("wait\npacket 0 zz", 2, "unexpected 'zz'; expected end of line, hex packet data"),
        ("packet 0 0a *0", 1, "'*' is only allowed in expected packets"),
        ("expect 1 0a0 $", 1, "needs whole bytes"),
        ("expect 1 0a $ 0b", 1, "unexpected"),
        ("add t k:1 a(x:0x1*)", 1, "don't-care digits are only allowed in key values"),
        ("add t 1.5 k:1 a()", 1, "expected an integer"),
        ("add t k:5..2 a()", 1, "low is above high"),
        ("setdefault t a(", 1, "unexpected end of line"),
        ("check_counter c(1) packets", 1, "expected a comparison"),
        ("mirroring_add 1 x", 1, "unexpected 'x'; expected a number"),
        ("add t k:1 a() junk", 1, "unexpected 'junk'"),
        ("\n\n\nmc_node_associate 1", 4, "expected a number"),
    ],
)
def test_syntax_error_messages(text: str, line: int, message: str) -> None:
    error = syntax_error(text)
    assert error.location is not None and error.location.line == line
    assert message in error.message


# -- expected packets ------------------------------------------------------------------


def test_expected_packet_prefix_match_allows_extra_bytes() -> None:
    expected = ExpectedPacket.from_text("0a0b")
    assert expected.matches(bytes.fromhex("0a0b"))
    assert expected.matches(bytes.fromhex("0a0bff"))
    assert not expected.matches(bytes.fromhex("0a"))
    assert not expected.matches(bytes.fromhex("0a0c"))


def test_expected_packet_wildcard_nibbles() -> None:
    expected = ExpectedPacket.from_text("0* *b **")
    assert expected.matches(bytes.fromhex("05ab00"))
    assert expected.matches(bytes.fromhex("0f1bff"))
    assert not expected.matches(bytes.fromhex("15ab00"))
    assert not expected.matches(bytes.fromhex("05ac00"))


def test_expected_packet_dollar_requires_exact_length() -> None:
    expected = ExpectedPacket.from_text("0a0b $")
    assert expected.matches(bytes.fromhex("0a0b"))
    assert not expected.matches(bytes.fromhex("0a0b00"))
    assert ExpectedPacket.from_text("$").matches(b"")
    assert not ExpectedPacket.from_text("$").matches(b"\x00")


def test_packet_with_odd_digit_count_makes_the_last_digit_a_byte() -> None:
    # p4c's BMv2 runner reads packet data two digits at a time; a lone last digit
    # is converted on its own, so "0a 5" sends the bytes 0a 05.
    assert parse_stf("packet 0 0a 5\npacket 1 f\n") == [
        SendPacket(0, bytes.fromhex("0a05"), line=1),
        SendPacket(1, bytes.fromhex("0f"), line=2),
    ]


def test_expected_packet_odd_nibble_count_compares_half_a_byte() -> None:
    expected = ExpectedPacket.from_text("0a0")
    assert expected.matches(bytes.fromhex("0a05"))
    assert not expected.matches(bytes.fromhex("0a15"))


def test_expected_packet_diff_marks_first_difference() -> None:
    expected = ExpectedPacket.from_text("00" * 17 + "40 11")
    actual = bytes(17) + bytes.fromhex("3f11")
    report = expected.diff(actual)
    assert "first difference at byte 17 (offset 0x0011)" in report
    lines = report.splitlines()
    marked = [line for line in lines if line.startswith(">")]
    assert marked == ["> 000010  " + "00 40 11".ljust(47) + "  00 3f 11"]
    caret = lines[lines.index(marked[0]) + 1]
    assert caret == " " * 13 + "^^"
    assert expected.diff(bytes(17) + bytes.fromhex("4011")) == ""


def test_expected_packet_diff_reports_length_problems() -> None:
    assert "too short" in ExpectedPacket.from_text("0a0b0c").diff(b"\x0a")
    assert "too long" in ExpectedPacket.from_text("0a $").diff(b"\x0a\x0b")
    assert ExpectedPacket.from_text("0a $").first_mismatch(b"\x0a\x0b") == 2


def test_expected_packet_rejects_bad_characters() -> None:
    with pytest.raises(ValueError, match="invalid packet pattern"):
        ExpectedPacket("0g")


# -- key value conversion for a runner ---------------------------------------------------


def kv(text: str) -> object:
    command = one(f"add t 1 k:{text} a()")
    assert isinstance(command, AddEntry)
    return command.keys[0][1]


@pytest.mark.parametrize(
    ("text", "kind", "width", "expected"),
    [
        ("10", MatchKind.EXACT, 8, Exact(10)),
        ("0x0a", MatchKind.EXACT, 16, Exact(10)),
        ("0x****0101", MatchKind.TERNARY, 32, Ternary(0x0101, 0xFFFF)),
        ("0x0101", MatchKind.TERNARY, 32, Ternary(0x0101, 0xFFFF)),
        ("5", MatchKind.TERNARY, 8, Ternary(5, 0xFF)),
        ("0x**", MatchKind.TERNARY, 8, None),
        ("0b1*0*", MatchKind.TERNARY, 4, Ternary(0b1000, 0b1010)),
        ("0x0A&&&0x0F", MatchKind.TERNARY, 8, Ternary(0x0A, 0x0F)),
        ("0x0a000000/8", MatchKind.TERNARY, 32, Ternary(0x0A000000, 0xFF000000)),
        ("0x0a01****", MatchKind.LPM, 32, Lpm(0x0A010000, 16)),
        ("0x0a010203", MatchKind.LPM, 32, Lpm(0x0A010203, 32)),
        # Fewer digits than the field: the prefix is the written bits, from the top
        # (p4c's runner sends "0x0a01/16", so the top 16 bits must be zero).
        ("0x0a01", MatchKind.LPM, 32, Lpm(0x00000000, 16)),
        ("0x1*", MatchKind.LPM, 16, Lpm(0x0000, 4)),
        ("0b101", MatchKind.LPM, 8, Lpm(0x00, 3)),
        ("10", MatchKind.LPM, 8, Lpm(10, 8)),
        ("0x0a000000/8", MatchKind.LPM, 32, Lpm(0x0A000000, 8)),
        ("0x0a000000/0", MatchKind.LPM, 32, None),
        ("0xFF00&&&0xFF00", MatchKind.LPM, 16, Lpm(0xFF00, 8)),
        ("0x**", MatchKind.LPM, 8, None),
        ("10..20", MatchKind.RANGE, 16, Range(10, 20)),
        ("7", MatchKind.RANGE, 16, Range(7, 7)),
        ("7", MatchKind.OPTIONAL, 8, Optional_(7)),
        ("0x**", MatchKind.OPTIONAL, 8, None),
    ],
)
def test_to_field_match(text: str, kind: MatchKind, width: int, expected: object) -> None:
    assert to_field_match(kv(text), kind, width) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kind", "width", "message"),
    [
        ("0x1*", MatchKind.EXACT, 8, "need a ternary/lpm field"),
        ("0x*1", MatchKind.LPM, 8, "must form a suffix"),
        ("0x100", MatchKind.EXACT, 8, "does not fit"),
        ("1..2", MatchKind.TERNARY, 8, "needs a range field"),
        ("0x1*", MatchKind.OPTIONAL, 8, "all or nothing"),
        ("0x1/9", MatchKind.LPM, 8, "prefix length out of range"),
    ],
)
def test_to_field_match_errors(text: str, kind: MatchKind, width: int, message: str) -> None:
    with pytest.raises(STFValueError, match=message):
        to_field_match(kv(text), kind, width)  # type: ignore[arg-type]


def test_packet_without_data_is_an_empty_frame() -> None:
    # p4c's STF runner accepts `packet PORT` alone and sends a zero-length frame.
    (command,) = parse_stf("packet 3\n")
    assert command.port == 3 and command.data == b""
