"""Annotations as p4c reads them (frontend/annotcheck.py): the bodies of the standard
annotations and the values of structured annotations `@name[...]`.
Each rejected program below is rejected by p4test 1.2.5 too; each accepted one is
accepted by it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

PROGRAM = """
#include <core.p4>
const bit<8> WIDE = 3;
const int PLAIN = 4;
extern ext { ext(); }
ext() inst;
%s
control c() { apply {} }
"""


def check(annotation: str) -> None:
    check_source(preprocess_text(PROGRAM % annotation))


@pytest.mark.parametrize("annotation, message", [
    pytest.param("@hidden(1)", "should not have any arguments", id="empty-annotation-with-args"),
    pytest.param("@pkginfo", "key=value", id="pkginfo-without-body"),
    pytest.param("@pkginfo(1)", "key=value", id="pkginfo-expression"),
    pytest.param("@name", "takes one expression", id="name-without-body"),
    pytest.param('@name("a", "b")', "takes one expression", id="name-two-strings"),
    pytest.param("@name(7)", "must be a string literal", id="name-int"),
    pytest.param('@name("a" ++ 1)', "must be a string literal", id="name-string-and-int"),
    pytest.param('@deprecated("a" | "b")', "must be a string literal", id="deprecated-or"),
    pytest.param("@synchronous(1 +)", "list of expressions", id="synchronous-bad-list"),
    pytest.param("@command_line(1)", "string literals", id="command-line-int"),
    pytest.param("@tag[{1, 2}]", "illegal value", id="structured-tuple"),
    pytest.param("@tag[(bit<8>)1]", "illegal value", id="structured-cast"),
    pytest.param("@tag[v = WIDE]", "illegal value", id="structured-bit-constant"),
    pytest.param("@tag[v = inst == inst]", "illegal value", id="structured-instance"),
    pytest.param("@tag[v = nowhere]", "illegal value", id="structured-undeclared"),
    pytest.param("@tag[a = 1, a = 2]", "appears twice", id="structured-duplicate-key"),
    pytest.param("@tag[a = 1, 2]", "list of expressions or of key=value", id="structured-mixed"),
])
def test_bad_annotation_is_rejected(annotation: str, message: str) -> None:
    with pytest.raises(P4Error, match=message):
        check(annotation)


@pytest.mark.parametrize("annotation", [
    pytest.param("@hidden()", id="empty-parentheses"),
    pytest.param('@pkginfo(version = "1.0")', id="pkginfo-pairs"),
    pytest.param('@name("x")', id="name-string"),
    pytest.param('@noWarn("unused")', id="nowarn-string"),
    pytest.param('@name("a" ++ ("b" ++ "c"))', id="name-concatenation"),
    pytest.param('@deprecated("use " ++ "g")', id="deprecated-concatenation"),
    pytest.param("@tag[]", id="structured-empty"),
    pytest.param('@tag[1, "s", true, 1 < 2, -3, 2 * 3]', id="structured-constant-expressions"),
    pytest.param('@tag[a = "x" ++ "y", b = PLAIN + 1]', id="structured-int-constant"),
    pytest.param("@whatever(anything goes here)", id="unknown-annotation-free-form"),
])
def test_good_annotation_is_accepted(annotation: str) -> None:
    check(annotation)


def test_joined_name_is_folded() -> None:
    """p4c's spec-issue1297-string-cat.p4: `@name("foo" ++ "_y_")` names the action
    `foo_y_` (its control-plane name)."""
    checked = check_source(preprocess_text("""
#include <core.p4>
control c() {
    @name("foo" ++ "_y_") action a() { }
    apply { a(); }
}
"""))
    actions = [d for d in checked.program.decls[-1].locals if d.name == "a"]
    assert actions[0].display_name() == "foo_y_"


def test_string_across_lines() -> None:
    """p4c's lexer lets a string literal run across lines (its pragma-string.p4,
    string_anno.p4); the lines after it keep their numbers in bm's messages."""
    text = ('@name("two\nlines") const bit<1> b = 1;\n'
            '@pragma name "x\\\ny"\nconst bit<1> c = nowhere;\n')
    with pytest.raises(P4Error, match=r"t\.p4:5:"):
        check_source(preprocess_text(text, "t.p4"))
    check_source(preprocess_text(text.replace("nowhere", "1"), "t.p4"))
