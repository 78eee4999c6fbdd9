"""Calls of core.p4 and v1model.p4 externs to Python source.

The semantics are BMv2 simple_switch's (behavioral-model docs/simple_switch.md): e.g.
`mark_to_drop` sets egress_spec to the drop port 511 and clears mcast_grp; register
reads out of range give 0 and writes out of range do nothing; direct counters count on
every hit of their table, so `direct_counter.count()` itself has nothing to do.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import qualify
from ..frontend.types import (
    BitT,
    BoolT,
    EnumT,
    HeaderT,
    StructLike,
    StructT,
    TupleT,
    Type,
    VarbitT,
)
from .exprgen import strip
from .values import py_name


class ExternGenMixin:
    env: dict[int, str]
    module: Any
    w: Any
    values: Any
    checked: Any

    def extern_call(self, call: ast.MethodCallExpr) -> str:
        """Emit an extern call; returns value code, or '' when emitted as statements."""
        target = call.target
        name = target.decl.name
        args = target.args
        if target.kind == "extern_method":
            recv_t = strip(target.receiver.type)
            ext = recv_t.name
            handler = getattr(self, f"_x_{ext}_{name}", None)
            if handler is None:
                raise P4TypeError(f"extern method {ext}.{name} is not supported by this target",
                                  call.loc)
            return handler(call, args)
        handler = getattr(self, f"_f_{name}", None)
        if handler is None:
            raise P4TypeError(f"extern function {name} is not supported by this target",
                              call.loc)
        return handler(call, args)

    # -- helpers --------------------------------------------------------------------
    def _instance(self, call: ast.MethodCallExpr, kind: str) -> str:
        recv = call.target.receiver
        decl = recv.decl if isinstance(recv, ast.PathExpr) else None
        if not isinstance(decl, ast.InstantiationDecl):
            raise P4TypeError("extern instance must be named directly", call.loc)
        top = any(decl is d for d in self.checked.program.decls)
        name = qualify("" if top else self.block.path, decl)  # type: ignore[attr-defined]
        return self.module.bind(kind, name)

    def state_alias(self, obj: str, attr: str) -> str:
        """A module-level name for ``obj.attr``, an attribute of a bound state object
        that is only ever changed in place (a register's cells, a table's lookup): set
        once when the module is bound, so a packet pays no attribute lookup for it."""
        alias = f"{obj}__{attr}"
        line = f"{alias} = {obj}.{attr}"
        if line not in self.helpers:  # type: ignore[attr-defined]
            self.helpers.append(line)  # type: ignore[attr-defined]
        return alias

    def register_read(self, reg: str, index: str, unsigned: bool = False) -> str:
        """An expression reading register ``reg`` at ``index`` in place, with
        ``RegisterArray.read``'s rule: 0 out of range. An ``unsigned`` index (of a
        ``bit<W>`` type, never negative) is only checked against the size."""
        cells, size = self.state_alias(reg, "values"), self.state_alias(reg, "size")
        i = self.module.fresh("ri")
        low = "" if unsigned else "0 <= "
        return f"({cells}[{i}] if {low}({i} := {index}) < {size} else 0)"

    def register_write(self, reg: str, index: str, value: str, unsigned: bool = False
                       ) -> None:
        """Statements writing ``value`` into register ``reg`` at ``index`` in place, with
        ``RegisterArray.write``'s rules: truncated to width, ignored out of range (both
        operands evaluated first, as in the call; ``unsigned`` as for reads)."""
        cells, size = self.state_alias(reg, "values"), self.state_alias(reg, "size")
        i, v = self.module.fresh("ri"), self.module.fresh("rv")
        self.w.line(f"{i} = {index}")
        self.w.line(f"{v} = {value}")
        self.w.line(f"if {'' if unsigned else '0 <= '}{i} < {size}:")
        with self.w.indent():
            self.w.line(f"{cells}[{i}] = {v} & {self.state_alias(reg, 'mask')}")

    def counter_count(self, ctr: str, index: str, nbytes: str, unsigned: bool = False
                      ) -> None:
        """Statements counting one packet of ``nbytes`` on counter ``ctr`` at ``index``
        in place, with ``CounterArray.count``'s rule: ignored out of range
        (``unsigned`` as for register reads)."""
        size = self.state_alias(ctr, "size")
        i, n = self.module.fresh("ci"), self.module.fresh("cn")
        self.w.line(f"{i} = {index}")
        self.w.line(f"{n} = {nbytes}")
        self.w.line(f"if {'' if unsigned else '0 <= '}{i} < {size}:")
        with self.w.indent():
            self.w.line(f"{self.state_alias(ctr, 'packet_counts')}[{i}] += 1")
            self.w.line(f"{self.state_alias(ctr, 'byte_counts')}[{i}] += {n}")

    def _const_enum(self, e: ast.Expression, what: str) -> str:
        try:
            v = evaluate(e)
        except NotConstant:
            raise P4TypeError(f"{what} must be a compile-time constant", e.loc) from None
        if isinstance(v, tuple) and v[0] == "enum":
            return v[2]
        raise P4TypeError(f"{what} must be an enum member", e.loc)

    def field_list(self, e: ast.Expression) -> str:
        """Python code of a `((value, width), ...)` tuple for hash/checksum data; invalid
        headers contribute nothing (BMv2 skips them)."""
        parts = self._field_parts(e)
        return "(" + "".join(p + ", " for p in parts) + ")" if parts else "()"

    def _field_parts(self, e: ast.Expression) -> list[str]:
        t = strip(e.type)
        if isinstance(e, ast.ListExpr):
            out = []
            for x in e.elems:
                out.extend(self._field_parts(x))
            return out
        code = self.expr(e)  # type: ignore[attr-defined]
        if isinstance(t, VarbitT) and isinstance(e, ast.MemberExpr):
            # A varbit field carries its current width beside it in the header object.
            base = self.expr(e.base)  # type: ignore[attr-defined]
            return [f"({code}, {base}._w_{py_name(e.member)})"]
        return self._value_parts(code, t)

    def _value_parts(self, code: str, t: Type) -> list[str]:
        t = strip(t)
        if isinstance(t, HeaderT):
            inner = []
            for f, ft in t.fields:
                inner.extend(self._leaf(f"{code}.{py_name(f)}", ft, f"{code}._w_{py_name(f)}"))
            tup = "(" + "".join(p + ", " for p in inner) + ")"
            return [f"*({tup} if {code}._valid else ())"]
        if isinstance(t, StructLike):
            out = []
            for f, ft in t.fields:
                out.extend(self._value_parts(f"{code}.{py_name(f)}", ft))
            return out
        if isinstance(t, TupleT):
            out = []
            for i, et in enumerate(t.elems):
                out.extend(self._value_parts(f"{code}[{i}]", et))
            return out
        return self._leaf(code, t, None)

    def _leaf(self, code: str, t: Type, varbit_width: str | None) -> list[str]:
        t = strip(t)
        if isinstance(t, StructT):
            out = []
            for f, ft in t.fields:
                out.extend(self._leaf(f"{code}.{py_name(f)}", ft, None))
            return out
        if isinstance(t, VarbitT):
            return [f"({code}, {varbit_width})"]
        if isinstance(t, BoolT):
            return [f"(1 if {code} else 0, 1)"]
        if isinstance(t, BitT):
            value = f"{code} & {(1 << t.width) - 1}" if t.signed else code
            return [f"({value}, {t.width})"]
        if isinstance(t, EnumT) and t.underlying is not None:
            return [f"({code}, {t.underlying.width})"]
        raise P4TypeError(f"a field of type {t} cannot be hashed or checksummed", None)

    def digest_value(self, e: ast.Expression) -> str:
        """A digest's data as a tuple of its (flattened) field values, in order."""
        t = strip(e.type)
        code = self.expr(e)  # type: ignore[attr-defined]
        if isinstance(t, StructLike):
            from .values import flatten_fields

            vals = [f"{code}.{path}" for path, _ in flatten_fields(t)]
            return "(" + "".join(v + ", " for v in vals) + ")"
        return f"({code},)"

    def _store(self, target: ast.Expression | None, value: str) -> str:
        if target is not None and not isinstance(target, ast.DontCareExpr):
            self.store(target, value)  # type: ignore[attr-defined]
        else:
            self.w.line(value)
        return ""

    # -- core.p4 ----------------------------------------------------------------------
    def _x_packet_in_lookahead(self, call: ast.MethodCallExpr, args: list) -> str:
        t = call.type
        return self.lookahead_code(t)  # type: ignore[attr-defined]

    def _x_packet_in_length(self, call: ast.MethodCallExpr, args: list) -> str:
        return "(end >> 3)"

    def _x_packet_in_extract(self, call: ast.MethodCallExpr, args: list) -> str:
        self.packet_in_call(call)  # type: ignore[attr-defined]
        return ""

    _x_packet_in_advance = _x_packet_in_extract

    def _x_packet_out_emit(self, call: ast.MethodCallExpr, args: list) -> str:
        self.emit_code(args[0])  # type: ignore[attr-defined]
        return ""

    def _f_verify(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"if not {self.expr(args[0])}:")  # type: ignore[attr-defined]
        with self.w.indent():
            self.w.line(f"raise _ParserError({self.expr(args[1])})")  # type: ignore
        return ""

    def _f_static_assert(self, call: ast.MethodCallExpr, args: list) -> str:
        return "True"

    # -- v1model functions ------------------------------------------------------------
    def _sm(self, args: list) -> str:
        if args and args[0] is not None:
            return self.expr(args[0])  # type: ignore[attr-defined]
        return "pk.sm"

    def _f_mark_to_drop(self, call: ast.MethodCallExpr, args: list) -> str:
        sm = self._sm(args)
        self.w.line(f"{sm}.egress_spec = 511")
        self.w.line(f"{sm}.mcast_grp = 0")
        return ""

    def _f_random(self, call: ast.MethodCallExpr, args: list) -> str:
        result, lo, hi = args
        return self._store(result, f"pk.random({self.expr(lo)}, {self.expr(hi)})")  # type: ignore

    def _f_digest(self, call: ast.MethodCallExpr, args: list) -> str:
        data = args[1]
        name = self.digest_name(strip(data.type))
        self.w.line(f"pk.digest({name!r}, {self.digest_value(data)})")
        return ""

    def digest_name(self, t: Type) -> str:
        return getattr(t, "name", "digest")

    def _f_hash(self, call: ast.MethodCallExpr, args: list) -> str:
        result, algo, base, data, max_ = args
        algo_name = self._const_enum(algo, "hash algorithm")
        width = strip(result.type).width if isinstance(strip(result.type), BitT) else 32
        value = (f"_hash({algo_name!r}, {self.field_list(data)}, {self.expr(base)}, "  # type: ignore
                 f"{self.expr(max_)}, {width}, pk)")  # type: ignore[attr-defined]
        return self._store(result, value)

    def _checksum(self, args: list, payload: bool, verify: bool) -> str:
        cond, data, checksum, algo = args
        algo_name = self._const_enum(algo, "checksum algorithm")
        ct = strip(checksum.type)
        width = ct.width if isinstance(ct, BitT) else 16
        pay = "pk.payload" if payload else "b''"
        value = f"_checksum({algo_name!r}, {self.field_list(data)}, {pay}, {width}, pk)"
        self.w.line(f"if {self.expr(cond)}:")  # type: ignore[attr-defined]
        with self.w.indent():
            if verify:
                self.w.line(f"if {value} != {self.expr(checksum)}:")  # type: ignore
                with self.w.indent():
                    self.w.line("pk.sm.checksum_error = 1")
            else:
                self.store(checksum, value)  # type: ignore[attr-defined]
        return ""

    def _f_verify_checksum(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._checksum(args, payload=False, verify=True)

    def _f_update_checksum(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._checksum(args, payload=False, verify=False)

    def _f_verify_checksum_with_payload(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._checksum(args, payload=True, verify=True)

    def _f_update_checksum_with_payload(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._checksum(args, payload=True, verify=False)

    def _field_list_id(self, arg: ast.Expression | None) -> str:
        if arg is None:
            return "0"
        return str(evaluate(arg))

    def _f_resubmit(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line("pk.resubmit = 0")
        return ""

    def _f_resubmit_preserving_field_list(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.resubmit = {self._field_list_id(args[0])}")
        return ""

    def _f_recirculate(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line("pk.recirculate = 0")
        return ""

    def _f_recirculate_preserving_field_list(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.recirculate = {self._field_list_id(args[0])}")
        return ""

    def _clone_type(self, e: ast.Expression) -> str:
        return "1" if self._const_enum(e, "clone type") == "E2E" else "0"

    def _f_clone(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.clone({self._clone_type(args[0])}, {self.expr(args[1])}, None)")  # type: ignore
        return ""

    def _f_clone3(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._f_clone(call, args)

    def _f_clone_preserving_field_list(self, call: ast.MethodCallExpr, args: list) -> str:
        kind, session, fl = args
        self.w.line(f"pk.clone({self._clone_type(kind)}, {self.expr(session)}, "  # type: ignore
                    f"{self._field_list_id(fl)})")
        return ""

    def _f_truncate(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.set_truncate({self.expr(args[0])})")  # type: ignore[attr-defined]
        return ""

    def _f_assert(self, call: ast.MethodCallExpr, args: list) -> str:
        where = str(call.loc) if call.loc else "assert"
        self.w.line(f"if not {self.expr(args[0])}:")  # type: ignore[attr-defined]
        with self.w.indent():
            self.w.line(f"raise _AssertionFailed({where!r})")
        return ""

    _f_assume = _f_assert

    def _f_log_msg(self, call: ast.MethodCallExpr, args: list) -> str:
        fmt = self.expr(args[0])  # type: ignore[attr-defined]
        data = self.digest_value(args[1]) if len(args) > 1 and args[1] is not None else "()"
        self.w.line(f"pk.log({fmt}, {data})")
        return ""

    # -- v1model extern objects -------------------------------------------------------
    def _x_register_read(self, call: ast.MethodCallExpr, args: list) -> str:
        reg = self._instance(call, "register")
        index = args[0] if len(args) == 1 else args[1]
        read = self.register_read(reg, self.expr(index),  # type: ignore[attr-defined]
                                  unsigned_index(index))
        return read if len(args) == 1 else self._store(args[0], read)

    def _x_register_write(self, call: ast.MethodCallExpr, args: list) -> str:
        reg = self._instance(call, "register")
        value_t = strip(args[1].type)
        value = self.expr(args[1])  # type: ignore[attr-defined]
        if isinstance(value_t, BitT) and value_t.signed:
            value = f"{value} & {(1 << value_t.width) - 1}"
        self.register_write(reg, self.expr(args[0]), value,  # type: ignore[attr-defined]
                            unsigned_index(args[0]))
        return ""

    def _x_counter_count(self, call: ast.MethodCallExpr, args: list) -> str:
        ctr = self._instance(call, "counter")
        self.counter_count(ctr, self.expr(args[0]), "pk.sm.packet_length",  # type: ignore
                           unsigned_index(args[0]))
        return ""

    def _x_direct_counter_count(self, call: ast.MethodCallExpr, args: list) -> str:
        return ""

    def _x_meter_execute_meter(self, call: ast.MethodCallExpr, args: list) -> str:
        mtr = self._instance(call, "meter")
        index, result = args
        value = f"pk.execute_meter({mtr}, {self.expr(index)})"  # type: ignore[attr-defined]
        return self._store(result, value)

    def _x_direct_meter_read(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._store(args[0], "pk.meter_color")

    def _x_Checksum16_get(self, call: ast.MethodCallExpr, args: list) -> str:
        return f"_checksum('csum16', {self.field_list(args[0])}, b'', 16, pk)"


def unsigned_index(e: ast.Expression) -> bool:
    """Whether an extern's index argument is of an unsigned ``bit<W>`` type: the
    generated code keeps such values in [0, 2**W), so only the upper bound needs a
    check."""
    t = strip(e.type)
    return isinstance(t, BitT) and not t.signed
