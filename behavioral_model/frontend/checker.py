"""Name resolution and type checking of a whole P4_16 program.

`check_program` walks declarations in source order (P4 requires declaration before use),
annotates the tree (expression types, resolved names, call targets) and returns a
`CheckedProgram` the pipeline compiler and the P4Info generator consume.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from . import ast
from .annotcheck import check_structured_names
from .callcheck import CallChecker
from .consteval import NotConstant, evaluate_composite
from .constness import is_compile_time_known
from .declcheck import (
    always_returns,
    check_distinct,
    check_extern_methods,
    check_instance_place,
    check_params,
    check_return_type,
    check_type_decl,
    check_variable_type,
)
from .errors import P4TypeError, P4Warning, SourceLocation
from .exprcheck import ExprChecker
from .indexexpansion import index_expansion_errors
from .initializers import check_initializer
from .listcheck import check_list_types
from .midendcheck import interface_struct_writes, union_stack_index_errors
from .naming import constructor_arguments, iter_nodes
from .parsercheck import ParserChecks
from .printer import expr_text
from .scope import MatchKindMember, Scope, TypeParamDecl
from .stmtcheck import StatementChecks
from .tablecheck import TableChecks
from .types import (
    BitT,
    ControlT,
    ExternT,
    IntT,
    PackageT,
    ParserT,
    StackT,
    StructLike,
    TupleT,
    Type,
    TypeVar,
    VoidT,
)

# Warnings go to this logger as "file:line:col: warning: ..." (on stderr when the
# application configures no logging, e.g. the `check` command) and to
# CheckedProgram.warnings.
log = logging.getLogger("behavioral_model.frontend")


@dataclass
class CheckedProgram:
    """A type-checked program: the annotated tree plus program-wide facts."""

    program: ast.Program
    error_members: list[str] = field(default_factory=list)
    match_kinds: list[str] = field(default_factory=list)
    main: ast.InstantiationDecl | None = None
    # The package's arguments in order, each the parser/control declaration it instantiates.
    package_blocks: list[Any] = field(default_factory=list)
    root: Scope | None = None
    warnings: list[P4Warning] = field(default_factory=list)

    def error_code(self, name: str) -> int:
        return self.error_members.index(name)


class Checker(ParserChecks, StatementChecks, TableChecks):
    """Declarations and program-wide rules; parsers, statements and tables come from
    the mixins."""

    def __init__(self, program: ast.Program) -> None:
        self.result = CheckedProgram(program)
        self.error_members = self.result.error_members
        self.exprs = ExprChecker(self)
        self.calls = CallChecker(self.exprs)
        self.exprs.calls = self.calls
        self.root = Scope(None, "program")
        self.exprs.resolver.root = self.root
        self.result.root = self.root
        # Context of the body being checked.
        self._return_type: Type | None = None
        self._in_action = False
        self._in_parser = False
        self._in_function = False
        self._loop_depth = 0
        self._used_names: set[str] | None = None  # see _fresh_name

    @property
    def in_parser(self) -> bool:
        """True while a parser state is checked."""
        return self._in_parser

    @property
    def in_function(self) -> bool:
        """True while a function body is checked."""
        return self._in_function

    def warn(self, message: str, location: SourceLocation | None) -> None:
        warning = P4Warning(message, location)
        if warning not in self.result.warnings:
            self.result.warnings.append(warning)
            log.warning("%s", warning)

    # -- program --------------------------------------------------------------------
    def run(self) -> CheckedProgram:
        check_list_types(self.result.program.decls)
        for decl in self.result.program.decls:
            self.declare_top(decl)
        self.calls.check_deferred_known()
        check_structured_names(iter_nodes(self.result.program.decls), self.root)
        self._check_main()
        if self.result.main is not None:
            self.exprs.midend_errors += interface_struct_writes(
                self.result.program.decls, self.result.main.type_ref.resolved,
                self.result.package_blocks, self.calls.extern_writes)
            self.exprs.midend_errors += union_stack_index_errors(self.result.program.decls)
            self.exprs.midend_errors += index_expansion_errors(self.result.program.decls)
        if self.result.main is not None and self.exprs.midend_errors:
            raise self.exprs.midend_errors[0]
        return self.result

    def declare_top(self, decl: ast.Node) -> None:
        scope = self.root
        if isinstance(decl, ast.ErrorDecl):
            for m in decl.members:
                if m in self.error_members:
                    raise P4TypeError(f"error.{m} is declared twice", decl.loc)
                self.error_members.append(m)
            return
        if isinstance(decl, ast.MatchKindDecl):
            for m in decl.members:
                scope.declare(m, MatchKindMember(m), decl.loc)
                self.result.match_kinds.append(m)
            return
        assert isinstance(decl, ast.Declaration), decl
        overload = isinstance(decl, ast.ExternFunctionDecl | ast.FunctionDecl
                              | ast.PackageTypeDecl)
        if isinstance(decl, ast.InstantiationDecl):
            self._instantiation(decl, scope)
            return
        if isinstance(decl, ast.ConstDecl):
            self._const(decl, scope)
            return
        if isinstance(decl, ast.ActionDecl):
            scope.declare(decl.name, decl, decl.loc)
            self._action(decl, scope)
            return
        elif isinstance(decl, ast.FunctionDecl):
            # Declared after its body: a function cannot call itself (p4c: the name is not
            # found there).
            self._function(decl, scope)
            scope.declare(decl.name, decl, decl.loc, overloadable=True)
            return
        elif isinstance(decl, ast.ParserDecl):
            scope.declare(decl.name, decl, decl.loc, overloadable=True)
            with self.exprs.resolver.inside(decl):
                self._parser(decl)
            return
        elif isinstance(decl, ast.ControlDecl):
            scope.declare(decl.name, decl, decl.loc, overloadable=True)
            with self.exprs.resolver.inside(decl):
                self._control(decl)
            return
        scope.declare(decl.name, decl, decl.loc, overloadable=overload)
        if isinstance(decl, ast.ExternDecl | ast.ExternFunctionDecl | ast.ParserTypeDecl
                      | ast.ControlTypeDecl | ast.PackageTypeDecl):
            with self.exprs.resolver.inside(decl):
                self._check_prototype(decl)
        else:
            self.exprs.resolver.decl_type(decl, scope)
            check_type_decl(decl, scope, self.result.match_kinds)

    def _check_prototype(self, decl: Any) -> None:
        """Resolve parameter types of prototypes, with their type parameters in scope."""
        scope = self._generic_scope(self.root, decl.type_params, decl)
        methods = decl.methods if isinstance(decl, ast.ExternDecl) else [decl]
        kind = ("apply" if isinstance(decl, ast.ParserTypeDecl | ast.ControlTypeDecl) else
                "package" if isinstance(decl, ast.PackageTypeDecl) else "method")
        for m in methods:
            inner = self._generic_scope(scope, getattr(m, "type_params", []), m)
            for p in m.params:
                self.exprs.resolver.resolve(p.type_ref, inner)
            if getattr(m, "return_type", None) is not None:
                self.exprs.resolver.resolve(m.return_type, inner)
                check_return_type(m.return_type, inner)
            check_distinct(getattr(m, "type_params", []), m.params)
            check_params(m.params, kind)
        if isinstance(decl, ast.ExternDecl):
            check_extern_methods(decl)

    def _generic_scope(self, parent: Scope, type_params: list[str], owner: Any) -> Scope:
        if not type_params:
            return parent
        scope = parent.child("generic")
        for tp in type_params:
            scope.declare(tp, TypeParamDecl(tp, TypeVar(tp, owner)), getattr(owner, "loc", None))
        return scope

    def _check_main(self) -> None:
        main = self.root.lookup("main")
        if main is None or isinstance(main, ast.FunctionDecl | ast.ExternFunctionDecl
                                      | ast.ConstDecl):
            # p4c checks such a program and warns ("Program does not contain a `main'
            # module"); there is nothing to run, which the pipeline compiler refuses. A
            # function or constant named main counts as none (p4c's issue1830.p4).
            self.warn("the program has no package instantiation named 'main': it is "
                      "checked, but there is nothing to run", None)
            return
        if not isinstance(main, ast.InstantiationDecl) or not isinstance(
                main.type_ref.resolved, PackageT):
            raise P4TypeError("'main' must be a package instantiation",
                              getattr(main, "loc", None))
        self.result.main = main
        for arg in main.args:
            self.result.package_blocks.extend(_package_blocks(arg.value))

    # -- declarations ---------------------------------------------------------------
    def _const(self, decl: ast.ConstDecl, scope: Scope) -> None:
        t = self.exprs.resolver.resolve(decl.type_ref, scope)
        self.exprs.check(decl.value, scope, t)
        if _holds_array(t):
            # p4c's constant folding has no value for a stack or an array, nor for a
            # struct or tuple holding one.
            raise P4TypeError(f"cannot evaluate the initializer of constant '{decl.name}' "
                              f"of type {t}", decl.value.loc)
        try:
            evaluate_composite(decl.value)
        except NotConstant:
            raise P4TypeError(f"initializer of constant '{decl.name}' is not a compile-time "
                              "constant", decl.value.loc) from None
        scope.declare(decl.name, decl, decl.loc)

    def _instantiation(self, decl: ast.InstantiationDecl, scope: Scope) -> None:
        arrays = []  # `E(1) e[2][3]`: the array types around the instance's, inner first
        ref = decl.type_ref
        while isinstance(ref, ast.StackTypeRef):
            arrays.append(ref)
            ref = ref.elem
        arrays.reverse()
        t = self.exprs.resolver.resolve(ref, scope)
        check_instance_place(decl, t, scope.kind)
        if arrays and not isinstance(t, ExternT):
            raise P4TypeError(f"'{decl.name}': only extern instances come in arrays", decl.loc)
        t = self.calls.check_constructor_args(t, decl.args, scope, decl)
        ref.resolved = t
        if isinstance(t, ExternT) and len(t.type_args) < len(t.decl.type_params):
            # Missing trailing type arguments (e.g. a register's index type) default to bit<32>.
            missing = t.decl.type_params[len(t.type_args):]
            t = ExternT(t.name, t.decl, type_args=t.type_args + tuple(BitT(32) for _ in missing))
            ref.resolved = t
        check_initializer(self, decl, t, scope)
        for array in arrays:
            size = self.exprs.resolver.const_int(array.size, scope, "instance array size")
            if size < 0:
                raise P4TypeError(f"instance array size must not be negative, got {size}",
                                  array.loc)
            t = array.resolved = StackT(t, size)
        scope.declare(decl.name, decl, decl.loc)

    def _params(self, params: list[ast.Parameter], scope: Scope, allow_dir: bool = True) -> None:
        for p in params:
            self.exprs.resolver.resolve(p.type_ref, scope)
            if p.direction and not allow_dir:
                raise P4TypeError(f"parameter '{p.name}' cannot have a direction", p.loc)
            if p.default is not None:
                self.exprs.check(p.default, scope, p.type_ref.resolved)
                if not is_compile_time_known(p.default):
                    raise P4TypeError(f"{expr_text(p.default)}: a default value must be a "
                                      "compile-time constant", p.default.loc)
            scope.declare(p.name, p, p.loc)

    def _action(self, decl: ast.ActionDecl, scope: Scope) -> None:
        inner = scope.child("action", hides=decl)
        seen_directionless = False
        for p in decl.params:
            if not p.direction:
                seen_directionless = True
            elif seen_directionless:
                raise P4TypeError(
                    f"action {decl.name}: directional parameter '{p.name}' after a "
                    "directionless one", p.loc)
        self._params(decl.params, inner)
        check_params(decl.params, "action")
        saved = self._in_action, self._return_type, self._loop_depth
        self._in_action, self._return_type, self._loop_depth = True, VoidT(), 0
        self._block(decl.body, inner)
        self._in_action, self._return_type, self._loop_depth = saved

    def _function(self, decl: ast.FunctionDecl, scope: Scope) -> None:
        inner = self._generic_scope(scope, decl.type_params, decl).child("function")
        ret = self.exprs.resolver.resolve(decl.return_type, inner)
        check_return_type(decl.return_type, inner)
        check_distinct(decl.type_params, decl.params)
        self._params(decl.params, inner)
        check_params(decl.params, "function")
        saved = self._return_type, self._in_function
        self._return_type, self._in_function = ret, True
        self._block(decl.body, inner)
        if not isinstance(ret, VoidT) and not always_returns(decl.body):
            raise P4TypeError(f"function '{decl.name}' does not return a value on all paths",
                              decl.loc)
        self._return_type, self._in_function = saved

    def _block_decl_scope(self, decl: ast.ControlDecl | ast.ParserDecl, kind: str) -> Scope:
        """The scope of a parser's or control's body: its type, apply and constructor
        parameters, then its local declarations, each checked."""
        params = self._generic_scope(self.root, decl.type_params, decl).child(kind)
        check_distinct(decl.type_params, decl.params, decl.constructor_params)
        self._params(decl.params, params)
        self._params(decl.constructor_params, params, allow_dir=False)
        check_params(decl.params, "apply")
        check_params(decl.constructor_params, "constructor")
        # The locals are a scope of their own: p4c lets one take a parameter's name
        # (`control c(inout H p) { bit<8> p; ... }`), which then hides the parameter.
        scope = params.child(kind)
        for local in decl.locals:
            self._local(local, scope)
        return scope

    def _control(self, decl: ast.ControlDecl) -> None:
        scope = self._block_decl_scope(decl, "control")
        saved = self._return_type
        self._return_type = VoidT()
        self._block(decl.body, scope.child("apply"))
        self._return_type = saved

    def _local(self, decl: ast.Declaration, scope: Scope) -> None:
        if isinstance(decl, ast.ActionDecl):
            scope.declare(decl.name, decl, decl.loc)
            self._action(decl, scope)
        elif isinstance(decl, ast.TableDecl):
            self._table(decl, scope)
            scope.declare(decl.name, decl, decl.loc)
        elif isinstance(decl, ast.InstantiationDecl):
            self._instantiation(decl, scope)
            for built in constructor_arguments(decl):
                built.instance_name = self._fresh_name("tmp")
        elif isinstance(decl, ast.ConstDecl):
            self._const(decl, scope)
        elif isinstance(decl, ast.VariableDecl):
            self._variable(decl, scope)
        elif isinstance(decl, ast.ValueSetDecl):
            if isinstance(self.exprs.resolver.resolve(decl.elem_type, scope), IntT):
                raise P4TypeError("int: illegal type for a value_set element type", decl.loc)
            self.exprs.resolver.const_int(decl.size, scope, "value_set size")
            scope.declare(decl.name, decl, decl.loc)
        elif isinstance(decl, ast.FunctionDecl):
            scope.declare(decl.name, decl, decl.loc, overloadable=True)
            self._function(decl, scope)
        else:
            raise P4TypeError(f"{type(decl).__name__} is not allowed here", decl.loc)

    def _fresh_name(self, base: str) -> str:
        """`base`, else `base_0`, `base_1`, ...: the first not declared anywhere in the
        program (p4c's MinimalNameGenerator, used by MoveConstructors)."""
        if self._used_names is None:
            self._used_names = {n.name for n in iter_nodes(self.result.program.decls)
                                if isinstance(n, ast.Declaration)}
        name, serial = base, 0
        while name in self._used_names:
            name, serial = f"{base}_{serial}", serial + 1
        self._used_names.add(name)
        return name

    def _variable(self, decl: ast.VariableDecl, scope: Scope) -> None:
        t = self.exprs.resolver.resolve(decl.type_ref, scope)
        check_variable_type(decl, t)
        if decl.init is not None:
            self.exprs.check(decl.init, scope, t)
        if isinstance(scope.lookup(decl.name), ast.Parameter) and \
                scope.kind not in ("control", "parser"):
            # p4c: an error, not a warning, in an action, an apply block or a state.
            raise P4TypeError(f"declaration of '{decl.name}' shadows a parameter", decl.loc)
        scope.declare(decl.name, decl, decl.loc)

def _package_blocks(expr: ast.Expression) -> list[Any]:
    """The blocks a package argument gives: itself, or for a package instance (TNA's
    `Pipeline(...) pipe; Switch(pipe) main;`) the blocks of that package, in order."""
    inst: Any = expr
    if isinstance(expr, ast.PathExpr) and isinstance(expr.decl, ast.InstantiationDecl):
        inst = expr.decl
    if isinstance(inst, ast.InstantiationDecl | ast.ConstructorCallExpr) and isinstance(
            getattr(inst.type_ref.resolved, "decl", None), ast.PackageTypeDecl):
        return [block for a in inst.args for block in _package_blocks(a.value)]
    return [_instance_decl(expr)]


def _instance_decl(expr: ast.Expression) -> Any:
    """The parser/control declaration a package argument instantiates."""
    t = expr.type
    if isinstance(t, ParserT | ControlT):
        return t.decl
    if isinstance(expr, ast.PathExpr) and isinstance(expr.decl, ast.InstantiationDecl):
        inst_t = expr.decl.type_ref.resolved
        return getattr(inst_t, "decl", None)
    return None


def check_program(program: ast.Program) -> CheckedProgram:
    """Type-check `program` in place; raises P4TypeError at the first error."""
    return Checker(program).run()



def _holds_array(t: Type) -> bool:
    """Whether a value of type `t` is, or holds, a header stack or an array."""
    if isinstance(t, StackT):
        return True
    if isinstance(t, StructLike):
        return any(_holds_array(ft) for _, ft in t.fields)
    return isinstance(t, TupleT) and any(_holds_array(e) for e in t.elems)
