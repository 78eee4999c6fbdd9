"""What a call or an instantiation binds to type variables, as p4c checks it
(frontend/inference.py): no `int` for a type variable, type arguments an extern instance
leaves out inferred from its constructor, a `_` argument whose type the call fixes, no
`_`, table or action parameter types.
Each rejected program below is rejected by p4test 1.2.5 too; each accepted one is
accepted by it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

CALL = """
#include <core.p4>
extern void put<T>(in T v);
extern void two<T>(out T r, in T lo);
extern void fill<T>(out T r);
extern Box<T> { Box(); void set(in T v); }
T same<T>(in T v) { return v; }
control c() {
    Box<_>() any;
    table t { actions = {} }
    apply { %s }
}
"""


def check(text: str) -> None:
    check_source(preprocess_text(text))


@pytest.mark.parametrize("stmt, message", [
    pytest.param("put(7);", "could not infer a width", id="int-literal-for-T"),
    pytest.param("put({8w1, 2});", "could not infer a width", id="int-inside-tuple"),
    pytest.param("bit<8> r; two(_, 3);", "could not infer a width", id="dont-care-out-then-int"),
    pytest.param("bit<8> y = same(200);", "could not infer a width", id="function-returns-T"),
    pytest.param("any.set(8w1);", "don't care", id="method-of-E<_>"),
    pytest.param("put(t);", "argument cannot have type", id="table-as-argument"),
    pytest.param("fill(_);", "could not infer a type", id="dont-care-binds-nothing"),
])
def test_unresolvable_type_variable_is_rejected(stmt: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message):
        check(CALL % stmt)


@pytest.mark.parametrize("stmt", [
    pytest.param("put(8w7);", id="typed-literal"),
    pytest.param("put((bit<4>)7);", id="cast-literal"),
    pytest.param("bit<8> r; two(r, 3);", id="out-argument-fixes-T"),
    pytest.param("bit<8> y = same(8w200);", id="function-typed-argument"),
    pytest.param("put<bit<8>>(7);", id="explicit-type-argument"),
    pytest.param("two(_, 8w3);", id="dont-care-with-typed-argument"),
    pytest.param("fill<bit<8>>(_);", id="dont-care-with-type-argument"),
])
def test_bound_type_variable_is_accepted(stmt: str) -> None:
    check(CALL % stmt)


INSTANCE = """
extern One<A> { One(A a); A get(); }
extern Two<A, B> { Two(A a); B get(); }
control c() {
    %s
    apply {}
}
"""


@pytest.mark.parametrize("decl, message", [
    pytest.param("Two(16w1) two;", "could not infer a type for type variable B",
                 id="unbound-type-variable"),
    pytest.param("One(1) one;", "could not infer a width", id="int-constructor-argument"),
])
def test_instance_type_arguments_must_be_inferable(decl: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message):
        check(INSTANCE % decl)


@pytest.mark.parametrize("decl", [
    pytest.param("One(16w1) one;", id="inferred-from-constructor"),
    pytest.param("Two<bit<16>, bool>(16w1) two;", id="given"),
])
def test_instance_type_arguments_inferred_or_given(decl: str) -> None:
    check(INSTANCE % decl)
