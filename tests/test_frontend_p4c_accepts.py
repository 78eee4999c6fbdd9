"""Programs p4c accepts that bm's front end used to reject (found by
scripts/compare_p4test.py on p4c's p4_16_samples: cases.p4, issue2617.p4, issue3884.p4,
pipe.p4, pragmas.p4, pragma-deprecated.p4, pragma-action.p4, shadow3.p4, issue3288.p4):
a switch whose last labels have no body, a control's local named like its parameter,
a shift by a serializable enum, a table size given by a constructor parameter, the
`@pragma name tokens` spelling of an annotation, `#line` (line.p4) and a function
named main (issue1830.p4). Each program below but the run-time table size and the
externs named main is accepted by p4test 1.2.5 too."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError, PreprocessError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program_text
from behavioral_model.stf import parse_stf
from behavioral_model.stf.runner import run_stf

SWITCH = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs { h_t h; }
struct m_t { }
parser Pr(packet_in pk, out hs h, inout m_t m, inout standard_metadata_t s) {
    state start { pk.extract(h.h); transition accept; } }
control V(inout hs h, inout m_t m) { apply {} }
control I(inout hs h, inout m_t m, inout standard_metadata_t s) {
    action a() {}
    action b() { h.h.a = 0xb; }
    action c() {}
    table t { key = { h.h.a : exact; } actions = { a; b; c; }
              const entries = { 1 : a(); 2 : b(); 3 : c(); } default_action = c(); }
    apply {
        s.egress_spec = 1;
        switch (t.apply().action_run) {
            a:
            b: { h.h.a = h.h.a + 0x10; }
            c:
        }
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t s) { apply {} }
control C(inout hs h, inout m_t m) { apply {} }
control D(packet_out pk, in hs h) { apply { pk.emit(h.h); } }
V1Switch(Pr(), V(), I(), E(), C(), D()) main;
"""

SIZED = """
#include <core.p4>
control C1(inout bit<8> v)(int Size) {
    action set(bit<8> x) { v = x; }
    table t { key = { v : exact; } actions = { set; } size = Size; }
    apply { t.apply(); }
}
control Top(inout bit<8> v) { C1(%s) inner; apply { inner.apply(v); } }
"""

PRAGMAS = """
#include <core.p4>
@pragma deprecated "use g instead"
extern void f();
@pragma name "renamed"
const bit<8> c = 1;
@pragma annotest
control Top(inout bit<8> v) { apply { v = c; } }
"""


def test_trailing_switch_labels_without_a_body_do_nothing() -> None:
    program = load_program_text(SWITCH, "switch.p4")
    # Spec 12.7: `a:` falls through to b's body; `c:`, the last label, has none.
    stf = ("packet 0 01\nexpect 1 11\n"   # a: falls through, +0x10
           "packet 0 02\nexpect 1 1b\n"   # b: 0xb then +0x10
           "packet 0 03\nexpect 1 03\n")  # c: nothing
    result = run_stf(program, parse_stf(stf, "switch.stf"), "switch.stf")
    assert result.passed, "\n".join(result.failures)


def test_a_control_local_hides_a_parameter_of_the_same_name() -> None:
    text = SWITCH.replace("    action a() {}", "    bit<8> s = 0x22;\n    action a() {}").replace(
        "        s.egress_spec = 1;\n        switch", "        h.h.a = s;\n        switch")
    program = load_program_text(text.replace("s.egress_spec = 1;", ""), "hide.p4")
    # The local s (0x22) is read, not the standard metadata; action c runs: no change.
    result = run_stf(program, parse_stf("packet 0 03\nexpect 0 22\n", "hide.stf"), "hide.stf")
    assert result.passed, "\n".join(result.failures)


def test_shift_by_a_serializable_enum() -> None:
    # p4c's issue3288.p4: the amount converts to the enum's underlying type (spec 8.3).
    text = SWITCH.replace("header h_t", "enum bit<8> Amt { one = 1, three = 3 }\nheader h_t")
    text = text.replace("        s.egress_spec = 1;\n        switch",
                        "        s.egress_spec = 1;\n        Amt v = Amt.three;\n"
                        "        h.h.a = (8w1 << v) | (8w1 << Amt.one);\n        switch")
    program = load_program_text(text, "shift.p4")
    # a = 8 | 2 = 0x0a: no entry matches, the default action c changes nothing.
    result = run_stf(program, parse_stf("packet 0 00\nexpect 1 0a\n", "s.stf"), "s.stf")
    assert result.passed, "\n".join(result.failures)


def test_table_size_from_a_constructor_parameter() -> None:
    check_source(preprocess_text(SIZED % "1024"))


def test_table_size_from_a_constructor_argument_in_the_pipeline() -> None:
    sub = ("control Sub(inout hs h)(bit<32> n) {\n"
           "    action set(bit<8> x) { h.h.a = x; }\n"
           "    table t { key = { h.h.a : exact; } actions = { set; } size = n; }\n"
           "    apply { t.apply(); }\n}\n")
    text = SWITCH.replace("control I(", sub + "control I(").replace(
        "    action a() {}", "    Sub(64) sub;\n    action a() {}").replace(
        "        s.egress_spec = 1;\n", "        s.egress_spec = 1;\n        sub.apply(h);\n")
    state = load_program_text(text, "sized.p4").new_state()
    assert state.tables["I.sub.t"].size == 64


def test_table_size_must_still_be_known() -> None:
    # p4test leaves this to the back ends; p4c-bm2-ss rejects it ("size must be a
    # constant numeric expression"), and so does bm.
    text = SIZED.replace("size = Size;", "size = v;") % "1024"
    with pytest.raises(P4TypeError, match="table size must be a compile-time constant"):
        check_source(preprocess_text(text))


def test_pragma_spelling_of_annotations() -> None:
    checked = check_source(preprocess_text(PRAGMAS))
    decls = {getattr(d, "name", ""): d for d in checked.program.decls}
    assert decls["c"].annotation("name").args[0].value == "renamed"
    assert decls["f"].annotation("deprecated") is not None
    assert decls["Top"].annotation("annotest") is not None


def test_line_directives_are_accepted() -> None:
    check_source(preprocess_text('#line 3 "file.p4"\ncontrol x() { apply {} }\n'))
    with pytest.raises(PreprocessError, match="#line needs a line number"):
        preprocess_text("#line x\ncontrol x() { apply {} }\n")


def test_a_function_named_main_is_no_main() -> None:
    # p4c's issue1830.p4: checked like a program without a main (a warning).
    checked = check_source(preprocess_text("void main() {}\n"))
    assert checked.main is None
    for text in ("extern E { E(); }\nE() main;\n", "extern main {}\n"):  # issue4144.p4
        with pytest.raises(P4TypeError, match="'main' must be a package instantiation"):
            check_source(preprocess_text(text))
