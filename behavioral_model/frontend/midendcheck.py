"""Rules of p4c's mid end on how structs meet externs (p4test applies them to a program
with a `main`): an extern cannot write a nested struct through an out parameter
(p4c's NestedStructs), nor write a struct nested in a parser's or control's parameter
(FlattenInterfaceStructs); both flatten such structs into scalars first, which a value
the extern produces as a whole cannot follow."""

from __future__ import annotations

from collections.abc import Iterable

from . import ast
from .constness import is_compile_time_known
from .errors import P4TypeError
from .naming import iter_nodes
from .printer import expr_text
from .types import HeaderUnionT, PackageT, StackT, StructLike, StructT, TupleT, Type

#: The kinds of call (CallTarget.kind) that call an extern.
EXTERN_CALLS = ("extern_function", "extern_method")


def is_nested_struct(t: Type | None) -> bool:
    """A struct with a struct, header, union, tuple or stack field (p4c's NestedStructs)."""
    return isinstance(t, StructT) and any(isinstance(ft, StructLike | TupleT | StackT)
                                          for _, ft in t.fields)


def nested_out_argument(param: ast.Parameter, actual: Type, callee: str,
                        call: ast.MethodCallExpr) -> P4TypeError | None:
    """The mid-end error for extern `callee` taking a nested struct through its out or
    inout parameter `param` (of type `actual` at this call), or None."""
    if param.direction not in ("out", "inout") or not is_nested_struct(actual):
        return None
    return P4TypeError(f"{expr_text(call)}: extern {callee} cannot take the nested struct "
                       f"{actual} through its {param.direction} parameter '{param.name}' on "
                       "this target", call.loc)


def interface_struct_writes(decls: Iterable[ast.Declaration], package: PackageT,
                            blocks: Iterable[ast.Declaration],
                            writes: Iterable[ast.Expression]) -> list[P4TypeError]:
    """Errors for `writes` (values an extern call produces: an out argument, or the left
    side of `x = extern_call(...)`) that store a whole struct into a field of a parser's
    or control's parameter whose type is a struct with struct fields given to the
    package as a type argument (`blocks` are the parsers and controls of `main`, of
    type `package`; p4c flattens only a generic package's type arguments)."""
    if not getattr(package.decl, "type_params", None):
        return []
    flattened = {id(p.type_ref.resolved.decl) for b in blocks for p in getattr(b, "params", ())
                 if _has_struct_field(p.type_ref.resolved)}
    if not flattened:
        return []
    block_params = {id(p) for d in decls if isinstance(d, ast.ParserDecl | ast.ControlDecl)
                    for p in d.params}
    errors = []
    for lhs in writes:
        root = lhs
        while isinstance(root, ast.MemberExpr):
            root = root.base
        if root is lhs or not isinstance(root, ast.PathExpr) or not isinstance(lhs.type, StructT):
            continue
        param = root.decl
        if isinstance(param, ast.Parameter) and id(param) in block_params and \
                id(getattr(param.type_ref.resolved, "decl", None)) in flattened:
            errors.append(P4TypeError(f"{expr_text(lhs)}: an extern cannot write the struct "
                                      f"{lhs.type} inside parameter '{param.name}' on this "
                                      "target (its fields are flattened); write a local "
                                      "variable and copy it", lhs.loc))
    return errors


def _has_struct_field(t: Type | None) -> bool:
    return isinstance(t, StructT) and t.decl is not None and \
        any(isinstance(ft, StructT) for _, ft in t.fields)


def union_stack_index_errors(decls: list[ast.Declaration]) -> list[P4TypeError]:
    """With `@command_line("--loopsUnroll")`, p4c's mid end flattens header union stacks
    in parsers into one union per element, so each index must be a compile-time constant
    there (it reports any other index as an error)."""
    if not any(_unrolls_loops(d) for d in decls):
        return []
    return [P4TypeError(f"{expr_text(node)}: the index into header union stack "
                        f"{expr_text(node.base)} must be a compile-time constant in a parser "
                        "when parser loops are unrolled (--loopsUnroll)", node.index.loc)
            for d in decls if isinstance(d, ast.ParserDecl)
            for node in iter_nodes(d.states)
            if isinstance(node, ast.IndexExpr) and isinstance(node.base.type, StackT)
            and isinstance(node.base.type.elem, HeaderUnionT)
            and not is_compile_time_known(node.index)]


def _unrolls_loops(decl: ast.Declaration) -> bool:
    ann = decl.annotation("command_line") if isinstance(decl, ast.Annotated) else None
    return ann is not None and any(isinstance(a, ast.StringLiteral) and "--loopsUnroll" in a.value
                                   for a in ann.args)
