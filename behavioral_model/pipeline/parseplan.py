"""A parser's common path as one C call: the ``_native.ParsePlan`` of a parser
(``_parseplan.c``), which the generated parser tries first.

The plan holds the parse graph as data: per state, the fixed headers it extracts
into the headers struct (each through its ``Codec``) and its transition, a state or
a ``select`` on header fields or on fields of one other struct parameter (the
standard metadata's ``ingress_port``, say) by exact values, with an optional
default (P4_16 spec 12.6). Sub-parsers called at the end of a state are taken in
place, their ``accept`` going on with the caller's transition (spec 12.9).
Everything else -- another statement in a state (an assignment, ``verify``,
``lookahead``, ``advance``, a header stack), a key or keyset of another kind, reject
-- becomes "give up" where it is met: the plan then returns -1 having changed nothing,
and the Python parser that follows in the generated function parses the packet from
the start. So the plan needs no error semantics of its own, and what it accepts is
what the Python parser would have computed on the same path.

A state is reached once per (parser, state, continuation); a parse visits at most
256 states and extracts at most 32 headers before the plan gives up (a loop).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.types import BitT, HeaderT, StructT
from . import native
from .aliasing import by_reference
from .exprgen import strip
from .values import py_name, shares_zero

ACCEPT, GIVE_UP = -1, -2  # targets, as _parseplan.c numbers them

# A place the plan can name: ("packet",), ("hdr",), ("hdr", field), ("hdr", field,
# member), ("param", index), ("param", index, member).
Place = tuple


class _Unsupported(Exception):
    """A construct the plan does not run: the state gives up there."""


class _Builder:
    def __init__(self, gen: Any, hdr_t: StructT, param_types: list[Any]) -> None:
        self.gen = gen
        self.hdr_t = hdr_t
        self.param_types = param_types
        self.states: list[tuple | None] = []
        self.seen: dict[tuple, int] = {}
        self.aux: int | None = None  # the one other parameter keys may read

    # -- places ---------------------------------------------------------------------
    def place(self, e: Any, env: dict[int, Place]) -> Place | None:
        if isinstance(e, ast.PathExpr) and isinstance(e.decl, ast.Parameter):
            return env.get(id(e.decl))
        if isinstance(e, ast.MemberExpr):
            base = self.place(e.base, env)
            return None if base is None else (*base, e.member)
        return None

    # -- states ---------------------------------------------------------------------
    def state(self, decl: ast.ParserDecl, inst: Any, env: dict[int, Place], name: str,
              cont: int) -> int:
        """The index of state ``name`` of ``decl``, whose accept goes to ``cont``."""
        if name == "accept":
            return cont
        if name == "reject":
            return GIVE_UP
        state = next(s for s in decl.states if s.name == name)
        return self.node((id(decl), id(inst), name, cont),
                         lambda: self.state_spec(decl, inst, env, state, cont))

    def node(self, key: tuple, build: Callable[[], tuple]) -> int:
        """The index of the plan's node for ``key``, its spec built once by ``build``
        (the node gives up where ``build`` meets what the plan does not run); its
        index is taken first, so a loop back to it finds it."""
        if key in self.seen:
            return self.seen[key]
        index = self.seen[key] = len(self.states)
        self.states.append(None)
        try:
            spec = build()
        except _Unsupported:
            spec = ([], [], [], GIVE_UP)
        self.states[index] = spec
        return index

    def state_spec(self, decl: ast.ParserDecl, inst: Any, env: dict[int, Place],
                   state: ast.ParserState, cont: int) -> tuple:
        extracts = []
        body = list(state.body)
        for i, stmt in enumerate(body):
            call = stmt.call if isinstance(stmt, ast.MethodCallStatement) else None
            if call is None:
                raise _Unsupported
            target = call.target
            if target.kind == "extern_method" and target.decl.name == "extract" \
                    and getattr(strip(target.receiver.type), "name", "") == "packet_in":
                extracts.append(self.extract(target.args, env))
            elif i == len(body) - 1:  # a sub-parser, then this state's transition
                after = self.node(
                    (id(decl), id(inst), f"{state.name}/after", cont),
                    lambda: ([], *self.transition(decl, inst, env, state.transition, cont)))
                callee, callee_inst, callee_env = self.subparser(call, inst, env)
                return (extracts, [], [],
                        self.state(callee, callee_inst, callee_env, "start", after))
            else:
                raise _Unsupported
        return (extracts, *self.transition(decl, inst, env, state.transition, cont))

    def extract(self, args: list, env: dict[int, Place]) -> tuple[str, Any]:
        args = [a for a in args if a is not None]
        if len(args) != 1:
            raise _Unsupported  # a varbit's length
        target = args[0]
        where = self.place(target, env)
        t = strip(target.type)
        if where is None or len(where) != 2 or where[0] != "hdr" \
                or not isinstance(t, HeaderT) or not shares_zero(self.hdr_t, t):
            raise _Unsupported  # a stack's next, a union's member, a nested struct
        codec = self.gen.codec(t)
        if codec is None:
            raise _Unsupported
        return py_name(where[1]), codec.codec

    def subparser(self, call: ast.MethodCallExpr, inst: Any, env: dict[int, Place]
                  ) -> tuple[ast.ParserDecl, Any, dict[int, Place]]:
        target = call.target
        if target.kind != "apply":
            raise _Unsupported
        child = inst.applied_by(call)
        if child is None or not isinstance(child.decl, ast.ParserDecl) \
                or child.decl.constructor_params:
            raise _Unsupported
        decl = child.decl
        shared = by_reference(decl.params, target.args)
        callee_env: dict[int, Place] = {}
        for i, (p, a) in enumerate(zip(decl.params, target.args, strict=True)):
            where = self.place(a, env) if isinstance(a, ast.Expression) else None
            if where is None:
                continue  # unknown to the plan: any use of it gives up
            if p.direction in ("out", "inout") and i not in shared:
                raise _Unsupported  # copied in and out: not the caller's struct
            callee_env[id(p)] = where
        return decl, child, callee_env

    def transition(self, decl: ast.ParserDecl, inst: Any, env: dict[int, Place],
                   tr: Any, cont: int) -> tuple[list, list, int]:
        """``(keys, cases, target)`` of a state's transition."""
        if tr is None:
            return [], [], GIVE_UP
        if isinstance(tr, ast.DirectTransition):
            return [], [], self.state(decl, inst, env, tr.state, cont)
        if not isinstance(tr, ast.SelectTransition) or len(tr.keys) > 8:
            raise _Unsupported
        keys = [self.key(k, env) for k in tr.keys]
        cases = []
        for case in tr.cases:
            values = self.keyset(case.keyset, len(keys))
            target = self.state(decl, inst, env, case.state, cont)
            if all(v is None for v in values):  # default: the cases after it never run
                return keys, cases, target
            cases.append((values, target))
        return keys, cases, GIVE_UP  # no match: NoMatch, the Python parser's to raise

    def key(self, e: Any, env: dict[int, Place]) -> tuple[str | None, type, str]:
        if not isinstance(strip(e.type), BitT):
            raise _Unsupported  # bool (read as 0/1), enum, error, tuple keys
        where = self.place(e, env)
        if where is None or len(where) != 3:
            raise _Unsupported
        values = self.gen.values
        if where[0] == "hdr":
            header_t = strip(dict(self.hdr_t.fields).get(where[1]))
            if not isinstance(header_t, HeaderT):
                raise _Unsupported
            return py_name(where[1]), values.class_for(header_t), py_name(where[2])
        if where[0] == "param" and self.aux in (None, where[1]):
            self.aux = where[1]
            struct_t = self.param_types[where[1]]
            if not isinstance(struct_t, StructT):
                raise _Unsupported
            return None, values.class_for(struct_t), py_name(where[2])
        raise _Unsupported

    def keyset(self, keyset: Any, nkeys: int) -> tuple[int | None, ...]:
        if isinstance(keyset, ast.DefaultExpr | ast.DontCareExpr):
            return (None,) * nkeys
        elems = keyset.elems if isinstance(keyset, ast.ListExpr) and nkeys > 1 else [keyset]
        if len(elems) != nkeys:
            raise _Unsupported
        return tuple(self.value(e) for e in elems)

    def value(self, e: Any) -> int | None:
        if isinstance(e, ast.DefaultExpr | ast.DontCareExpr):
            return None
        if isinstance(e, ast.MaskExpr | ast.RangeExpr | ast.ListExpr) or (
                isinstance(e, ast.PathExpr) and isinstance(e.decl, ast.ValueSetDecl)):
            raise _Unsupported
        try:
            value = evaluate(e)
        except NotConstant:
            raise _Unsupported from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Unsupported
        return value


def parse_plan(gen: Any, decl: ast.ParserDecl, inst: Any) -> tuple[Any, int, int | None] | None:
    """The ``ParsePlan`` of the package's parser ``decl`` (its instance ``inst``), the
    index of its headers struct parameter and of the parameter its keys read (or
    None); None when the C extension is off or the plan would give up at once."""
    plan_class = native.parse_plan_class()
    if plan_class is None or decl.constructor_params:
        return None
    params = list(decl.params)
    env: dict[int, Place] = {}
    hdr_index = None
    for i, p in enumerate(params):
        t = strip(p.type_ref.resolved)
        if getattr(t, "name", "") == "packet_in":
            env[id(p)] = ("packet",)
        elif hdr_index is None and p.direction in ("out", "inout") \
                and isinstance(t, StructT) and any(shares_zero(t, ft) for _, ft in t.fields):
            hdr_index = i
            env[id(p)] = ("hdr",)
        else:
            env[id(p)] = ("param", i)
    if hdr_index is None:
        return None
    hdr_t = strip(params[hdr_index].type_ref.resolved)
    builder = _Builder(gen, hdr_t, [strip(p.type_ref.resolved) for p in params])
    builder.state(decl, inst, env, "start", ACCEPT)
    if builder.states[0] == ([], [], [], GIVE_UP):
        return None
    aux_cls = None if builder.aux is None else \
        gen.values.class_for(builder.param_types[builder.aux])
    plan = plan_class(list(builder.states), gen.values.class_for(hdr_t), aux_cls)
    return plan, hdr_index, builder.aux
