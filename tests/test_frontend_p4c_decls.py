"""More rules of p4c's front end that bm's `check` applies (found by
scripts/compare_p4test.py on p4c's p4_16_errors): extern constructors and methods, type
arguments, tuple fields, return types, casts, key-value initializers, switch statements,
default values, comparisons, overloads, action arguments and parsers applied in
controls.
Each rejected program below is rejected by p4test 1.2.5 too; each accepted one is
accepted by it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

CORE = "#include <core.p4>\n"
# p4c's mid end, which makes some of the checks, sees only a program with a main.
MAIN = "\ncontrol C(inout bit<4> v);\npackage P(C c);\nP(c()) main;"
NO_CORE = "// without core.p4\n"
BODY = CORE + "typedef bit<2> two_t;\ntype bit<1> one_t;\ntype one_t again_t;\n%s"


def check(text: str) -> None:
    check_source(preprocess_text(text))


REJECTED = [
    ("extern Gadget { void Gadget(); }", "cannot have a return type", "constructor-returns"),
    ("struct S { bit<4> a; }\nextern Gadget { Gadget(); S(in bit<8> x); }",
     "method has no return type", "method-without-return-type"),
    ("extern Bag<T> { }\ncontrol c() { Bag() b; apply {} }",
     "could not infer a type", "generic-extern-without-constructor"),
    ("extern void take<T>(in T v);\ncontrol c() { apply { take(\"text\"); } }",
     "type string cannot have a direction", "string-for-in-T"),
    ("extern void two<A, B>(in A a);\ncontrol c() { apply { two<bit<8>>(8w1); } }",
     "takes 2 type arguments", "too-few-type-arguments"),
    ("struct Box<T> { T f; }\nextern Box make();", "no type parameters supplied",
     "generic-return-type"),
    ("struct Box<T> { T f; }\nstruct Pair<T> { T g; }\ntypedef Box<Pair> bp;",
     "generic type needs type arguments", "generic-type-argument"),
    ("parser P(in bit<1> x);\nstruct Box<T> { T f; }\ntypedef Box<P> bp;",
     "cannot be a type argument", "parser-as-struct-argument"),
    ("extern Gadget { Gadget(tuple<string> t); }", "not supported as a tuple field",
     "tuple-of-string"),
    ("extern void take(in tuple<_> t);", "not supported as a tuple field", "tuple-of-dont-care"),
    ("control c(inout bit<4> v) { action a() { switch (v) { 4w1: { v = 0; } } }\n"
     "  apply { a(); } }" + MAIN, "not supported in actions", "switch-in-action"),
    (NO_CORE + "control c(inout bit<4> v) { apply { switch (v) { 4w0: {} } } }" + MAIN,
     "needs match_kind 'exact'", "switch-without-core.p4"),
    ("control c(inout bit<8> v) { action a() { v = 1; }\n"
     "  apply { if (a() == a()) {} } }", "cannot be compared", "void-comparison"),
    ("bit<4> h(in bit<4> x) { return x; }\n"
     "bit<4> f(in bit<4> a = h(1), in bit<4> b) { return b; }",
     "compile-time constant", "default-not-constant"),
    ("header H { bit<8> a; }\ncontrol c() { apply { H h = { b = 1 }; } }",
     "do not match the fields", "initializer-unknown-field"),
    ("header H { varbit<32> f; }\nvoid f(out H h) { h = { f = 10 }; }", "type mismatch",
     "initializer-field-type"),
    ("control c() { apply { bool b = { a = 1, b = 2 } == { a = 1, b = 2 }; } }",
     "cannot compare two key-value initializers", "compare-initializers"),
    ("extern Pick { Pick(); void put(in bit<8> first); void put(in bit<8> second); }\n"
     "control c() { Pick() p; apply { p.put(8w1); } }", "ambiguous call", "ambiguous-overload"),
    ("control c(inout bit<4> v) {\n  action set(in bool b) { v = b ? 4w1 : 4w0; }\n"
     "  table u { actions = {} }\n  table t { actions = { set(u.apply().hit); } }\n"
     "  apply { t.apply(); } }" + MAIN, "table invocation in action argument",
     "table-applied-in-action-argument"),
    ("control c<H>() { apply { H h = 0; } }", "could not infer a width", "int-for-type-variable"),
    ("one_t f(in two_t a) { return (one_t)a; }", "cannot cast", "cast-to-newtype-other-width"),
    ("control c() { apply { bit<4> a = 1; int<2> b = (int<2>)a; } }", "cannot cast",
     "cast-width-and-sign"),
    ("parser P(); parser Q() { state start { transition accept; } }\n"
     "control C(); package S(C c);\ncontrol D()(P p) { apply { p.apply(); } }\n"
     "S(D(Q())) main;", "instantiation of parser in control", "parser-applied-in-control"),
]


@pytest.mark.parametrize("text, message",
                         [pytest.param(t, m, id=i) for t, m, i in REJECTED])
def test_rule_rejects(text: str, message: str) -> None:
    source = text.removeprefix(NO_CORE) if text.startswith(NO_CORE) else BODY % text
    with pytest.raises(P4TypeError, match=message):
        check(source)


ACCEPTED = [
    ("extern Pick { Pick(); void put(in bit<8> first); void put(in bit<8> second); }\n"
     "control c() { Pick() p; apply { p.put(second = 8w1); } }", "overload-named-argument"),
    ("control c() { apply { bool b = { 1, 2 } == { 1, 2 }; } }", "compare-lists"),
    ("parser P(); parser Q() { state start { transition accept; } }\n"
     "control C(); package S(C c);\ncontrol D()(P p) { apply {} }\nS(D(Q())) main;",
     "parser-given-to-control-not-applied"),
    ("control c(inout bit<4> v) { action a() { switch (v) { 4w1: { v = 0; } } }\n"
     "  apply { a(); } }", "switch-in-action-without-main"),
    ("extern Gadget { Gadget(); bit<8> get(); }", "constructor-and-method"),
    ("extern Bag<T> { Bag(T init); }\ncontrol c() { Bag(8w1) b; apply {} }",
     "generic-extern-inferred"),
    ("struct Box<T> { T f; }\nextern Box<bit<8>> make();", "specialised-return-type"),
    ("struct Box<T> { T f; }\nstruct Pair<T> { T g; }\ntypedef Box<Pair<bit<1>>> bp;",
     "specialised-type-argument"),
    ("control c(in bit<4> v) { apply { switch (v) { 4w0: {} } } }", "switch-with-core"),
    ("control c(in bit<4> v) { apply { switch (v) { 4w0: default: {} } } }",
     "switch-all-default"),
    ("header H { bit<8> a; }\ncontrol c() { apply { H h = { a = 1 }; "
     "bool b = h == { a = 8w1 }; } }", "initializer-matching-fields"),
    ("bit<4> f(in bit<4> a = 4w3, in bit<4> b) { return b; }", "constant-default"),
    ("one_t f(in bit<1> a) { return (one_t)a; }\nagain_t g(in one_t a) "
     "{ return (again_t)a; }", "cast-to-newtype-from-base"),
    ("control c() { apply { bit<4> a = 1; int<4> b = (int<4>)a; bit<2> d = (bit<2>)a; } }",
     "cast-width-or-sign"),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for t, i in ACCEPTED])
def test_rule_accepts(text: str) -> None:
    check(BODY % text)
