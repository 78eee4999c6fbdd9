"""Rules of p4c's front end that bm's `check` applies too (found by
scripts/compare_p4test.py on p4c's p4_16_errors): self-referencing types, a generic type
as its own type argument, table entries (after the key; no @defaultonly action) and
unique names of structured annotations.
Each rejected program below is rejected by p4test 1.2.5 too; each accepted one is
accepted by it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

TABLE = """
#include <core.p4>
control C(inout bit<8> x);
package P(C c);
control Ctl(inout bit<8> x) {
    action set(bit<8> v) { x = v; }
    action drop() { x = 0; }
    table t {
        %s
    }
    apply { t.apply(); }
}
P(Ctl()) main;
"""

KEY = "key = { x : exact; }"
ACTIONS = "actions = { set; %sdrop; }"
ENTRIES = "const entries = { 1 : %s; }"


def check(text: str) -> None:
    check_source(preprocess_text(text))


@pytest.mark.parametrize("text, message", [
    pytest.param("struct S { bit<8> a; S next; }", "self-referencing", id="struct-field"),
    pytest.param("extern E { E(); void take(E other); }", "self-referencing",
                 id="extern-method-param"),
    pytest.param("control c() { c() inner; apply { inner.apply(); } }", "self-referencing",
                 id="control-instantiates-itself"),
    pytest.param("parser p() { state start { p.apply(); transition accept; } }",
                 "self-referencing", id="parser-applies-itself"),
    pytest.param("extern Box<T> { Box(); }\nBox<Box<bit<8>>>() b;",
                 "contains self 'Box'", id="extern-own-type-argument"),
    pytest.param("struct W<T> { T f; }\ntypedef W<bit<4>> w4;\ntypedef W<w4> ww;",
                 "contains self 'W'", id="struct-own-type-argument"),
])
def test_self_reference_is_rejected(text: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message):
        check(text)


@pytest.mark.parametrize("text", [
    pytest.param("struct W<T> { T f; }\nstruct V { bit<8> g; }\ntypedef W<V> wv;",
                 id="other-struct-as-argument"),
    pytest.param("extern Box<T> { Box(); }\nextern Bag<T> { Bag(); }\nBag<Box<bit<8>>>() b;",
                 id="other-extern-as-argument"),
    pytest.param("control c(inout bit<8> c) { apply { c = 1; } }",
                 id="parameter-shadows-the-control"),
])
def test_other_references_are_accepted(text: str) -> None:
    check(text)


@pytest.mark.parametrize("props, message", [
    pytest.param([ENTRIES % "set(1)", KEY, ACTIONS % ""], "after the key",
                 id="entries-before-key"),
    pytest.param([KEY, ACTIONS % "@defaultonly ", ENTRIES % "drop()"], "@defaultonly",
                 id="defaultonly-action-in-entries"),
])
def test_bad_entries_are_rejected(props: list[str], message: str) -> None:
    with pytest.raises(P4TypeError, match=message):
        check(TABLE % "\n".join(props))


def test_entries_after_the_key_are_accepted() -> None:
    check(TABLE % "\n".join([KEY, ACTIONS % "@defaultonly ", ENTRIES % "set(1)"]))


def test_empty_entries_of_a_keyless_table_are_accepted() -> None:
    check(TABLE % "\n".join([ACTIONS % "", "const entries = { }"]))


@pytest.mark.parametrize("annotations", ["@tag[] @tag[]", "@tag(1) @tag[]"])
def test_structured_annotation_names_are_unique(annotations: str) -> None:
    with pytest.raises(P4TypeError, match="duplicate name"):
        check(f"#include <core.p4>\n{annotations}\ncontrol c() {{ apply {{}} }}")


def test_repeated_plain_annotations_are_accepted() -> None:
    check("#include <core.p4>\n@tag(1) @tag(2)\ncontrol c() { apply {} }")


def test_main_is_a_package_instance() -> None:
    with pytest.raises(P4TypeError, match="'main' must be a package"):
        check("#include <core.p4>\nextern Box { Box(); }\nBox() main;")



def test_an_action_does_not_apply_a_control() -> None:
    with pytest.raises(P4TypeError, match="apply cannot be called from actions"):
        check("#include <core.p4>\ncontrol Sub() { apply {} }\n"
              "control c() { Sub() sub; action a() { sub.apply(); } apply { a(); } }\n"
              "control C(); package P(C c); P(c()) main;")


def test_an_extern_with_abstract_methods_is_not_built_by_a_constructor_call() -> None:
    with pytest.raises(P4TypeError, match="abstract methods cannot be instantiated"):
        check("#include <core.p4>\nextern E { E(); abstract void f(); }\n"
              "package P(E e);\nP(E()) main;")


@pytest.mark.parametrize("value, ok", [("exact", True), ("1 + 1", False), ("nothing", False)])
def test_a_match_annotation_names_a_match_kind(value: str, ok: bool) -> None:
    text = f"#include <core.p4>\nstruct S {{ @match({value}) bit<8> f; }}"
    if ok:
        check(text)
    else:
        with pytest.raises(P4TypeError, match="must be a match_kind"):
            check(text)


PARSER = """
#include <core.p4>
header V {{ bit<8> n; varbit<64> opts; }}
header F {{ bit<8> n; }}
struct hs {{ V v; F f; }}
parser Prs(packet_in pkt, out hs h) {{
    state start {{ {stmt} transition accept; }}
}}
parser P(packet_in pkt, out hs h);
package Top(P p);
Top(Prs()) main;
"""


@pytest.mark.parametrize("stmt, message", [
    pytest.param("pkt.extract(h.v);", "extracted with its size", id="extract-varbit-no-size"),
    pytest.param("h.v = pkt.lookahead<V>();", "fixed-width", id="lookahead-varbit"),
    pytest.param("pkt.lookahead<void>();", "fixed-width", id="lookahead-void"),
])
def test_varbit_reads_need_a_size(stmt: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message):
        check(PARSER.format(stmt=stmt))


@pytest.mark.parametrize("stmt", ["pkt.extract(h.v, 16);", "h.f = pkt.lookahead<F>();"])
def test_fixed_width_reads_are_accepted(stmt: str) -> None:
    check(PARSER.format(stmt=stmt))


def test_a_control_instance_is_not_a_function_argument() -> None:
    with pytest.raises(P4TypeError, match="argument cannot have type"):
        check("#include <core.p4>\ncontrol Sub() { apply {} }\nvoid f<T>(in T t) {}\n"
              "control c() { Sub() s; apply { f(s); } }\n"
              "control C(); package P(C c); P(c()) main;")


@pytest.mark.parametrize("default, ok", [("drop", True), (".drop", False)])
def test_a_dot_prefixed_default_action_is_the_top_level_one(default: str, ok: bool) -> None:
    text = TABLE.replace("control Ctl", "action drop() {}\ncontrol Ctl") % "\n".join(
        [KEY, ACTIONS % "", f"default_action = {default}();"])
    if ok:
        check(text)
    else:
        with pytest.raises(P4TypeError, match="different actions"):
            check(text)


def test_the_default_action_comes_after_the_actions() -> None:
    with pytest.raises(P4TypeError, match="after the actions"):
        check(TABLE % "\n".join([KEY, "default_action = drop();", ACTIONS % ""]))


@pytest.mark.parametrize("elem, ok", [
    ("bit<8>", True), ("C", False), ("P", False), ("Box", False),
])
def test_tuple_fields_are_data(elem: str, ok: bool) -> None:
    text = ("#include <core.p4>\ncontrol C(); package P(); extern Box { Box(); }\n"
            f"void f(in tuple<{elem}> t) {{}}")
    if ok:
        check(text)
    else:
        with pytest.raises(P4TypeError, match="not supported as a tuple field"):
            check(text)


@pytest.mark.parametrize("body, ok", [
    ("action a() { bit<8> h = 2; } apply { a(); }", False),
    ("apply { if (h == 0) { bit<8> h = 1; } }", False),
    ("apply { bit<8> g = h; h = g; }", True),
    # A control's own locals may take a parameter's name (p4c's shadow3.p4,
    # shadow-after-use.p4); they hide it from then on.
    ("bit<8> h = 2; apply { }", True),
    ("table h { actions = {} } apply { h.apply(); }", True),
])
def test_a_variable_does_not_shadow_a_parameter(body: str, ok: bool) -> None:
    text = (f"#include <core.p4>\ncontrol c(inout bit<8> h) {{ {body} }}\n"
            "control C(inout bit<8> h); package P(C c); P(c()) main;")
    if ok:
        check(text)
    else:
        with pytest.raises(P4TypeError, match="shadows a parameter"):
            check(text)
