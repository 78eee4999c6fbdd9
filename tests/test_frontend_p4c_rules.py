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

