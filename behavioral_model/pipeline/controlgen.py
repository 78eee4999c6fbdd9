"""Controls, actions, tables and statements to Python source.

Actions and nested controls are inlined at their call sites (as p4c's front end does), so
a whole control becomes one Python function whose P4 locals are Python locals. Parameters
of an inlined callee are bound by name: out/inout arguments to the caller's l-value code
(the callee writes through), in arguments to fresh locals holding their value.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..frontend import ast
from ..frontend.consteval import evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import (
    BlockInstance,
    qualify,
    table_property_instance,
)
from ..frontend.types import ActionRunT, BitT, BoolT, HeaderUnionT, StackT, StructLike
from .aliasing import by_reference, direct_bindings
from .exprgen import strip
from .values import py_name


def _supports_timeout(decl: ast.TableDecl) -> bool:
    """``support_timeout = true`` (v1model; the P4Info generator rejects other values) or
    PNA's ``pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL``."""
    prop = decl.property("support_timeout")
    return (prop is not None and isinstance(prop.value, ast.BoolLiteral) and prop.value.value
            or decl.pna_notifies_idle())


def _has_return(node: Any) -> bool:
    if isinstance(node, ast.ReturnStatement):
        return True
    if isinstance(node, ast.BlockStatement):
        return any(_has_return(s) for s in node.stmts)
    if isinstance(node, ast.ForStatement | ast.ForInStatement):
        return _has_return(node.body)
    if isinstance(node, ast.IfStatement):
        return _has_return(node.then) or (node.else_ is not None and _has_return(node.else_))
    if isinstance(node, ast.SwitchStatement):
        return any(c.body is not None and _has_return(c.body) for c in node.cases)
    return False


class ControlGenMixin:
    env: dict[int, str]
    module: Any
    w: Any
    values: Any
    checked: Any
    block: BlockInstance
    top_actions: set[int]
    top_functions: set[int]
    return_vars: list[str]
    loops: list[tuple[str, str]]  # (break flag, return flag) of the enclosing loops

    # -- control functions ------------------------------------------------------------
    def gen_control(self, inst: BlockInstance, pyname: str) -> None:
        """`def pyname(<params>, pk):` running the control's apply block."""
        decl: ast.ControlDecl = inst.decl
        names = [self.module.fresh(p.name) for p in decl.params]
        self.w.line(f"def {pyname}({', '.join(names)}, pk):")
        with self.w.indent():
            for p, n in zip(decl.params, names, strict=True):
                self.env[id(p)] = n
            self.w.line("try:")
            with self.w.indent():
                self.control_body(inst, decl)
            self.w.line("except _Exit:")
            with self.w.indent():
                self.w.line("pass")

    def control_body(self, inst: BlockInstance, decl: ast.ControlDecl) -> None:
        saved, saved_loops = self.block, self.loops
        self.block, self.loops = inst, []
        try:
            for local in decl.locals:
                if isinstance(local, ast.VariableDecl):
                    self.declare_variable(local)
            if _has_return(decl.body):
                self.w.line("for _ in _ONCE:")
                with self.w.indent():
                    self.block_stmt(decl.body)
            else:
                self.block_stmt(decl.body)
        finally:
            self.block, self.loops = saved, saved_loops

    def declare_variable(self, decl: ast.VariableDecl) -> None:
        name = self.module.fresh(decl.name)
        t = decl.type_ref.resolved
        if decl.init is not None:
            value = self.copy_if_composite(self.expr(decl.init), decl.init)
        else:
            value = self.values.default_expr(t)
        self.w.line(f"{name} = {value}")
        self.env[id(decl)] = name

    # -- statements -------------------------------------------------------------------
    def block_stmt(self, block: ast.BlockStatement) -> None:
        if not block.stmts:
            self.w.line("pass")
        stmts = block.stmts
        i = 0
        while i < len(stmts):
            if i + 1 < len(stmts) and self._move(stmts[i], stmts[i + 1]):
                i += 2
                continue
            self.statement(stmts[i])
            i += 1

    def _move(self, s: Any, then: Any) -> bool:
        """``a = b; b.setInvalid();`` with ``a`` and ``b`` headers of structs (a
        decapsulation) as two stores: ``a`` takes ``b``'s header itself and ``b`` the
        shared zero (values.py), instead of a copy of each field and a clear of each.
        Only where nothing claims either (see ``builtin_statement``); False, and nothing
        written, for any other pair of statements."""
        if not (isinstance(s, ast.AssignmentStatement) and isinstance(then, ast.MethodCallStatement)
                and _plain_field(s.lhs) and _plain_field(s.rhs)):
            return False
        target = then.call.target
        zero = self.shared_zero(s.lhs)
        if target is None or target.kind != "builtin" or target.name != "setInvalid" \
                or zero is None or self.shared_zero(s.rhs) != zero:
            return False
        lhs, rhs = self.expr(s.lhs), self.expr(s.rhs)
        if lhs == rhs or self.expr(target.receiver) != rhs \
                or lhs in self.w.owned[-1] or rhs in self.w.owned[-1]:
            return False
        self.w.line(f"{lhs} = {rhs}")
        self.w.line(f"{rhs} = {zero}")
        return True

    def statement(self, s: Any) -> None:
        if isinstance(s, ast.BlockStatement):
            self.block_stmt(s)
        elif isinstance(s, ast.AssignmentStatement):
            self.assign(s.lhs, s.rhs)
        elif isinstance(s, ast.MethodCallStatement):
            self.call_statement(s.call)
        elif isinstance(s, ast.IfStatement):
            cond = self.expr(s.cond)
            self.w.line(f"if {cond}:")
            with self.w.indent():
                self.statement(s.then)
            if s.else_ is not None:
                self.w.line("else:")
                with self.w.indent():
                    self.statement(s.else_)
        elif isinstance(s, ast.SwitchStatement):
            self.switch(s)
        elif isinstance(s, ast.ExitStatement):
            self.w.line("raise _Exit()")
        elif isinstance(s, ast.ReturnStatement):
            if s.value is not None:
                self.w.line(f"{self.return_vars[-1]} = {self.expr(s.value)}")
            if self.loops:
                # Leave every loop of this callee: mark the innermost, whose exit code
                # passes the mark outwards (see `loop`).
                brk, ret = self.loops[-1]
                self.w.line(f"{brk} = {ret} = True")
            self.w.line("break")
        elif isinstance(s, ast.ForStatement | ast.ForInStatement):
            self.loop(s)
        elif isinstance(s, ast.BreakStatement):
            self.w.line(f"{self.loops[-1][0]} = True")
            self.w.line("break")
        elif isinstance(s, ast.ContinueStatement):
            self.w.line("break")
        elif isinstance(s, ast.EmptyStatement):
            self.w.line("pass")
        elif isinstance(s, ast.VariableDecl):
            self.declare_variable(s)
        elif isinstance(s, ast.ConstDecl):
            pass  # constants are folded where they are used
        else:
            raise P4TypeError(f"unsupported statement {type(s).__name__}", s.loc)

    def loop(self, s: ast.ForStatement | ast.ForInStatement) -> None:
        """A P4 loop as `while True:` around a one-pass `for` holding the body, so that
        `continue` (leave the one-pass loop) still runs the updates; `break` and `return`
        set flags the while loop checks (spec 1.2.5, 11.7)."""
        brk, ret = self.module.fresh("brk"), self.module.fresh("ret")
        self.w.line(f"{brk} = {ret} = False")
        if isinstance(s, ast.ForInStatement):
            values = self.module.fresh("it")
            it = s.iterable
            if isinstance(it, ast.RangeExpr):
                low, high = self.expr(it.low), self.expr(it.high)
                self.w.line(f"{values} = iter(range({low}, {high} + 1))")
            elif isinstance(strip(it.type), StackT):
                # Each element, valid or not, as a copy: the loop variable is a local.
                self.w.line(f"{values} = iter([e._copy() for e in {self.expr(it)}.elems])")
            else:
                self.w.line(f"{values} = iter({self.expr(it)})")
            var = self.module.fresh(s.var.name)
            self.env[id(s.var)] = var
            head, updates = f"{var} = next({values}, None)", []
            cond = f"{var} is not None"
        else:
            for item in s.init:
                self.statement(item)
            head, updates, cond = None, s.updates, None
        self.w.line("while True:")
        with self.w.indent():
            if head is not None:
                self.w.line(head)
            if cond is None and s.cond is not None:
                pre, cond = self._captured(s.cond)
                self.module.lines.extend(pre)
            if cond is not None:
                self.w.line(f"if not ({cond}):")
                self.w.line("    break")
            self.loops.append((brk, ret))
            self.w.line("for _ in _ONCE:")
            with self.w.indent():
                self.statement(s.body)
            self.loops.pop()
            self.w.line(f"if {brk}:")
            self.w.line("    break")
            for item in updates:
                self.statement(item)
        if _has_return(s.body):
            self.w.line(f"if {ret}:")
            with self.w.indent():
                if self.loops:
                    outer_brk, outer_ret = self.loops[-1]
                    self.w.line(f"{outer_brk} = {outer_ret} = True")
                self.w.line("break")

    def assign(self, lhs: ast.Expression, rhs: ast.Expression) -> None:
        # `a[i] op= b` shares the l-value node with its read: evaluate `i` once.
        spilled = []
        if isinstance(rhs, ast.BinaryExpr) and rhs.left is lhs:
            spilled = self.spill_indexes(lhs)
        pre, value = self._captured(rhs)
        if pre and not spilled:
            # Spec 11.1: the l-value is evaluated before the right side, whose inlined
            # calls may change what a run-time stack index reads.
            spilled = self.spill_indexes(lhs)
        self.module.lines.extend(pre)
        if not isinstance(strip(lhs.type), StructLike | StackT) or self.is_union_member(lhs):
            value = self.copy_if_composite(value, rhs)
        # else store() copies field by field into the target (`_set`): a copy made
        # first would be a second one. Value semantics hold: no value of a type can
        # be part of another value of the same type, so the two never overlap.
        self.store(lhs, value)
        for key in spilled:
            del self.overrides[key]

    def store(self, lhs: ast.Expression, value: str) -> None:
        """Write `value` (Python code) into the l-value `lhs`."""
        if isinstance(lhs, ast.SliceExpr):
            if lhs.hi is None:
                raise P4TypeError("bm does not support writing to a slice with a run-time "
                                  "index (x[i +: w] = ...) yet", lhs.loc)
            hi, lo = evaluate(lhs.hi), evaluate(lhs.lo)
            width = hi - lo + 1
            field_mask = ((1 << width) - 1) << lo
            target = self.expr(lhs.base)
            base_t = strip(lhs.base.type)
            full = (1 << base_t.width) - 1 if isinstance(base_t, BitT) else -1
            code = f"({target} & {full & ~field_mask}) | ((({value}) << {lo}) & {field_mask})"
            if isinstance(base_t, BitT) and base_t.signed:
                code = self.wrap_code(code, base_t)
            self.store(lhs.base, code)
            return
        if isinstance(lhs, ast.IndexExpr) and not isinstance(lhs.index, ast.IntLiteral):
            idx = self.const_value(lhs.index)
            if idx is None:
                stack_t = strip(lhs.base.type)
                size = stack_t.size if isinstance(stack_t, StackT) else 0
                tmp = self.module.fresh("i")
                self.w.line(f"{tmp} = {self.expr(lhs.index)}")
                self.own(lhs.base)
                self.w.line(f"if 0 <= {tmp} < {size}:")
                with self.w.indent():
                    self.w.line(f"{self.expr(lhs.base)}.elems[{tmp}]._set({value})")
                self.w.line("else:")
                with self.w.indent():
                    self.w.line("pk.stack_error()")
                return
        t = strip(lhs.type)
        zero = self.shared_zero(lhs)
        if zero is not None and self.w.claim(target := self.expr(lhs)):
            # a whole header into a struct's shared zero one: a copy of the value is
            # the struct's own header at once
            self.own(lhs.base)
            self.w.line(f"if {target} is {zero}: {target} = {value}._copy()")
            self.w.line(f"else: {target}._set({value})")
            return
        self.own(lhs)
        target = self.expr(lhs)
        if self.is_union_member(lhs):
            # Spec 8.20: a member made valid by the assignment invalidates the others
            # (BMv2: a header union has at most one valid member).
            tmp = self.module.fresh("hu")
            self.w.line(f"{tmp} = {value}")
            self.w.line(f"{target}._set({tmp})")
            self.w.line(f"if {tmp}._valid:")
            with self.w.indent():
                union = self.expr(lhs.base)
                for f, _ in strip(lhs.base.type).fields:
                    if f != lhs.member:
                        self.w.line(f"{union}.{py_name(f)}._clear()")
        elif isinstance(t, StructLike | StackT):
            self.w.line(f"{target}._set({value})")
        else:
            self.w.line(f"{target} = {value}")

    def switch(self, s: ast.SwitchStatement) -> None:
        subject = self.module.fresh("sw")
        self.w.line(f"{subject} = {self.expr(s.expr)}")
        is_action = isinstance(s.expr.type, ActionRunT)
        pending: list[str] = []
        first = True
        for case in s.cases:
            for label in case.labels:
                if isinstance(label, ast.DefaultExpr):
                    pending.append("True")
                elif is_action:
                    pending.append(f"{subject} == {self.action_name(label.decl)!r}")
                else:
                    pending.append(f"{subject} == {self.expr(label)}")
            if case.body is None:
                continue
            cond = " or ".join(pending)
            pending = []
            self.w.line(f"{'if' if first else 'elif'} {cond}:")
            first = False
            with self.w.indent():
                self.block_stmt(case.body)

    # -- names ------------------------------------------------------------------------
    def action_name(self, decl: ast.ActionDecl) -> str:
        if id(decl) in self.top_actions:
            return qualify("", decl)
        return qualify(self.block.path, decl)

    def table_name(self, decl: ast.TableDecl) -> str:
        return qualify(self.block.path, decl)

    # -- calls ------------------------------------------------------------------------
    def call_statement(self, call: ast.MethodCallExpr) -> None:
        target = call.target
        kind = target.kind
        if kind == "action":
            self.inline_action(target.decl, [a for a in target.args])
        elif kind == "table_apply":
            self.apply_table(call, need_hit=False)
        elif kind == "apply":
            self.inline_apply(call)
        elif kind == "builtin":
            self.builtin_statement(call)
        elif kind == "function":
            self.function_call(call)
        else:
            code = self.call_expr(call)
            if code:
                self.w.line(code)

    def call_expr(self, call: ast.MethodCallExpr) -> str:
        target = call.target
        if target.kind == "builtin":
            return self.builtin_expr(call)
        if target.kind in ("extern_function", "extern_method"):
            return self.extern_call(call)  # type: ignore[attr-defined]
        if target.kind == "function":
            return self.function_call(call)  # type: ignore[attr-defined]
        if target.kind == "table_apply":
            raise P4TypeError("use t.apply().hit, .miss or .action_run here", call.loc)
        raise P4TypeError(f"a call of kind {target.kind} has no value", call.loc)

    def builtin_expr(self, call: ast.MethodCallExpr) -> str:
        target = call.target
        if target.const_value is not None:
            return str(target.const_value)
        recv = target.receiver
        if target.name == "isValid":
            recv_t = strip(recv.type)
            if isinstance(recv_t, HeaderUnionT):
                code = self.expr(recv)
                members = " or ".join(f"{code}.{py_name(m)}._valid" for m, _ in recv_t.fields)
                return f"({members})"
            return f"{self.expr(recv)}._valid"
        raise P4TypeError(f"{target.name}() has no value", call.loc)

    def builtin_statement(self, call: ast.MethodCallExpr) -> None:
        target = call.target
        recv = target.receiver
        name = target.name
        if name in ("setValid", "setInvalid"):
            code = self.expr(recv)
            if self.is_union_member(recv) and name == "setValid":
                # Spec 8.20: making one member of a header union valid invalidates the others.
                union = self.expr(recv.base)
                for f, _ in strip(recv.base.type).fields:
                    if f != recv.member:
                        self.w.line(f"{union}.{py_name(f)}._clear()")
            zero = self.shared_zero(recv)
            if name == "setValid":
                self.own(recv)
                self.w.line(f"{code}._valid = True")
            elif zero is not None and code in self.w.owned[-1]:
                self.w.line(f"{code}._clear()")  # code above gave it a header of its own
            elif zero is not None:
                # The shared zero is the invalid zero header: one store, not a clear
                # of each field. Only where nothing claims the header (emit.Writer):
                # writes after this line test it again, even those a loop runs after.
                self.w.line(f"{code} = {zero}")
            else:
                self.w.line(f"{code}._clear()")
        elif name in ("push_front", "pop_front"):
            count = evaluate(target.args[0])
            self.own(recv)
            self.w.line(f"_{name}({self.expr(recv)}, {count})")
        elif name == "isValid":
            self.w.line(self.builtin_expr(call))
        else:
            raise P4TypeError(f"unsupported call {name}", call.loc)

    def function_call(self, call: ast.MethodCallExpr) -> str:
        """Inline a function body; its `return v` stores v and leaves the wrapper loop."""
        target = call.target
        decl: ast.FunctionDecl = target.decl
        direct = (direct_bindings(target.params, target.args, decl.body)
                  if id(decl) in self.top_functions else set())
        copies = self.bind_params(target.params, target.args, direct=direct)
        ret = self.module.fresh(f"ret_{decl.name}")
        self.w.line(f"{ret} = {self.values.default_expr(call.type)}")
        self.return_vars.append(ret)
        saved_loops, self.loops = self.loops, []

        def body() -> None:
            self.w.line("for _ in _ONCE:")
            with self.w.indent():
                self.block_stmt(decl.body)

        try:
            self.with_copy_out(copies, body)
        finally:
            self.return_vars.pop()
            self.loops = saved_loops
        return ret

    def inline_action(self, decl: ast.ActionDecl, args: list[Any],
                      arg_codes: list[str] | None = None) -> None:
        """Inline an action body; `args` are argument expressions or `arg_codes` Python code
        already evaluated (table entry data)."""
        copies = []
        for i, p in enumerate(decl.params):
            if arg_codes is not None and i < len(arg_codes):
                name = self.module.fresh(p.name)
                self.w.line(f"{name} = {arg_codes[i]}")
                self.env[id(p)] = name
                continue
            copy = self.bind_param(p, args[i] if i < len(args) else None)
            if copy is not None:
                copies.append(copy)
        self.with_copy_out(copies, lambda: self.body_with_return(decl.body))

    def body_with_return(self, body: ast.BlockStatement) -> None:
        """A callee body; `return` leaves the one-pass loop wrapped around it. Loops of
        the caller are not the callee's: its break/return never reach them."""
        saved, self.loops = self.loops, []
        try:
            if _has_return(body):
                self.w.line("for _ in _ONCE:")
                with self.w.indent():
                    self.block_stmt(body)
            else:
                self.block_stmt(body)
        finally:
            self.loops = saved

    def inline_apply(self, call: ast.MethodCallExpr) -> None:
        target = call.target
        child = self.block.applied_by(call)
        if child is None:
            receiver = getattr(target.receiver, "decl", None)
            if isinstance(receiver, ast.Parameter):
                raise P4TypeError(f"'{receiver.name}' is bound to no instance: this target "
                                  "binds parser/control constructor parameters of nested "
                                  "instances, not of the package's blocks", call.loc)
            raise P4TypeError("cannot resolve the instance being applied", call.loc)
        # The instance's own declaration: through a constructor parameter the call
        # was typed against a parser/control type, whose parameters line up with it.
        decl = child.decl
        if isinstance(decl, ast.ParserDecl):
            self.inline_subparser(decl, call, child)  # type: ignore[attr-defined]
            return
        copies = self.bind_params(decl.params, target.args,
                                  by_reference(decl.params, target.args),
                                  direct_bindings(decl.params, target.args, decl))
        built = child.inst if isinstance(child.inst, ast.InstantiationDecl
                                         | ast.ConstructorCallExpr) else None
        for p, a in zip(decl.constructor_params, built.args if built else [], strict=False):
            if id(p) not in child.bound:  # a parser/control argument is bound by name
                self.env[id(p)] = self.expr(a.value)
        self.with_copy_out(copies, lambda: self.control_body(child, decl))

    # -- tables -----------------------------------------------------------------------
    def apply_table(self, e: ast.Expression, need_hit: bool = True) -> tuple[str, str]:
        """Emit a table application; returns the Python names of (hit, action_run) (no
        hit flag is set without ``need_hit``: an apply statement reads neither)."""
        call = e if isinstance(e, ast.MethodCallExpr) else None
        if call is None or call.target is None or call.target.kind != "table_apply":
            raise P4TypeError("expected t.apply()", e.loc)
        decl: ast.TableDecl = call.target.decl
        tname = self.table_name(decl)
        table = self.module.bind("table", tname)
        keys = []
        selector_fields = []
        for k in decl.keys:
            if k.match_kind == "selector":
                selector_fields.extend(self._leaf(self.expr(k.expr), k.expr.type, None))
                continue
            code = self.expr(k.expr)
            if isinstance(strip(k.expr.type), BoolT):
                code = f"(1 if {code} else 0)"
            keys.append(code)
        entry, hit, call_, action = (self.module.fresh(x) for x in ("e", "hit", "ac", "an"))
        key_tuple = "(" + "".join(k + ", " for k in keys) + ")"
        lookup = self.state_alias(table, "lookup_fn")  # type: ignore[attr-defined]
        self.w.line(f"{entry} = {lookup}({key_tuple})" if keys else f"{entry} = None")
        self.w.line(f"if {entry} is None:")
        with self.w.indent():
            if need_hit:
                self.w.line(f"{hit} = False")
            self.w.line(f"{call_} = {table}.default_action")
        self.w.line("else:")
        with self.w.indent():
            if need_hit:
                self.w.line(f"{hit} = True")
            self.w.line(f"{call_} = {entry}.action")
            if decl.property("counters") is not None or decl.property("meters") is not None:
                self.w.line(f"pk.table_hit({table}, {entry})")
            if _supports_timeout(decl):
                # Idle timeout (P4Runtime spec, "Idle-timeout"): record the hit in the
                # device clock (ns); only these tables pay for it.
                self.w.line(f"{entry}.last_hit_ns = int(pk.now_us * 1000)")
        impl = decl.property("implementation")
        top_ids = {id(d) for d in self.checked.program.decls}
        found = table_property_instance(impl, self.block.path, top_ids) if impl else None
        if found is not None:
            # Members and groups resolve to an action; a group hashes the selector keys.
            prof = self.module.bind("action_profile", found[0])
            fields = "(" + "".join(f + ", " for f in selector_fields) + ")"
            self.w.line(f"if {call_}.__class__ is not _ActionCall:")
            with self.w.indent():
                self.w.line(f"{call_} = {prof}.resolve({call_}, _selector_hash({prof}, "
                            f"{fields}, pk)) or {table}.default_action")
        self.w.line(f"{action} = {call_}.name")
        first = True
        for ref in decl.actions:
            adecl = ref.decl
            aname = self.action_name(adecl)
            self.w.line(f"{'if' if first else 'elif'} {action} == {aname!r}:")
            first = False
            with self.w.indent():
                directional = [p for p in adecl.params if p.direction]
                bound = [a.value for a in ref.args]
                rest = adecl.params[len(directional):]
                if rest:
                    # the action's control-plane data, one per parameter (every
                    # ActionCall is built from the action's parameters), in one unpack
                    names = [self.module.fresh(p.name) for p in rest]
                    self.w.line(f"{', '.join(names)}, = {call_}.args")
                    for p, name in zip(rest, names, strict=True):
                        self.env[id(p)] = name
                copies = self.bind_params(directional, bound)
                self.with_copy_out(copies, partial(self.body_with_return, adecl.body))
        return hit, action


def _plain_field(e: Any) -> bool:
    """Whether ``e`` is a field reached from a variable through fields only (no index,
    slice or call to evaluate)."""
    while isinstance(e, ast.MemberExpr):
        e = e.base
    return isinstance(e, ast.PathExpr)
