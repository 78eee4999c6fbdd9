"""P4 source text of expressions, as p4c prints them: P4Info names table key fields by the
text of their key expression (e.g. `hdr.ipv6.dst_addr`, `hdr.h.f[7:0]`)."""

from __future__ import annotations

from . import ast

_PRECEDENCE = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8, "++": 9, "+": 10, "-": 10, "|+|": 10,
    "|-|": 10, "*": 11, "/": 11, "%": 11,
}


def expr_text(e: ast.Expression) -> str:
    """Source text of an expression, fully parenthesised where precedence requires."""
    if isinstance(e, ast.IntLiteral):
        if e.width is None:
            return str(e.value)
        return f"{e.width}{'s' if e.signed else 'w'}{e.value}"
    if isinstance(e, ast.BoolLiteral):
        return "true" if e.value else "false"
    if isinstance(e, ast.StringLiteral):
        return '"' + e.value.replace('"', '\\"') + '"'
    if isinstance(e, ast.PathExpr):
        return ("." if e.dot_prefix else "") + e.name
    if isinstance(e, ast.TypeNameExpr):
        return type_text(e.type_ref)
    if isinstance(e, ast.MemberExpr):
        return f"{_operand(e.base)}.{e.member}"
    if isinstance(e, ast.IndexExpr):
        return f"{_operand(e.base)}[{expr_text(e.index)}]"
    if isinstance(e, ast.SliceExpr):
        if e.width is not None:
            return f"{_operand(e.base)}[{expr_text(e.lo)} +: {expr_text(e.width)}]"
        return f"{_operand(e.base)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, ast.UnaryExpr):
        return f"{e.op}{_operand(e.operand)}"
    if isinstance(e, ast.BinaryExpr):
        p = _PRECEDENCE.get(e.op, 0)
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, ast.TernaryExpr):
        return f"{_operand(e.cond)} ? {_operand(e.then)} : {_operand(e.else_)}"
    if isinstance(e, ast.CastExpr):
        return f"({type_text(e.type_ref)}){_operand(e.expr)}"
    if isinstance(e, ast.MethodCallExpr):
        targs = ""
        if e.type_args:
            targs = "<" + ", ".join(type_text(t) for t in e.type_args) + ">"
        args = ", ".join(_arg_text(a) for a in e.args)
        return f"{expr_text(e.func)}{targs}({args})"
    if isinstance(e, ast.ListExpr):
        return "{" + ", ".join(expr_text(x) for x in e.elems) + "}"
    if isinstance(e, ast.StructInitExpr):
        return "{" + ", ".join(f"{n} = {expr_text(x)}" for n, x in e.fields) + "}"
    if isinstance(e, ast.MaskExpr):
        return f"{expr_text(e.value)} &&& {expr_text(e.mask)}"
    if isinstance(e, ast.RangeExpr):
        return f"{expr_text(e.low)} .. {expr_text(e.high)}"
    if isinstance(e, ast.DontCareExpr):
        return "_"
    if isinstance(e, ast.InvalidHeaderExpr):
        return "{#}"
    if isinstance(e, ast.DefaultExpr):
        return "default"
    return f"<{type(e).__name__}>"


def type_text(t: ast.TypeRef) -> str:
    if isinstance(t, ast.BaseTypeRef):
        return t.name
    if isinstance(t, ast.BitTypeRef):
        return f"{'int' if t.signed else 'bit'}<{expr_text(t.width)}>"
    if isinstance(t, ast.VarbitTypeRef):
        return f"varbit<{expr_text(t.width)}>"
    if isinstance(t, ast.NamedTypeRef):
        return ("." if t.dot_prefix else "") + t.name
    if isinstance(t, ast.SpecializedTypeRef):
        return f"{t.base.name}<{', '.join(type_text(a) for a in t.args)}>"
    if isinstance(t, ast.StackTypeRef):
        return f"{type_text(t.elem)}[{expr_text(t.size)}]"
    if isinstance(t, ast.TupleTypeRef):
        return f"tuple<{', '.join(type_text(a) for a in t.elems)}>"
    if isinstance(t, ast.ListTypeRef):
        return f"list<{type_text(t.elem)}>"
    return "_"


def _arg_text(a: ast.Argument) -> str:
    return f"{a.name} = {expr_text(a.value)}" if a.name else expr_text(a.value)


def _operand(e: ast.Expression) -> str:
    simple = (ast.PathExpr, ast.MemberExpr, ast.IndexExpr, ast.SliceExpr, ast.IntLiteral,
              ast.BoolLiteral, ast.MethodCallExpr, ast.TypeNameExpr, ast.StringLiteral)
    return expr_text(e) if isinstance(e, simple) else f"({expr_text(e)})"


def _wrap(e: ast.Expression, min_prec: int) -> str:
    if isinstance(e, ast.BinaryExpr) and _PRECEDENCE.get(e.op, 0) < min_prec:
        return f"({expr_text(e)})"
    if isinstance(e, ast.TernaryExpr):
        return f"({expr_text(e)})"
    return expr_text(e)
