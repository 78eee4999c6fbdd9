"""Parsers and deparsers to Python source (P4_16 spec 12 and 15).

A parser becomes `def f(buf, <params>, pk) -> int` returning the bit offset where parsing
stopped; states are branches of a loop on a state number. Errors raised by extract,
advance, lookahead, verify or an overflowing stack (`_ParserError(code)`) end parsing in
`reject` with the code in `pk.parser_error`, as BMv2's v1model does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import iter_nodes
from ..frontend.types import (
    BitT,
    BoolT,
    EnumT,
    HeaderT,
    HeaderUnionT,
    StackT,
    StructT,
    TupleT,
    Type,
    VarbitT,
)
from . import native
from .aliasing import by_reference
from .exprgen import strip
from .headercodec import (
    emit_source,
    extract_source,
    fixed_width,
    inline_emit,
    inline_extract,
    leaf_fields,
    native_extract,
    native_fields,
)
from .parseplan import parse_plan
from .values import py_name, shares_zero


class ParserGenMixin:
    env: dict[int, str]
    module: Any
    w: Any
    values: Any
    checked: Any

    def gen_parser(self, decl: ast.ParserDecl, pyname: str) -> None:
        names = [self.module.fresh(p.name) for p in decl.params]
        for p, n in zip(decl.params, names, strict=True):
            self.env[id(p)] = n
        packet_params = [p for p in decl.params if _is_packet_in(p)]
        for p in packet_params:
            self.env[id(p)] = "buf"
        args = [n for p, n in zip(decl.params, names, strict=True) if not _is_packet_in(p)]
        self.w.line(f"def {pyname}(buf, {', '.join(args)}, pk):")
        with self.w.indent():
            planned = parse_plan(self, decl, self.block)  # type: ignore[attr-defined]
            if planned is not None:
                # The common path in one C call (parseplan.py); where it gives up,
                # the states below parse the packet from the start.
                plan, hdr_index, aux_index = planned
                run = self.module.constant(plan.run, "parse_plan")
                aux = "None" if aux_index is None else names[aux_index]
                self.w.line(f"pos = {run}(buf, {names[hdr_index]}, {aux})")
                self.w.line("if pos >= 0:")
                with self.w.indent():
                    self.w.line("return pos")
            self.w.line("pos = 0")
            self.w.line("end = len(buf) << 3")
            for local in decl.locals:
                if isinstance(local, ast.VariableDecl):
                    self.declare_variable(local)  # type: ignore[attr-defined]
            self.w.line("try:")
            with self.w.indent():
                self.state_machine(decl, "st")
            self.w.line("except _ParserError as err:")
            with self.w.indent():
                self.w.line("pk.parser_error = err.code")
                self.w.line("st = -2")
            self.w.line("if st == -2 and not pk.parser_error:")
            with self.w.indent():
                self.w.line(f"pk.parser_error = {self.checked.error_code('NoMatch')}"
                            if "NoMatch" in self.checked.error_members else "pass")
            self.w.line("return pos")

    def state_machine(self, decl: ast.ParserDecl, var: str) -> None:
        """The parser's states, setting `var` to the next state: -1 is accept, -2
        reject. A parse graph whose only loops are states that transition to themselves
        (the usual case, header stacks included) becomes straight-line code, its states
        in topological order, each run if `var` names it (a self-loop as a ``while``):
        one test per state instead of a search through every state per transition. Any
        other graph (TLVs) becomes a loop on `var`. In straight-line code a state that
        one transition alone leads to runs in place of that transition (``_inlinable``):
        no test of `var` for it."""
        saved = (getattr(self, "_state_ids", None), getattr(self, "_state_var", "st"),
                 getattr(self, "_inline_states", {}))
        ids = {s.name: i for i, s in enumerate(decl.states)}
        ids["accept"] = -1
        ids["reject"] = -2
        self._state_ids = ids
        self._state_var = var
        self._inline_states = {}
        order = _topological_states(decl)
        if order is not None:
            inline = _inlinable(order)
            self._inline_states = {s.name: s for s in order if s.name in inline}
            for i, state in enumerate(order):
                if state.name in inline:
                    continue  # run by the transition that leads to it
                looping = state.name in _successors(state)
                if looping:
                    if i == 0:
                        self.w.line(f"{var} = {ids[state.name]}")
                    self.w.line(f"while {var} == {ids[state.name]}:")
                elif i == 0:  # the start state always runs
                    self.state_body(state)
                    continue
                else:
                    self.w.line(f"if {var} == {ids[state.name]}:")
                with self.w.indent():
                    self.state_body(state)
        else:
            self.w.line(f"{var} = {ids['start']}")
            self.w.line(f"while {var} >= 0:")
            with self.w.indent():
                for i, state in enumerate(decl.states):
                    self.w.line(f"{'if' if i == 0 else 'elif'} {var} == {ids[state.name]}:")
                    with self.w.indent():
                        self.state_body(state)
        self._state_ids, self._state_var, self._inline_states = saved

    def state_body(self, state: ast.ParserState) -> None:
        for stmt in state.body:
            self.parser_statement(stmt)
        self.transition(state.transition)

    def inline_subparser(self, decl: ast.ParserDecl, call: ast.MethodCallExpr,
                         child: Any) -> None:
        """`p.apply(packet, ...)` in a parser state: the callee's states run in place on
        the same packet cursor; its reject rejects the caller too (spec 12.9)."""
        target = call.target
        copies = []
        shared = by_reference(decl.params, target.args)
        for i, (p, a) in enumerate(zip(decl.params, target.args, strict=True)):
            if _is_packet_in(p):
                self.env[id(p)] = "buf"
            else:
                copy = self.bind_param(p, a, i in shared)  # type: ignore[attr-defined]
                if copy is not None:
                    copies.append(copy)
        saved = self.block  # type: ignore[has-type]
        self.block = child
        try:
            for local in decl.locals:
                if isinstance(local, ast.VariableDecl):
                    self.declare_variable(local)  # type: ignore[attr-defined]
            var = self.module.fresh("sub")
            self.state_machine(decl, var)
            no_match = self.checked.error_code("NoMatch")
            self.w.line(f"if {var} == -2:")
            with self.w.indent():
                self.w.line(f"raise _ParserError(pk.parser_error or {no_match})")
            self.copy_out(copies)  # type: ignore[attr-defined]
        finally:
            self.block = saved

    def parser_statement(self, s: Any) -> None:
        if isinstance(s, ast.MethodCallStatement) and s.call.target.kind == "extern_method":
            name = s.call.target.decl.name
            recv_t = strip(s.call.target.receiver.type)
            if getattr(recv_t, "name", "") == "packet_in" and name in ("extract", "advance"):
                self.packet_in_call(s.call)
                return
        if isinstance(s, ast.MethodCallStatement) and s.call.target.kind == "extern_function" \
                and s.call.target.decl.name == "verify":
            cond, err = s.call.target.args
            self.w.line(f"if not {self.expr(cond)}:")  # type: ignore[attr-defined]
            with self.w.indent():
                self.w.line(f"raise _ParserError({self.expr(err)})")  # type: ignore
            return
        self.statement(s)  # type: ignore[attr-defined]

    def goto(self, name: str) -> None:
        """Go to state ``name``: set the state variable, or run the state in place."""
        state = self._inline_states.get(name)
        if state is None:
            self.w.line(f"{self._state_var} = {self._state_ids[name]}")
        else:
            self.state_body(state)

    def transition(self, tr: ast.Transition | None) -> None:
        var = self._state_var
        if tr is None:
            self.w.line(f"{var} = -2")
            return
        if isinstance(tr, ast.DirectTransition):
            self.goto(tr.state)
            return
        assert isinstance(tr, ast.SelectTransition)
        keys = []
        for k in tr.keys:
            code = self.expr(k)  # type: ignore[attr-defined]
            if isinstance(strip(k.type), BoolT):
                code = f"(1 if {code} else 0)"
            keys.append(code)
        names = [self.module.fresh("k") for _ in keys]
        for n, code in zip(names, keys, strict=True):
            self.w.line(f"{n} = {code}")
        first = True
        for case in tr.cases:
            cond = self.keyset_condition(case.keyset, names, tr.keys)
            if cond == "True":  # default: the cases after it are never reached
                if first:
                    self.goto(case.state)
                else:
                    self.w.line("else:")
                    with self.w.indent():
                        self.goto(case.state)
                return
            self.w.line(f"{'if' if first else 'elif'} {cond}:")
            first = False
            with self.w.indent():
                self.goto(case.state)
        # no case matched: NoMatch (P4_16 spec 12.6)
        no_match = f"raise _ParserError({self.checked.error_code('NoMatch')})"
        if first:
            self.w.line(no_match)
            return
        self.w.line("else:")
        with self.w.indent():
            self.w.line(no_match)

    def keyset_condition(self, keyset: ast.Expression, names: list[str],
                         keys: list[ast.Expression]) -> str:
        if isinstance(keyset, ast.DefaultExpr | ast.DontCareExpr):
            return "True"
        if isinstance(keyset, ast.PathExpr) and isinstance(keyset.decl, ast.ValueSetDecl) \
                and len(names) > 1:
            # A tuple-typed value set matches the key fields concatenated in order.
            concat = names[0]
            for n, k in zip(names[1:], keys[1:], strict=True):
                concat = f"(({concat}) << {fixed_width(strip(k.type))} | {n})"
            vs = self.module.bind("value_set", self.value_set_name(keyset.decl))
            return f"_vs_match({vs}, {concat})"
        elems = keyset.elems if isinstance(keyset, ast.ListExpr) and len(names) > 1 else [keyset]
        parts = []
        for e, n, k in zip(elems, names, keys, strict=True):
            parts.append(self.key_match(e, n, strip(k.type)))
        parts = [p for p in parts if p != "True"]
        return " and ".join(parts) if parts else "True"

    def key_match(self, e: ast.Expression, name: str, t: Type) -> str:
        if isinstance(e, ast.DefaultExpr | ast.DontCareExpr):
            return "True"
        if isinstance(e, ast.MaskExpr):
            value, m = _int(evaluate(e.value)), _int(evaluate(e.mask))
            return f"({name} & {m}) == {value & m}"
        if isinstance(e, ast.RangeExpr):
            lo, hi = _int(evaluate(e.low)), _int(evaluate(e.high))
            return f"{lo} <= {name} <= {hi}"
        if isinstance(e, ast.PathExpr) and isinstance(e.decl, ast.ValueSetDecl):
            vs = self.module.bind("value_set", self.value_set_name(e.decl))
            return f"_vs_match({vs}, {name})"
        if isinstance(e, ast.ListExpr) and isinstance(t, TupleT):
            # A list key `{a, b}` (a Python tuple here) matched element by element.
            parts = [self.key_match(x, f"{name}[{i}]", strip(et))
                     for i, (x, et) in enumerate(zip(e.elems, t.elems, strict=True))]
            return " and ".join(f"({p})" for p in parts)
        try:
            value = evaluate(e)
        except NotConstant:
            # A run-time label value (p4c's select-struct.p4), read when the select runs.
            code = self.expr(e)  # type: ignore[attr-defined]
            return f"{name} == {f'(1 if {code} else 0)' if isinstance(t, BoolT) else code}"
        return f"{name} == {self.literal(value, t)}"  # type: ignore[attr-defined]

    def value_set_name(self, decl: ast.ValueSetDecl) -> str:
        from ..frontend.naming import qualify

        return qualify(self.block.path, decl)  # type: ignore[attr-defined]

    # -- packet_in ----------------------------------------------------------------------
    def packet_in_call(self, call: ast.MethodCallExpr) -> None:
        name = call.target.decl.name
        args = [a for a in call.target.args if a is not None]
        if name == "advance":
            amount = self.expr(args[0])  # type: ignore[attr-defined]
            self.w.line(f"pos += {amount}")
            self.w.line("if pos > end:")
            with self.w.indent():
                self.w.line(f"raise _ParserError({self.checked.error_code('PacketTooShort')})")
            return
        target = args[0]
        t = strip(target.type)
        if len(args) == 1 and self.shared_zero(target) is not None and _flat(t):
            # A struct's header that may still be the shared zero (values.py): extracted
            # into a new instance, which replaces it once the extraction succeeded (the
            # extractor sets every slot; a packet too short leaves the header as it was).
            self.own(target.base)  # type: ignore[attr-defined]
            code = self.expr(target)  # type: ignore[attr-defined]
            cls = self.module.constant(self.values.class_for(t), "cls")
            tmp = self.module.fresh("h")
            fn = self.extractor(t, varbit=False)
            codec = self.codec(t)
            if codec is not None:
                lines = native_extract(fn, t, codec.extract, tmp, f"_new({cls})",
                                       self.whole_bytes())
            else:
                self.w.line(f"{tmp} = _new({cls})")
                lines = inline_extract(fn, t, tmp, self.module.fresh, self.whole_bytes()) \
                    or [f"pos = {fn}(buf, pos, end, {tmp})"]
            for line in lines:
                self.w.line(line)
            self.w.line(f"{code} = {tmp}")
            self.w.claim(code)
            return
        dest = self.extract_destination(target)
        if len(args) == 2:
            length = self.expr(args[1])  # type: ignore[attr-defined]
            fn = self.extractor(t, varbit=True)
            self.w.line(f"pos = {fn}(buf, pos, end, {dest}, {length})")
        else:
            fn = self.extractor(t, varbit=False)
            h = self.module.fresh("h")
            codec = self.codec(t)
            if codec is not None:
                inline = native_extract(fn, t, codec.extract_into, h, None,
                                        self.whole_bytes())
            else:
                inline = inline_extract(fn, t, h, self.module.fresh, self.whole_bytes())
            if inline is None:
                self.w.line(f"pos = {fn}(buf, pos, end, {dest})")
            else:
                self.w.line(f"{h} = {dest}")
                for line in inline:
                    self.w.line(line)
        self.after_extract(target)

    def whole_bytes(self) -> bool:
        """Whether every parser of the program moves the packet cursor by whole bytes
        only (``_moves_whole_bytes``): then ``pos``, 0 at the start, is always at a byte
        boundary and an inlined extraction need not test it."""
        cached = self.__dict__.get("_whole_bytes")
        if cached is None:
            cached = self.__dict__["_whole_bytes"] = _moves_whole_bytes(
                self.checked.program.decls)
        return cached

    def extract_destination(self, target: ast.Expression) -> str:
        """Code of the header object extracted into. `stack.next`, and `stack.next.h`
        for a stack of header unions, check the bound (StackOutOfBounds, spec 8.18);
        extracting a union member invalidates the union's other members (8.20)."""
        stack_node = _next_of_stack(target)
        if stack_node is not None:
            self.own(stack_node)  # type: ignore[attr-defined]
            stack = self.expr(stack_node)  # type: ignore[attr-defined]
            size = strip(stack_node.type).size
            self.w.line(f"if {stack}.next_index >= {size}:")
            with self.w.indent():
                self.w.line(f"raise _ParserError({self.checked.error_code('StackOutOfBounds')})")
            if target.base is stack_node:
                return f"{stack}.elems[{stack}.next_index]"
        if self.is_union_member(target):  # type: ignore[attr-defined]
            union = self.expr(target.base)  # type: ignore[attr-defined]
            for f, _ in strip(target.base.type).fields:
                if f != target.member:
                    self.w.line(f"{union}.{py_name(f)}._clear()")
        self.own(target)  # type: ignore[attr-defined]
        return self.expr(target)  # type: ignore[attr-defined]

    def after_extract(self, target: ast.Expression) -> None:
        stack_node = _next_of_stack(target)
        if stack_node is not None:
            self.w.line(f"{self.expr(stack_node)}.next_index += 1")  # type: ignore

    def extractor(self, t: Type, varbit: bool) -> str:
        """A module-level function extracting header type `t` (generated once per type)."""
        if not isinstance(t, HeaderT):
            raise P4TypeError(f"cannot extract a value of type {t}", None)
        cache = self.__dict__.setdefault("_extractors", {})
        key = (id(t.decl), t.name, varbit)
        if key in cache:
            return cache[key]
        fn = self.module.fresh(f"extract_{t.name}")
        cache[key] = fn
        self.helpers.append(extract_source(fn, t, varbit, self.checked))
        return fn

    def codec(self, t: HeaderT) -> BoundCodec | None:
        """The C codec of header type ``t`` and the names its methods are bound to in
        the generated module (once per type), or None: the codec is not built or
        switched off (native.py), or it cannot serve ``t`` (``native_fields``)."""
        cache = self.__dict__.setdefault("_codecs", {})
        key = (id(t.decl), t.name)
        if key not in cache:
            codec_class = native.codec_class()
            fields = native_fields(t) if codec_class is not None else None
            if fields is None:
                cache[key] = None
            else:
                codec = codec_class(self.values.class_for(t), fields)
                cache[key] = BoundCodec(
                    codec, self.module.constant(codec.extract, f"x_{t.name}"),
                    self.module.constant(codec.extract_into, f"xi_{t.name}"),
                    self.module.constant(codec.emit, f"e_{t.name}"))
        return cache[key]

    def lookahead_code(self, t: Type) -> str:
        t = strip(t)
        width = fixed_width(t)
        too_short = self.checked.error_code("PacketTooShort")
        code = f"_peek(buf, pos, {width}, end, {too_short})"
        if isinstance(t, BoolT):
            return f"({code} != 0)"
        if isinstance(t, BitT) and t.signed:
            return self.wrap_code(code, t)  # type: ignore[attr-defined]
        if isinstance(t, HeaderT):
            fn = self.extractor(t, varbit=False)
            return f"_lookahead_header({fn}, buf, pos, end, {self.values.default_expr(t)})"
        return code

    # -- deparser -------------------------------------------------------------------------
    def gen_deparser(self, decl: ast.ControlDecl, pyname: str) -> None:
        names = [self.module.fresh(p.name) for p in decl.params]
        args = []
        for p, n in zip(decl.params, names, strict=True):
            if _is_packet_out(p):
                self.env[id(p)] = "out"
            else:
                self.env[id(p)] = n
                args.append(n)
        self.w.line(f"def {pyname}(out, {', '.join(args)}, pk):")
        with self.w.indent():
            fused = self.fused_deparser(decl)
            if fused is not None:
                emit, _, param = fused
                self.w.line(f"out.append({emit}({self.env[id(param)]}))")
            else:
                self.control_body(self.block, decl)  # type: ignore[attr-defined]
        # `<pyname>_frame(hdr, payload)`: the whole packet that leaves, in one call, for
        # a fused deparser (the device uses it in place of the function and a join)
        self.w.line(f"{pyname}_frame = {fused[1] if fused is not None else None}")

    def fused_deparser(self, decl: ast.ControlDecl
                       ) -> tuple[str, str, ast.Parameter] | None:
        """A deparser that only emits headers and header stacks of one struct
        parameter, all of types the C codec serves, as one C ``Deparser``: the
        names of its ``emit`` and ``frame`` in the module, and the parameter; else
        None (the statements generate as any control's). ``emit(hdr)`` and
        ``emit(hdr.f)`` are accepted."""
        deparser_class = native.deparser_class()
        if deparser_class is None or decl.locals or not decl.body.stmts:
            return None
        param: ast.Parameter | None = None
        struct_t: StructT | None = None
        steps: list[tuple[str, Any, bool]] = []
        for stmt in decl.body.stmts:
            arg = _emitted(stmt)
            if isinstance(arg, ast.PathExpr):
                root, member = arg, None
            elif isinstance(arg, ast.MemberExpr):
                root, member = arg.base, arg.member
            else:  # a stack element, a call, ...: the statements generate one by one
                return None
            if not isinstance(root, ast.PathExpr) or not isinstance(root.decl, ast.Parameter) \
                    or param is not None and root.decl is not param:
                return None
            param, struct_t = root.decl, strip(root.type)
            if not isinstance(struct_t, StructT):
                return None
            fields = struct_t.fields if member is None else \
                [(f, ft) for f, ft in struct_t.fields if f == member]
            for f, ft in fields:
                step = self._deparser_step(py_name(f), strip(ft))
                if step is None:
                    return None
                steps.append(step)
        assert param is not None and struct_t is not None
        emitter = deparser_class(steps, self.values.class_for(struct_t))
        return (self.module.constant(emitter.emit, "deparse"),
                self.module.constant(emitter.frame, "deparse_frame"), param)

    def _deparser_step(self, name: str, t: Type) -> tuple[str, Any, bool] | None:
        stack = isinstance(t, StackT)
        header = strip(t.elem) if stack else t  # type: ignore[union-attr]
        codec = self.codec(header) if isinstance(header, HeaderT) else None
        return None if codec is None else (name, codec.codec, stack)

    def emit_code(self, e: ast.Expression) -> None:
        """packet_out.emit: valid headers in order, recursing into structs/stacks/unions."""
        zero = self.shared_zero(e) if isinstance(strip(e.type), StackT) else None  # type: ignore
        self._emit_value(self.expr(e), strip(e.type), zero)  # type: ignore[attr-defined]

    def _emit_value(self, code: str, t: Type, zero: str | None = None) -> None:
        """Emission of ``code``, a value of type ``t``; ``zero`` names the shared zero
        stack a struct's stack may still be (values.py): nothing of it is valid."""
        if isinstance(t, HeaderT):
            codec = self.codec(t)
            if codec is not None:
                h = self.module.fresh("h")
                self.w.line(f"{h} = {code}")
                self.w.line(f"if {h}._valid:")
                with self.w.indent():
                    self.w.line(f"out.append({codec.emit}({h}))")
                return
            fn = self.emitter(t)
            h = self.module.fresh("h")
            inline = inline_emit(fn, t, h)
            if inline is None:
                self.w.line(f"if {code}._valid:")
                with self.w.indent():
                    self.w.line(f"out.append({fn}({code}))")
                return
            masked, unmasked = inline
            self.w.line(f"{h} = {code}")
            self.w.line(f"if {h}._valid:")
            with self.w.indent():
                if masked == unmasked:
                    self.w.line(f"out.append({masked})")
                    return
                self.w.line("try:")
                with self.w.indent():
                    self.w.line(f"out.append({unmasked})")
                self.w.line("except _PackError:")
                with self.w.indent():
                    self.w.line(f"out.append({masked})")
        elif isinstance(t, StackT):
            if zero is None:
                for i in range(t.size):
                    self._emit_value(f"{code}.elems[{i}]", strip(t.elem))
                return
            self.w.line(f"if {code} is not {zero}:")
            with self.w.indent():
                self._emit_value(code, t)
        elif isinstance(t, StructT | HeaderUnionT):
            for f, ft in t.fields:
                inner = strip(ft)
                zero = None
                if isinstance(inner, StackT) and shares_zero(t, inner):
                    zero = self.module.constant(self.values.shared_zero(inner)[1], "zero")
                self._emit_value(f"{code}.{py_name(f)}", inner, zero)
        else:
            raise P4TypeError(f"cannot emit a value of type {t}", None)

    def emitter(self, t: HeaderT) -> str:
        cache = self.__dict__.setdefault("_emitters", {})
        key = (id(t.decl), t.name)
        if key in cache:
            return cache[key]
        fn = self.module.fresh(f"emit_{t.name}")
        cache[key] = fn
        self.helpers.append(emit_source(fn, t))
        return fn


def _next_of_stack(target: ast.Expression) -> ast.Expression | None:
    """The stack of an extract target `stack.next` or, in a stack of header unions,
    `stack.next.member` (BMv2 then advances the union stack); else None."""
    node = target
    if isinstance(node, ast.MemberExpr) and isinstance(strip(node.base.type), HeaderUnionT):
        node = node.base
    if isinstance(node, ast.MemberExpr) and node.member == "next" \
            and isinstance(strip(node.base.type), StackT):
        return node.base
    return None


def _is_packet_in(p: ast.Parameter) -> bool:
    return getattr(p.type_ref.resolved, "name", "") == "packet_in"


class BoundCodec(NamedTuple):
    """A header type's C codec and the generated module's names of its methods."""

    codec: Any
    extract: str
    extract_into: str
    emit: str


def _emitted(stmt: Any) -> ast.Expression | None:
    """The argument of a statement `p.emit(x)` on a packet_out ``p``; else None."""
    if not isinstance(stmt, ast.MethodCallStatement):
        return None
    func = stmt.call.func
    if not isinstance(func, ast.MemberExpr) or func.member != "emit" \
            or not isinstance(func.base, ast.PathExpr) \
            or not isinstance(func.base.decl, ast.Parameter) \
            or not _is_packet_out(func.base.decl) or len(stmt.call.args) != 1:
        return None
    return stmt.call.args[0].value


def _is_packet_out(p: ast.Parameter) -> bool:
    return getattr(p.type_ref.resolved, "name", "") == "packet_out"


def _int(v: Any) -> int:
    return int(v)


def _topological_states(decl: ast.ParserDecl) -> list[ast.ParserState] | None:
    """The states reachable from ``start``, each before every other state it
    transitions to; None if the graph has a loop through more than one state."""
    by_name = {s.name: s for s in decl.states}
    order: list[ast.ParserState] = []
    done: set[str] = set()
    on_path: set[str] = set()

    def successors(state: ast.ParserState) -> list[str]:
        return [n for n in _successors(state) if n in by_name and n != state.name]

    def visit(name: str) -> bool:
        if name in done:
            return True
        if name in on_path:
            return False
        on_path.add(name)
        for nxt in successors(by_name[name]):
            if not visit(nxt):
                return False
        on_path.discard(name)
        done.add(name)
        order.append(by_name[name])
        return True

    if "start" not in by_name or not visit("start"):
        return None
    order.reverse()
    return order


def _moves_whole_bytes(root: Any) -> bool:
    """Whether every ``packet_in`` call under ``root`` moves the cursor by whole bytes:
    extracts of fixed-width headers of whole bytes, advances by constant multiples of
    8 bits (lookahead does not move it)."""
    return all(_whole_byte_move(node) for node in iter_nodes(root)
               if isinstance(node, ast.MethodCallExpr))


def _whole_byte_move(call: ast.MethodCallExpr) -> bool:
    """Whether ``call`` is no ``packet_in`` method, or one that moves by whole bytes."""
    target = call.target
    if target is None or target.kind != "extern_method" \
            or getattr(strip(target.receiver.type), "name", "") != "packet_in":
        return True
    args = [a for a in target.args if a is not None]
    name = target.decl.name
    if name == "extract":
        t = strip(args[0].type) if len(args) == 1 else None
        if not isinstance(t, HeaderT):
            return False
        fields = leaf_fields(t)
        return not (any(isinstance(ft, VarbitT) for _, ft, _ in fields)
                    or sum(w for _, _, w in fields) % 8)
    if name == "advance":
        try:
            amount = evaluate(args[0])
        except NotConstant:
            return False
        return isinstance(amount, int) and not amount % 8
    return name in ("lookahead", "length")


def _inlinable(order: list[ast.ParserState], max_depth: int = 8) -> set[str]:
    """The states of a straight-line parser (``order``, topological) that may run in
    place of the one transition leading to them: not the start state, not looping,
    named by one case of one state that is not looping either, and at most
    ``max_depth`` such states nested in one another (Python's indentation limit)."""
    refs: dict[str, list[str]] = {}
    for state in order:
        for name in _successors(state):
            refs.setdefault(name, []).append(state.name)
    looping = {s.name for s in order if s.name in _successors(s)}
    depth: dict[str, int] = {}
    for state in order[1:]:
        preds = refs.get(state.name, [])
        if len(preds) != 1 or state.name in looping or preds[0] in looping:
            continue
        d = depth.get(preds[0], 0) + 1
        if d <= max_depth:
            depth[state.name] = d
    return set(depth)


def _successors(state: ast.ParserState) -> list[str]:
    """The names of the states ``state`` may transition to (accept/reject included)."""
    tr = state.transition
    if isinstance(tr, ast.DirectTransition):
        return [tr.state]
    if isinstance(tr, ast.SelectTransition):
        return [case.state for case in tr.cases]
    return []


def _flat(t: Type) -> bool:
    """A header of fixed-width scalar fields only: its extractor sets every slot."""
    return isinstance(t, HeaderT) and all(
        isinstance(strip(ft), BitT | BoolT | EnumT) for _, ft in t.fields)
