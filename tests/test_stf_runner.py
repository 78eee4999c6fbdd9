"""STF runner: packet checking semantics, name resolution, priorities, externs, PRE.

Most tests run small STF texts against ``LAB``, a v1model program with an exact table
(with a validity key and a direct counter), a ternary table, an LPM table, an indexed
counter, a register, a meter, multicast and I2E cloning. Its header is 4 bytes
``a b c c``; ``a`` selects what ingress does (see the program).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.program import P4Program, load_program_text
from behavioral_model.stf import STFError, parse_stf
from behavioral_model.stf.runner import StfResult, run_stf, run_stf_file

LAB_P4 = """\
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

header opt_t {
    bit<8> x;
}

struct headers_t {
    h_t   h;
    opt_t opt;
}

struct meta_t { }

parser LabParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            0xff: parse_opt;
            default: accept;
        }
    }
    state parse_opt {
        pkt.extract(hdr.opt);
        transition accept;
    }
}

control LabVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control LabIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) cnt;
    direct_counter(CounterType.packets_and_bytes) dcnt;
    register<bit<8>>(4) reg;
    meter(4, MeterType.packets) mtr;

    action fwd(bit<9> port) {
        sm.egress_spec = port;
    }
    action set_b(bit<8> b, bit<9> port) {
        hdr.h.b = b;
        sm.egress_spec = port;
    }
    action drop() {
        mark_to_drop(sm);
    }
    action mcast(bit<16> grp) {
        sm.mcast_grp = grp;
    }
    action mirror(bit<32> session, bit<9> port) {
        clone(CloneType.I2E, session);
        sm.egress_spec = port;
    }
    table exact_t {
        key = {
            hdr.h.a: exact;
            hdr.opt.isValid(): exact;
        }
        actions = { fwd; set_b; drop; mcast; mirror; }
        default_action = drop();
        counters = dcnt;
    }
    table tern_t {
        key = {
            hdr.h.b: ternary;
            hdr.h.c: ternary;
        }
        actions = { fwd; set_b; drop; }
        default_action = drop();
    }
    table lpm_t {
        key = { hdr.h.c: lpm; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply {
        cnt.count((bit<32>)(hdr.h.a & 7));
        if (hdr.h.a == 0x10) {
            tern_t.apply();
        } else if (hdr.h.a == 0x11) {
            lpm_t.apply();
        } else if (hdr.h.a == 0x20) {
            reg.read(hdr.h.b, 0);
            reg.write(0, hdr.h.b + 1);
            sm.egress_spec = 1;
        } else if (hdr.h.a == 0x30) {
            mtr.execute_meter(0, hdr.h.b);
            sm.egress_spec = 1;
        } else {
            exact_t.apply();
        }
    }
}

control LabEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 5) {
            hdr.h.c = sm.egress_rid;
        } else if (sm.instance_type == 1) {
            hdr.h.c = 0xc10e;
        }
    }
}

control LabCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control LabDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.opt);
    }
}

V1Switch(LabParser(), LabVerify(), LabIngress(), LabEgress(), LabCompute(),
         LabDeparser()) main;
"""


@pytest.fixture(scope="module")
def lab() -> P4Program:
    return load_program_text(LAB_P4, "lab.p4")


def run(program: P4Program, text: str, **options: object) -> StfResult:
    return run_stf(program, parse_stf(text, "t.stf"), "t.stf", **options)  # type: ignore[arg-type]


def failures(result: StfResult) -> str:
    return "\n".join(result.failures)


def assert_passed(result: StfResult) -> None:
    assert result.passed, result.report()


# -- packets and expectations --------------------------------------------------------


def test_exact_entries_forward_and_pass(lab: P4Program) -> None:
    result = run(lab, """
add exact_t hdr.h.a:1 hdr.opt.$valid$:0 fwd(port:2)
add exact_t hdr.h.a:0xff hdr.opt.$valid$:1 set_b(b:0x55, port:3)
packet 0 01 00 0000
expect 2 01 00 0000 $
packet 0 ff 00 0000 77
expect 3 ff 55 0000 77 $
""")
    assert_passed(result)
    counts = result.counts
    assert (counts.entries, counts.packets_sent, counts.packets_received) == (2, 2, 2)
    assert (counts.packets_expected, counts.packets_matched) == (2, 2)
    assert "PASS" in result.summary()


def test_expect_before_packet_and_wildcards(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
expect 2 0* ** ****
packet 0 01 00 abcd
expect 2 01
packet 0 01 00 abcd 99
""")
    assert_passed(result)


def test_mismatch_reports_line_and_hex_diff(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 abcd
expect 2 01 00 abce $
""")
    assert not result.passed
    [failure] = result.failures
    assert failure.startswith("t.stf:4: packet #1 on port 2 (from the packet sent at line 3)")
    assert "first difference at byte 3" in failure
    assert "01 00 ab ce" in failure and "01 00 ab cd" in failure
    assert "FAIL (1 failure;" in result.summary()
    assert result.report().endswith(result.summary())


def test_exact_length_mark(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 abcd ee
expect 2 01 00 abcd $
""")
    assert "received packet is too long" in failures(result)


def test_missing_packet_is_reported_at_its_expect_line(lab: P4Program) -> None:
    result = run(lab, """
packet 0 01 00 0000
expect 2 01 00 0000
""")
    assert failures(result) == "t.stf:3: expected packet on port 2 was not received: 01 00 00 00"


def test_unexpected_packet_on_observed_port(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
expect 2 01 00 0000
packet 2 01 00 1111
""")
    assert failures(result) == (
        "t.stf:5: unexpected packet on port 2 (not expected; from the packet sent at "
        "line 5): 01 00 11 11"
    )


def test_packets_on_unnamed_ports_are_notes_unless_strict(lab: P4Program) -> None:
    text = """
add exact_t a:1 opt:0 fwd(port:9)
packet 0 01 00 0000
"""
    result = run(lab, text)
    assert_passed(result)
    [note] = result.notes
    assert "port 9, which no packet/expect line names" in note
    strict = run(lab, text, strict_ports=True)
    assert "t.stf:3: packet left on port 9" in failures(strict)


def test_bare_expect_accepts_any_number_of_packets(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
expect 2
packet 0 01 00 0000
packet 0 01 00 0001
""")
    assert_passed(result)
    assert run(lab, "expect 2\n").passed


def test_wait_is_a_checkpoint_for_expectations(lab: P4Program) -> None:
    result = run(lab, """
expect 2 01 00 0000
wait
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
""")
    assert failures(result).splitlines() == [
        "t.stf:2: expected packet on port 2 was not received by the wait at line 3: "
        "01 00 00 00",
        "t.stf:5: unexpected packet on port 2 (not expected; from the packet sent at "
        "line 5): 01 00 00 00",
    ]


def test_wait_lets_later_expects_claim_earlier_packets(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
wait
expect 2 01 00 0000
""")
    assert_passed(result)


def test_no_packet_fails_on_unexpected_packets_so_far(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
no_packet
""")
    assert failures(result) == (
        "t.stf:4: unexpected packet on port 2 (not expected by the no_packet at line 4; "
        "from the packet sent at line 3): 01 00 00 00"
    )
    assert run(lab, "packet 0 05 00 0000\nno_packet\n").passed  # dropped


def test_dropped_packet_needs_no_expect(lab: P4Program) -> None:
    result = run(lab, "packet 0 05 00 0000\n")  # exact_t misses: default drop()
    assert_passed(result)
    assert result.counts.packets_received == 0


# -- name resolution ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("add nosuch a:1 fwd(port:1)",
         "t.stf:1: no table 'nosuch'; known tables: LabIngress.exact_t, "
         "LabIngress.lpm_t, LabIngress.tern_t"),
        ("add exact_t zz:1 fwd(port:1)",
         "t.stf:1: table 'LabIngress.exact_t' has no key field 'zz'; its key fields "
         "are hdr.h.a, hdr.opt.isValid()"),
        ("add exact_t a:1 opt:0 forward(port:1)",
         "t.stf:1: no action 'forward' in table 'LabIngress.exact_t'; known actions: "
         "LabIngress.drop, LabIngress.fwd, LabIngress.mcast, LabIngress.mirror, "
         "LabIngress.set_b"),
        ("add exact_t a:1 opt:0 fwd(prt:1)",
         "t.stf:1: action 'LabIngress.fwd' has no parameter 'prt'; its parameters: port"),
        ("add exact_t a:1 opt:0 set_b(port:1)",
         "t.stf:1: action 'LabIngress.set_b' needs parameter(s) b"),
        ("add exact_t a:1 opt:0 fwd(port:1, port:2)",
         "t.stf:1: parameter 'port' of action 'LabIngress.fwd' is given twice"),
        ("add exact_t a:1 opt:0 fwd(port:512)",
         "t.stf:1: value 512 for parameter 'port' of action 'LabIngress.fwd' does not "
         "fit in 9 bits"),
        ("add exact_t a:1 hdr.h.a:2 fwd(port:1)",
         "t.stf:1: key field 'hdr.h.a' of table 'LabIngress.exact_t' is given twice "
         "('a' and 'hdr.h.a')"),
        ("add exact_t a:0x1ff opt:0 fwd(port:1)",
         "t.stf:1: key field 'hdr.h.a': key value '0x1ff' for a 8-bit exact field: "
         "0x1ff does not fit"),
        ("add tern_t h:1 fwd(port:1)",
         "t.stf:1: table 'LabIngress.tern_t' has no key field 'h'; its key fields are "
         "hdr.h.b, hdr.h.c"),
        ("setdefault t fwd(port:1)",
         "t.stf:1: no table 't'; known tables: LabIngress.exact_t, LabIngress.lpm_t, "
         "LabIngress.tern_t"),
        ("check_counter nope(0)", "t.stf:1: no counter 'nope'; known counters: "
         "LabIngress.cnt, LabIngress.dcnt"),
        ("register_write nope 0 1", "t.stf:1: no register 'nope'; known registers: "
         "LabIngress.reg"),
        ("meter_set_rates nope 0 1:1 1:1", "t.stf:1: no meter 'nope'; known meters: "
         "LabIngress.mtr"),
    ],
)
def test_resolution_failures_name_the_line(lab: P4Program, line: str, message: str) -> None:
    result = run(lab, line + "\n")
    assert result.failures == [message]


def test_failed_commands_do_not_stop_the_run(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 nosuch()
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
expect 2 01 00 0000
""")
    assert [f.split(":")[1] for f in result.failures] == ["2"]
    assert result.counts.packets_matched == 1


@pytest.mark.parametrize(
    "keys",
    [
        "hdr.h.a:0xff hdr.opt.$valid$:1",  # BMv2 JSON spelling
        "h.a:0xff opt.valid:1",    # p4c's ".valid"
        "a:0xff opt.isValid:1",    # P4Info's name without the parentheses
        "a:255 hdr.opt:1",         # a header's name for its validity
        "a:0xff valid:1",          # the only validity key
    ],
)
def test_key_field_spellings(lab: P4Program, keys: str) -> None:
    result = run(lab, f"""
add LabIngress.exact_t {keys} fwd(port:2)
packet 0 ff 00 0000 01
expect 2 ff 00 0000 01
""")
    assert_passed(result)


TWINS_P4 = """\
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> a; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t { key = { hdr.h.a: exact; meta.a: exact; } actions = { fwd; } }
    apply { t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { }
    table t { key = { hdr.h.a: exact; } actions = { fwd; } }
    apply { t.apply(); }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_ambiguous_names() -> None:
    twins = load_program_text(TWINS_P4, "twins.p4")
    result = run(twins, """
add t a:1 fwd(port:1)
add I.t a:1 fwd(port:1)
add I.t hdr.h.a:1 meta.a:2 fwd(port:1)
add E.t a:1 fwd(port:3)
""")
    assert result.failures == [
        "t.stf:2: ambiguous table name 't': candidates are E.t, I.t",
        "t.stf:3: ambiguous key field 'a' for table 'I.t': candidates are hdr.h.a, meta.a",
    ]
    assert result.counts.entries == 2


def test_full_and_suffix_action_names(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 LabIngress.fwd(port:2)
add ingress.exact_t a:2 opt:0 fwd(port:3)
""")
    assert failures(result).startswith("t.stf:3: no table 'ingress.exact_t'")
    assert result.counts.entries == 1


def test_omitted_exact_field_is_zero_as_in_p4c(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 fwd(port:2)
packet 0 01 00 0000
expect 2 01 00 0000
""")
    assert_passed(result)


def test_duplicate_entry_is_a_failure(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
add exact_t a:1 opt:0 fwd(port:3)
""")
    assert failures(result).startswith("t.stf:3: table 'LabIngress.exact_t': an entry")


# -- priorities ----------------------------------------------------------------------


def test_larger_stf_priority_wins(lab: P4Program) -> None:
    result = run(lab, """
add tern_t 20 b:0x0* fwd(port:1)
add tern_t 10 b:0x01 fwd(port:2)
add tern_t 5 b:0x02 fwd(port:3)
add tern_t 30 b:0x02 c:0x00** fwd(port:4)
packet 0 10 01 0000
expect 1 10 01 0000
packet 0 10 02 0001
expect 4 10 02 0001
packet 0 10 02 ff00
expect 1 10 02 ff00
""")
    assert_passed(result)


def test_priority_zero_is_valid_and_lowest(lab: P4Program) -> None:
    result = run(lab, """
add tern_t 0 b:0x01 fwd(port:1)
add tern_t 1 b:0x0* fwd(port:2)
packet 0 10 01 0000
expect 2 10 01 0000
""")
    assert_passed(result)


def test_entries_without_priority_rank_by_insertion(lab: P4Program) -> None:
    result = run(lab, """
add tern_t b:0x0* fwd(port:1)
add tern_t b:0x01 fwd(port:2)
add tern_t 0 b:0x02 fwd(port:3)
packet 0 10 01 0000
expect 1 10 01 0000
packet 0 10 02 0000
expect 3 10 02 0000
""")
    assert_passed(result)


def test_priority_on_a_table_without_ternary_fields_is_ignored(lab: P4Program) -> None:
    result = run(lab, """
add exact_t 7 a:1 opt:0 fwd(port:2)
add lpm_t 3 c:0x12** fwd(port:4)
packet 0 01 00 0000
expect 2 01 00 0000
packet 0 11 00 1299
expect 4 11 00 1299
""")
    assert_passed(result)


def test_lpm_longest_prefix_and_forms(lab: P4Program) -> None:
    result = run(lab, """
add lpm_t c:0x1200/8 fwd(port:1)
add lpm_t c:0x123* fwd(port:2)
add lpm_t c:0/0 fwd(port:3)
packet 0 11 00 1234
expect 2 11 00 1234
packet 0 11 00 12ff
expect 1 11 00 12ff
packet 0 11 00 9999
expect 3 11 00 9999
""")
    assert_passed(result)


# -- table changes -------------------------------------------------------------------


def test_setdefault_with_arguments(lab: P4Program) -> None:
    result = run(lab, """
setdefault exact_t set_b(b:0x77, port:5)
packet 0 05 00 0000
expect 5 05 77 0000 $
setdefault exact_t nosuch()
""")
    assert failures(result).startswith("t.stf:5: no action 'nosuch' in table")


def test_remove_entry_and_remove_all(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
add tern_t 5 b:0x01 fwd(port:3)
packet 0 01 00 0000
expect 2 01 00 0000
remove exact_t a:1 opt:0
packet 0 01 00 0000
wait
remove tern_t b:0x01
packet 0 10 01 0000
add tern_t 5 b:0x01 fwd(port:3)
remove all
packet 0 10 01 0000
remove exact_t a:9 opt:0
""")
    assert result.failures == [
        "t.stf:14: table 'LabIngress.exact_t': no entry with these matches and "
        "priority 0"
    ]


# -- counters, registers, meters -----------------------------------------------------


def test_check_counter_indexed_and_direct(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2) = first
add exact_t a:0xff opt:1 fwd(port:3) = second
packet 0 01 00 0000
packet 0 01 00 0000
packet 0 ff 00 0000 77
expect 2
expect 3
check_counter cnt(1) packets == 2
check_counter cnt(1) bytes == 8
check_counter cnt(7) bytes >= 5
check_counter cnt(2)
check_counter dcnt(first) packets == 2
check_counter dcnt(second) bytes == 5
check_counter dcnt(1) packets == 1
check_counter LabIngress.dcnt(0) bytes < 9
""")
    assert_passed(result)


def test_check_counter_failures(lab: P4Program) -> None:
    result = run(lab, """
add exact_t a:1 opt:0 fwd(port:2) = first
packet 0 01 00 0000
expect 2
check_counter cnt(1) packets == 3
check_counter cnt(1)
check_counter dcnt(nohandle) packets == 1
check_counter dcnt(4) packets == 1
check_counter cnt(first) packets == 1
check_counter cnt(8) packets == 1
""")
    assert result.failures == [
        "t.stf:5: counter LabIngress.cnt[1]: packets is 1, expected == 3",
        "t.stf:6: counter LabIngress.cnt[1]: packets is 1, expected == 0",
        "t.stf:7: no entry handle 'nohandle' (handles: first)",
        "t.stf:8: table 'LabIngress.exact_t' has no entry handle 4 (1 entries added)",
        "t.stf:9: counter 'LabIngress.cnt' is indexed: give a number, not handle 'first'",
        "t.stf:10: 'LabIngress.cnt': index 8 is outside 0..7",
    ]


def test_counter_write_read_reset(lab: P4Program) -> None:
    result = run(lab, """
counter_write cnt 3 10 1000
check_counter cnt(3) packets == 10
check_counter cnt(3) bytes == 1000
counter_read cnt 3
counter_reset cnt
check_counter cnt(3)
""")
    assert_passed(result)


def test_register_write_then_data_plane_reads(lab: P4Program) -> None:
    lines: list[str] = []
    result = run(lab, """
register_write reg 0 0x41
packet 0 20 00 0000
packet 0 20 00 0000
expect 1 20 41 0000
expect 1 20 42 0000
register_read reg 0
register_reset reg
packet 0 20 00 0000
expect 1 20 00 0000
register_write reg 9 1
register_write reg 0 256
""", log=lines.append)
    assert result.failures == [
        "t.stf:11: 'LabIngress.reg': index 9 is outside 0..3",
        "t.stf:12: 'LabIngress.reg': value 0x100 does not fit in 8 bits",
    ]
    assert "t.stf:7: register LabIngress.reg[0] = 67" in lines


def test_meter_rates_color_packets(lab: P4Program) -> None:
    # 1 packet per second, bursts of 1: the second packet (1 us later) is RED (2).
    result = run(lab, """
meter_set_rates mtr 0 0.000001:1 0.000001:1
packet 0 30 00 0000
packet 0 30 00 0000
expect 1 30 00 0000
expect 1 30 02 0000
meter_set_rates mtr 0 0.000001:1
""")
    assert result.failures == [
        "t.stf:7: a meter needs 2 RATE:BURST pairs (committed, peak), got 1"
    ]


# -- multicast and mirroring -----------------------------------------------------------


def test_multicast_group_with_nodes(lab: P4Program) -> None:
    result = run(lab, """
mc_mgrp_create 7
mc_node_create 10 4 5
mc_node_create 11 6
mc_node_associate 7 0
mc_node_associate 7 1
add exact_t a:2 opt:0 mcast(grp:7)
packet 0 02 00 0000
expect 4 02 00 000a $
expect 5 02 00 000a $
expect 6 02 00 000b $
mc_node_associate 7 5
""")
    assert result.failures == ["t.stf:12: multicast node handle 5 does not exist"]


def test_mirroring_add_clones_to_the_session_port(lab: P4Program) -> None:
    result = run(lab, """
mirroring_add 3 8
add exact_t a:3 opt:0 mirror(session:3, port:1)
packet 0 03 00 1234
expect 1 03 00 1234 $
expect 8 03 00 c10e $
mirroring_add 3 9
packet 0 03 00 1234
expect 1 03 00 1234 $
expect 9 03 00 c10e $
mirroring_delete 3
packet 0 03 00 1234
expect 1 03 00 1234 $
""")
    assert_passed(result)


# -- robustness ----------------------------------------------------------------------


def test_pipeline_exceptions_become_failures(
    lab: P4Program, monkeypatch: pytest.MonkeyPatch
) -> None:
    from behavioral_model.pipeline.v1model import V1ModelDevice

    def explode(self: object, data: bytes, port: int, now_us: int = 0) -> list[object]:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(V1ModelDevice, "process", explode)
    result = run(lab, "packet 0 01 00 0000\n")
    assert result.failures == [
        "t.stf:1: internal error running this command: ZeroDivisionError: boom"
    ]


def test_verbose_log_traces_commands_and_packets(lab: P4Program) -> None:
    lines: list[str] = []
    run(lab, """
add exact_t a:1 opt:0 fwd(port:2)
packet 0 01 00 0000
expect 2 01 00 0000
""", log=lines.append)
    assert lines == [
        "t.stf:2: add LabIngress.exact_t hdr.h.a=Exact(value=1) "
        "hdr.opt.isValid()=Exact(value=0) -> LabIngress.fwd(port=0x2)",
        "t.stf:3: packet in on port 0: 01 00 00 00",
        "t.stf:3: packet out on port 2: 01 00 00 00",
    ]


def test_run_stf_file(lab: P4Program, tmp_path: Path) -> None:
    stf = tmp_path / "x.stf"
    stf.write_text("add exact_t a:1 opt:0 fwd(port:2)\npacket 0 01 00 0000\nexpect 2 01\n")
    result = run_stf_file(lab, stf)
    assert_passed(result)
    assert result.filename == str(stf)
    with pytest.raises(STFError, match="cannot read"):
        run_stf_file(lab, tmp_path / "missing.stf")


def test_empty_file_passes(lab: P4Program) -> None:
    result = run(lab, "# nothing\n")
    assert_passed(result)
    assert result.counts.commands == 0
