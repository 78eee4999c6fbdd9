"""Parsers and deparsers to Python source (P4_16 spec 12 and 15).

A parser becomes `def f(buf, <params>, pk) -> int` returning the bit offset where parsing
stopped; states are branches of a loop on a state number. Errors raised by extract,
advance, lookahead, verify or an overflowing stack (`_ParserError(code)`) end parsing in
`reject` with the code in `pk.parser_error`, as BMv2's v1model does.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import evaluate
from ..frontend.errors import P4TypeError
from ..frontend.types import (
    BitT,
    BoolT,
    HeaderT,
    HeaderUnionT,
    StackT,
    StructT,
    Type,
    VarbitT,
    width_of,
)
from .exprgen import mask, strip
from .values import py_name


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
        """The parser's states as a loop on `var`: -1 is accept, -2 reject."""
        saved = getattr(self, "_state_ids", None), getattr(self, "_state_var", "st")
        ids = {s.name: i for i, s in enumerate(decl.states)}
        ids["accept"] = -1
        ids["reject"] = -2
        self._state_ids = ids
        self._state_var = var
        self.w.line(f"{var} = {ids['start']}")
        self.w.line(f"while {var} >= 0:")
        with self.w.indent():
            for i, state in enumerate(decl.states):
                self.w.line(f"{'if' if i == 0 else 'elif'} {var} == {ids[state.name]}:")
                with self.w.indent():
                    for stmt in state.body:
                        self.parser_statement(stmt)
                    self.transition(state.transition)
        self._state_ids, self._state_var = saved

    def inline_subparser(self, decl: ast.ParserDecl, call: ast.MethodCallExpr,
                         child: Any) -> None:
        """`p.apply(packet, ...)` in a parser state: the callee's states run in place on
        the same packet cursor; its reject rejects the caller too (spec 12.9)."""
        target = call.target
        copies = []
        for p, a in zip(target.params, target.args, strict=True):
            if _is_packet_in(p):
                self.env[id(p)] = "buf"
            else:
                copy = self.bind_param(p, a)  # type: ignore[attr-defined]
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

    def transition(self, tr: ast.Transition | None) -> None:
        ids = self._state_ids
        var = self._state_var
        if tr is None:
            self.w.line(f"{var} = -2")
            return
        if isinstance(tr, ast.DirectTransition):
            self.w.line(f"{var} = {ids[tr.state]}")
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
            self.w.line(f"{'if' if first else 'elif'} {cond}:")
            first = False
            with self.w.indent():
                self.w.line(f"{var} = {ids[case.state]}")
        self.w.line("else:" if not first else "if True:")
        with self.w.indent():
            self.w.line(f"raise _ParserError({self.checked.error_code('NoMatch')})")

    def keyset_condition(self, keyset: ast.Expression, names: list[str],
                         keys: list[ast.Expression]) -> str:
        if isinstance(keyset, ast.DefaultExpr | ast.DontCareExpr):
            return "True"
        if isinstance(keyset, ast.PathExpr) and isinstance(keyset.decl, ast.ValueSetDecl) \
                and len(names) > 1:
            # A tuple-typed value set matches the key fields concatenated in order.
            concat = names[0]
            for n, k in zip(names[1:], keys[1:], strict=True):
                concat = f"(({concat}) << {_fixed_width(strip(k.type))} | {n})"
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
        value = evaluate(e)
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
        dest = self.extract_destination(target)
        if len(args) == 2:
            length = self.expr(args[1])  # type: ignore[attr-defined]
            fn = self.extractor(t, varbit=True)
            self.w.line(f"pos = {fn}(buf, pos, end, {dest}, {length})")
        else:
            fn = self.extractor(t, varbit=False)
            self.w.line(f"pos = {fn}(buf, pos, end, {dest})")
        self.after_extract(target)

    def extract_destination(self, target: ast.Expression) -> str:
        """Code of the header object extracted into; `stack.next` checks the bound."""
        if isinstance(target, ast.MemberExpr) and isinstance(strip(target.base.type), StackT) \
                and target.member == "next":
            stack = self.expr(target.base)  # type: ignore[attr-defined]
            size = strip(target.base.type).size
            self.w.line(f"if {stack}.next_index >= {size}:")
            with self.w.indent():
                self.w.line(f"raise _ParserError({self.checked.error_code('StackOutOfBounds')})")
            return f"{stack}.elems[{stack}.next_index]"
        if self.is_union_member(target):  # type: ignore[attr-defined]
            union = self.expr(target.base)  # type: ignore[attr-defined]
            for f, ft in strip(target.base.type).fields:
                if f != target.member:
                    self.w.line(f"{union}.{py_name(f)}._set({self.values.default_expr(ft)})")
        return self.expr(target)  # type: ignore[attr-defined]

    def after_extract(self, target: ast.Expression) -> None:
        if isinstance(target, ast.MemberExpr) and isinstance(strip(target.base.type), StackT) \
                and target.member == "next":
            self.w.line(f"{self.expr(target.base)}.next_index += 1")  # type: ignore

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
        self.helpers.append(_extract_source(fn, t, varbit, self.checked))
        return fn

    def lookahead_code(self, t: Type) -> str:
        t = strip(t)
        width = _fixed_width(t)
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
            self.control_body(self.block, decl)  # type: ignore[attr-defined]

    def emit_code(self, e: ast.Expression) -> None:
        """packet_out.emit: valid headers in order, recursing into structs/stacks/unions."""
        self._emit_value(self.expr(e), strip(e.type))  # type: ignore[attr-defined]

    def _emit_value(self, code: str, t: Type) -> None:
        if isinstance(t, HeaderT):
            fn = self.emitter(t)
            self.w.line(f"if {code}._valid:")
            with self.w.indent():
                self.w.line(f"out.append({fn}({code}))")
        elif isinstance(t, StackT):
            for i in range(t.size):
                self._emit_value(f"{code}.elems[{i}]", strip(t.elem))
        elif isinstance(t, StructT | HeaderUnionT):
            for f, ft in t.fields:
                self._emit_value(f"{code}.{py_name(f)}", strip(ft))
        else:
            raise P4TypeError(f"cannot emit a value of type {t}", None)

    def emitter(self, t: HeaderT) -> str:
        cache = self.__dict__.setdefault("_emitters", {})
        key = (id(t.decl), t.name)
        if key in cache:
            return cache[key]
        fn = self.module.fresh(f"emit_{t.name}")
        cache[key] = fn
        self.helpers.append(_emit_source(fn, t))
        return fn


def _is_packet_in(p: ast.Parameter) -> bool:
    return getattr(p.type_ref.resolved, "name", "") == "packet_in"


def _is_packet_out(p: ast.Parameter) -> bool:
    return getattr(p.type_ref.resolved, "name", "") == "packet_out"


def _int(v: Any) -> int:
    return int(v)


def _fixed_width(t: Type) -> int:
    width = width_of(t)
    if width is None:
        raise P4TypeError(f"type {t} has no fixed width", None)
    return width


def _leaf_fields(t: HeaderT) -> list[tuple[str, Type, int]]:
    """(attribute path, type, width) of a header's fields; nested structs flattened."""
    out: list[tuple[str, Type, int]] = []

    def walk(prefix: str, ft: Type) -> None:
        ft = strip(ft)
        if isinstance(ft, StructT):
            for f, sub in ft.fields:
                walk(f"{prefix}.{py_name(f)}", sub)
        elif isinstance(ft, VarbitT):
            out.append((prefix, ft, ft.max_width))
        else:
            out.append((prefix, ft, _fixed_width(ft)))

    for f, ft in t.fields:
        walk(py_name(f), ft)
    return out


def _field_from_bits(code: str, ft: Type, width: int) -> str:
    if isinstance(ft, BoolT):
        return f"({code} != 0)"
    if isinstance(ft, BitT) and ft.signed:
        half = 1 << (width - 1)
        return f"((({code}) + {half}) & {mask(width)}) - {half}"
    return code


def _extract_source(fn: str, t: HeaderT, varbit: bool, checked: Any) -> str:
    """Generated extractor: read the header's bits at `pos` and set its fields."""
    too_short = checked.error_code("PacketTooShort")
    fields = _leaf_fields(t)
    fixed = sum(w for _, ft, w in fields if not isinstance(ft, VarbitT))
    lines = []
    if varbit:
        lines.append(f"def {fn}(buf, pos, end, h, vlen):")
        vmax = next(w for _, ft, w in fields if isinstance(ft, VarbitT))
        header_err = checked.error_code("HeaderTooShort") \
            if "HeaderTooShort" in checked.error_members else too_short
        lines += [f"    if vlen > {vmax}:", f"        raise _ParserError({header_err})"]
        if "ParserInvalidArgument" in checked.error_members:
            # BMv2 extracts whole bytes only: a varbit length that is not a multiple of 8
            # is ParserInvalidArgument and nothing is consumed.
            bad_arg = checked.error_code("ParserInvalidArgument")
            lines += ["    if vlen & 7:", f"        raise _ParserError({bad_arg})"]
        lines += [f"    total = {fixed} + vlen"]
    else:
        lines.append(f"def {fn}(buf, pos, end, h):")
        lines.append(f"    total = {fixed}")
    lines += [
        "    stop = pos + total",
        "    if stop > end:",
        f"        raise _ParserError({too_short})",
        "    if pos & 7 == 0 and total & 7 == 0:",
        "        v = int.from_bytes(buf[pos >> 3:stop >> 3], 'big')",
        "    else:",
        "        first = pos >> 3",
        "        last = (stop + 7) >> 3",
        "        v = (int.from_bytes(buf[first:last], 'big') >> ((last << 3) - stop))"
        " & ((1 << total) - 1)",
    ]
    # Fields from the most significant end: the shift of a field is the width of what
    # follows it; with a varbit the fields after it shift by vlen too.
    shift_static = fixed
    after_varbit = False
    for path, ft, w in fields:
        if isinstance(ft, VarbitT):
            lines.append(f"    h._w_{path} = vlen")
            tail = shift_static
            lines.append(f"    h.{path} = (v >> {tail}) & ((1 << vlen) - 1)")
            after_varbit = True
            continue
        shift_static -= w
        shift = f"{shift_static}" if not (varbit and not after_varbit) else \
            f"({shift_static} + vlen)"
        raw = f"((v >> {shift}) & {mask(w)})"
        lines.append(f"    h.{path} = {_field_from_bits(raw, ft, w)}")
    lines += ["    h._valid = True", "    return stop"]
    return "\n".join(lines)


def _emit_source(fn: str, t: HeaderT) -> str:
    """Generated emitter: the header's bytes (fields most significant first)."""
    fields = _leaf_fields(t)
    has_varbit = any(isinstance(ft, VarbitT) for _, ft, _ in fields)
    lines = [f"def {fn}(h):", "    v = 0", "    n = 0"]
    for path, ft, w in fields:
        if isinstance(ft, VarbitT):
            lines += [f"    vw = h._w_{path}",
                      f"    v = (v << vw) | (h.{path} & ((1 << vw) - 1))", "    n += vw"]
            continue
        value = f"(1 if h.{path} else 0)" if isinstance(ft, BoolT) else f"(h.{path} & {mask(w)})"
        lines += [f"    v = (v << {w}) | {value}", f"    n += {w}"]
    if has_varbit:
        lines.append("    return v.to_bytes((n + 7) >> 3, 'big')")
    else:
        total = sum(w for _, _, w in fields)
        if total % 8:
            lines.append(f"    return (v << {8 - total % 8}).to_bytes({(total + 7) // 8}, 'big')")
        else:
            lines.append(f"    return v.to_bytes({total // 8}, 'big')")
    return "\n".join(lines)
