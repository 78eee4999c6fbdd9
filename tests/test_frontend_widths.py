"""Expressions as widths, `bit<2 + 2>`, `bit<a < 3 ? 5 : 4>`, `bit<v4[7:0] - v1>`, as
p4c parses them (its nonGrtExpression: any expression without a `>` outside
parentheses; p4c's bitexpr1.p4, cfoldBitTypedefs.p4). The width is a compile-time
known integer, as before. Each verdict below is p4test 1.2.5's."""

from __future__ import annotations

import pytest
from frontend_cases import assert_rejected, check

from behavioral_model.frontend.errors import P4SyntaxError
from behavioral_model.frontend.types import BitT


@pytest.mark.parametrize("text", [
    "const bit<2 + 2> a = 5;",
    "const bit<4> a = 5; const bit<a < 3 ? 5 : 4> b = 6;",
    "const bit<4> a = 5; const bit<(a > 3 ? 5 : 4)> b = 6;",
    "extern T func<T>(T arg); const bit<4> b = 6; "
    "action act(bit<5> x) { func<bit<b^3>>(x); }",
    "const bit<8> v1 = 15; typedef bit<v1> t2_t; const bit<8> v4 = 18; "
    "typedef bit<v4[7:0]-v1> t6_t;",
    "const bit<8> v1 = 15; typedef bit<(v1 >> 1)> t2_t;",
    "const bit<8> v1 = 15; typedef varbit<v1 - 7> t2_t;",
])
def test_accepted(text: str) -> None:
    check(text)


def test_the_width_is_the_expression_s_value() -> None:
    checked = check("const int N = 4; struct S { bit<N * 2> f; int<N + 1> g; }")
    decl = checked.program.decls[-1]
    assert [(f.name, f.type_ref.resolved) for f in decl.fields] == [
        ("f", BitT(8)), ("g", BitT(5, True))]


@pytest.mark.parametrize("text", [
    # p4c: a `>` outside parentheses ends the width
    "const bit<4> a = 5; const bit<a > 3 ? 5 : 4> b = 6;",
    "const bit<8> v1 = 15; typedef bit<v1 >> 1> t2_t;",
])
def test_a_greater_than_needs_parentheses(text: str) -> None:
    with pytest.raises(P4SyntaxError):
        check(text)


@pytest.mark.parametrize(("text", "message"), [
    ("const bit<8> v1 = 15; typedef int<v1 - 15> t2_t;", "invalid width 0 for int"),
    ("header h { bit<8> x; } control c(inout h hh) { apply { bit<hh.x> y = 1; } }",
     "bit width must be a compile-time constant"),
    ("const bool B = true; typedef bit<B> t;", "bit width must be an integer"),
])
def test_rejected(text: str, message: str) -> None:
    assert_rejected(text, message)
