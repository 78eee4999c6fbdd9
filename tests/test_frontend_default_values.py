"""`...`: the default value of the type its context gives (spec 8.26; p4c's
default-initializer.p4, issue5335_default_initialized_non_header_stack*.p4): as an
argument, an initialiser, the right side of an assignment, and as the last element of a
list or key-value list for the rest. Where the context gives no type, or a type without
a default, it is an error, as in p4test. Every verdict below is p4test 1.2.5.16's on the
same program. The pipeline refuses `...` at load."""

from __future__ import annotations

import re

import pytest
from frontend_cases import v1model_program

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program_text

PROG = """
#include <core.p4>
struct S { bit<8> f; }
header H { bit<8> x; }
header_union U { H h; }
enum E { A, B }
extern X { X(); bit<8> get(in bit<8> v); }
extern void ef(in bit<8> v);
extern void g<T>(in T v);
control c(inout bit<8> r) {
    LOCALS
    apply { BODY }
}
control C(inout bit<8> r);
package top(C _c);
top(c()) main;
"""

TABLE = "table t { actions = { a; } default_action = a(DEF); }"


def _check(locals_: str, body: str) -> None:
    check_source(preprocess_text(PROG.replace("LOCALS", locals_).replace("BODY", body), "t.p4"))


@pytest.mark.parametrize(("locals_", "body"), [
    ("action a(bit<8> x) { r = x; } " + TABLE.replace("DEF", "..."), "t.apply();"),
    ("action a(bit<8> x, bit<8> y) { r = x + y; } " + TABLE.replace("DEF", "1, ..."),
     "t.apply();"),
    ("action a(bit<8> x) { r = x; } " + TABLE.replace("DEF", "x = ..."), "t.apply();"),
    ("action a(S s, H h, E e, bool b, error x) { } " + TABLE.replace(
        "DEF", "..., ..., ..., ..., ..."), "t.apply();"),
    ("action a(S[4] s, H[2] h) { } " + TABLE.replace("DEF", "..., ..."), "t.apply();"),
    ("action a(bit<8> x) { r = x; }", "a(...);"),
    ("X() x;", "ef(...); r = x.get(...);"),
])
def test_accepted(locals_: str, body: str) -> None:
    _check(locals_, body)


@pytest.mark.parametrize(("locals_", "body", "message"), [
    # p4test: "...: must be a left-value".
    ("action a(inout bit<8> x) { x = 1; }", "a(...);", "...: must be a left-value"),
    ("action a(out bit<8> x) { x = 1; }", "a(...);", "...: must be a left-value"),
    # p4test: "No default value for type T (Type_Var)".
    ("", "g(...);", "...: no default value for type T"),
    # p4test: "y: parameter should be assigned in call a(...)": `...` is one argument.
    ("action a(bit<8> x, bit<8> y) { r = x + y; } " + TABLE.replace("DEF", "..."),
     "t.apply();", "action a expects 2 arguments here, got 1"),
    # p4test: "parameter x cannot be bound: it is set by the control plane".
    ("action a(bit<8> x) { r = x; } table t { actions = { a(...); } }", "t.apply();",
     "cannot be bound: it is set by the control plane"),
    # p4test: "Illegal cast from ANYTYPE to bit<8>".
    ("action a(bit<8> x) { }", "a((bit<8>)(...));", "...: no default value for type unknown"),
])
def test_rejected(locals_: str, body: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check(locals_, body)


@pytest.mark.parametrize("body", [
    # p4c's default-initializer.p4: `...` as an initialiser, the rest of a list.
    "bit<8> x = ...; r = x;",
    "r = ...;",
    "S s = { f = 1, ... }; H h = { 1, ... }; H[2] hs = { { 1, ... }, ... };",
    "S s = (S){ ... }; tuple<bit<8>, bool> t = { ... }; bit<8>[3] a = { 1, ... };",
    "H h = ...; E e = ...; error x = ...;",
    "S s = ((S){ ... }); r = s.f;",
])
def test_dots_as_an_initialiser(body: str) -> None:
    _check("", body)


@pytest.mark.parametrize(("decls", "body"), [
    ("", "S s = { 1, ..., };"),  # p4test takes the trailing comma too
    ("const int k = ...; const bool b = ...; const string s = ...;", ""),
])
def test_dots_in_constants_and_trailing_commas(decls: str, body: str) -> None:
    text = PROG.replace("LOCALS", "").replace("BODY", body).replace(
        "control c(", decls + "\ncontrol c(")
    check_source(preprocess_text(text, "t.p4"))


@pytest.mark.parametrize(("body", "message"), [
    # p4test: "Illegal cast from ANYTYPE to bit<8>", "cannot be applied to expression
    # '...' with type 'ANYTYPE'", "'switch' type can't be ANYTYPE": no type for `...`.
    ("r = (bit<8>)...;", "...: no default value for type unknown"),
    ("r = r + ...;", "...: no default value for type unknown"),
    ("switch (...) { }", "...: no default value for type unknown"),
    ("S s; if (s == ...) { r = 1; }", "...: no default value for type unknown"),
    # p4test: "... must be the last element" (p4c's default-initializer-err.p4).
    ("S s = { ..., true };", "... must be the last element"),
    # p4test: "default values for varbit types", "No default value for type struct
    # G<...>", "No default value for type match_kind".
    ("varbit<8> v = ...;", "...: no default value for type varbit<8>"),
    ("match_kind m = ...;", "...: no default value for type match_kind"),
    # p4test: "'u'": a list gives no header union.
    ("U u = { ... };", "type mismatch: expected U"),
])
def test_dots_without_a_default(body: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check("", body)


V1 = v1model_program("bit<8> a;", """\
    action set(bit<8> v) { hdr.h.a = v; }
    table t { actions = { set; } default_action = set(...); }
    apply { t.apply(); }""")


def test_the_pipeline_refuses_dots_at_load() -> None:
    check_source(preprocess_text(V1, "dots.p4"))  # p4test accepts it
    with pytest.raises(P4Error) as info:
        load_program_text(V1, "dots.p4")
    assert str(info.value).splitlines() == [
        "dots.p4:13:55: bm does not support '...' (default value) arguments yet"]
