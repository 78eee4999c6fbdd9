"""Syntax tree of a P4_16 program: statements and declarations (`ast_exprs.py` holds the
node base, annotations, type references and expressions; this module re-exports them).

The parser builds these nodes; the checker then fills the `type` of every expression and
the `decl` of every name it resolves, so the pipeline compiler never has to look names up
again. Nodes compare by identity (``eq=False``) so they can key dictionaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The node base, annotations, type references and expressions, re-exported: users write
# `ast.IntLiteral` whichever module defines it.
from .ast_exprs import Annotated as Annotated
from .ast_exprs import Annotation as Annotation
from .ast_exprs import Argument as Argument
from .ast_exprs import BaseTypeRef as BaseTypeRef
from .ast_exprs import BinaryExpr as BinaryExpr
from .ast_exprs import BitTypeRef as BitTypeRef
from .ast_exprs import BoolLiteral as BoolLiteral
from .ast_exprs import CastExpr as CastExpr
from .ast_exprs import ConstructorCallExpr as ConstructorCallExpr
from .ast_exprs import DefaultExpr as DefaultExpr
from .ast_exprs import DefaultValueExpr as DefaultValueExpr
from .ast_exprs import DontCareExpr as DontCareExpr
from .ast_exprs import DontCareTypeRef as DontCareTypeRef
from .ast_exprs import Expression as Expression
from .ast_exprs import IndexExpr as IndexExpr
from .ast_exprs import IntLiteral as IntLiteral
from .ast_exprs import InvalidHeaderExpr as InvalidHeaderExpr
from .ast_exprs import ListExpr as ListExpr
from .ast_exprs import ListTypeRef as ListTypeRef
from .ast_exprs import MaskExpr as MaskExpr
from .ast_exprs import MemberExpr as MemberExpr
from .ast_exprs import MethodCallExpr as MethodCallExpr
from .ast_exprs import NamedTypeRef as NamedTypeRef
from .ast_exprs import Node as Node
from .ast_exprs import PathExpr as PathExpr
from .ast_exprs import RangeExpr as RangeExpr
from .ast_exprs import SliceExpr as SliceExpr
from .ast_exprs import SpecializedTypeRef as SpecializedTypeRef
from .ast_exprs import StackTypeRef as StackTypeRef
from .ast_exprs import StringLiteral as StringLiteral
from .ast_exprs import StructInitExpr as StructInitExpr
from .ast_exprs import TernaryExpr as TernaryExpr
from .ast_exprs import TupleTypeRef as TupleTypeRef
from .ast_exprs import TypeNameExpr as TypeNameExpr
from .ast_exprs import TypeRef as TypeRef
from .ast_exprs import UnaryExpr as UnaryExpr
from .ast_exprs import VarbitTypeRef as VarbitTypeRef


@dataclass(eq=False, kw_only=True)
class Statement(Annotated):
    pass


@dataclass(eq=False, kw_only=True)
class AssignmentStatement(Statement):
    lhs: Expression
    rhs: Expression


@dataclass(eq=False, kw_only=True)
class MethodCallStatement(Statement):
    call: MethodCallExpr


@dataclass(eq=False, kw_only=True)
class BlockStatement(Statement):
    stmts: list[Statement | Declaration] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class IfStatement(Statement):
    cond: Expression
    then: Statement
    else_: Statement | None = None


@dataclass(eq=False, kw_only=True)
class SwitchCase(Node):
    """labels: expressions or DefaultExpr; body None means fall through to the next case."""

    labels: list[Expression]
    body: BlockStatement | None


@dataclass(eq=False, kw_only=True)
class SwitchStatement(Statement):
    """`switch (e) { ... }`; e is a value or `t.apply().action_run`."""

    expr: Expression
    cases: list[SwitchCase]


@dataclass(eq=False, kw_only=True)
class ExitStatement(Statement):
    pass


@dataclass(eq=False, kw_only=True)
class ForStatement(Statement):
    """`for (init; cond; updates) body` (spec 1.2.5); init may declare variables."""

    init: list[Any] = field(default_factory=list)
    cond: Expression | None = None
    updates: list[Statement] = field(default_factory=list)
    body: Statement = field(default_factory=lambda: EmptyStatement())


@dataclass(eq=False, kw_only=True)
class ForInStatement(Statement):
    """`for (T x in lo .. hi)` (iterable a RangeExpr) or `for (T x in list)`."""

    var: VariableDecl
    iterable: Expression
    body: Statement


@dataclass(eq=False, kw_only=True)
class BreakStatement(Statement):
    pass


@dataclass(eq=False, kw_only=True)
class ContinueStatement(Statement):
    pass


@dataclass(eq=False, kw_only=True)
class ReturnStatement(Statement):
    value: Expression | None = None


@dataclass(eq=False, kw_only=True)
class EmptyStatement(Statement):
    pass


# ---------------------------------------------------------------------------------------
# Declarations


@dataclass(eq=False, kw_only=True)
class Declaration(Annotated):
    name: str

    def display_name(self) -> str:
        """The `@name` annotation's value if present, else the declared name."""
        ann = self.annotation("name")
        if ann and ann.args and isinstance(ann.args[0], StringLiteral):
            return ann.args[0].value
        return self.name


@dataclass(eq=False, kw_only=True)
class Parameter(Declaration):
    """direction is '', 'in', 'out' or 'inout'."""

    direction: str
    type_ref: TypeRef
    default: Expression | None = None


@dataclass(eq=False, kw_only=True)
class ConstDecl(Declaration):
    type_ref: TypeRef
    value: Expression


@dataclass(eq=False, kw_only=True)
class VariableDecl(Declaration):
    type_ref: TypeRef
    init: Expression | None = None


@dataclass(eq=False, kw_only=True)
class TypedefDecl(Declaration):
    type_ref: TypeRef


@dataclass(eq=False, kw_only=True)
class NewTypeDecl(Declaration):
    """`type bit<32> T;`."""

    type_ref: TypeRef


@dataclass(eq=False, kw_only=True)
class StructField(Annotated):
    name: str
    type_ref: TypeRef


@dataclass(eq=False, kw_only=True)
class HeaderDecl(Declaration):
    fields: list[StructField]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class HeaderUnionDecl(Declaration):
    fields: list[StructField]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class StructDecl(Declaration):
    fields: list[StructField]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class EnumMember(Annotated):
    name: str
    value: Expression | None = None


@dataclass(eq=False, kw_only=True)
class EnumDecl(Declaration):
    """Plain enum (underlying None) or serializable enum `enum bit<8> E { A = 1 }`."""

    members: list[EnumMember]
    underlying: TypeRef | None = None


@dataclass(eq=False, kw_only=True)
class ErrorDecl(Node):
    """`error { A, B }`; several of them add up."""

    members: list[str]


@dataclass(eq=False, kw_only=True)
class MatchKindDecl(Node):
    members: list[str]


@dataclass(eq=False, kw_only=True)
class MethodDecl(Declaration):
    """A method prototype inside an extern; return_type None marks a constructor."""

    return_type: TypeRef | None
    params: list[Parameter]
    type_params: list[str] = field(default_factory=list)
    is_abstract: bool = False


@dataclass(eq=False, kw_only=True)
class ExternDecl(Declaration):
    """`extern Name<T> { constructors and methods }`."""

    methods: list[MethodDecl]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class ExternFunctionDecl(Declaration):
    return_type: TypeRef
    params: list[Parameter]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class FunctionDecl(Declaration):
    return_type: TypeRef
    params: list[Parameter]
    body: BlockStatement
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class ParserTypeDecl(Declaration):
    """`parser P<H>(packet_in b, out H h);` (a prototype)."""

    params: list[Parameter]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class ControlTypeDecl(Declaration):
    params: list[Parameter]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class PackageTypeDecl(Declaration):
    params: list[Parameter]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class SelectCase(Node):
    """keyset: one expression, a ListExpr for tuple keys, DefaultExpr or DontCareExpr; the
    elements may be MaskExpr/RangeExpr; `state` is the next state's name."""

    keyset: Expression
    state: str


@dataclass(eq=False, kw_only=True)
class Transition(Node):
    pass


@dataclass(eq=False, kw_only=True)
class DirectTransition(Transition):
    state: str


@dataclass(eq=False, kw_only=True)
class SelectTransition(Transition):
    keys: list[Expression]
    cases: list[SelectCase]


@dataclass(eq=False, kw_only=True)
class ParserState(Declaration):
    body: list[Statement | Declaration]
    transition: Transition | None = None


@dataclass(eq=False, kw_only=True)
class ValueSetDecl(Declaration):
    """`value_set<T>(size) name;` inside a parser."""

    elem_type: TypeRef
    size: Expression


@dataclass(eq=False, kw_only=True)
class ParserDecl(Declaration):
    params: list[Parameter]
    constructor_params: list[Parameter]
    locals: list[Declaration]
    states: list[ParserState]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class ActionDecl(Declaration):
    params: list[Parameter]
    body: BlockStatement


@dataclass(eq=False, kw_only=True)
class KeyElement(Annotated):
    """One `expr : match_kind;` of a table key."""

    expr: Expression
    match_kind: str


@dataclass(eq=False, kw_only=True)
class ActionRef(Annotated):
    """An entry of a table's `actions` list or its `default_action`: a name with args."""

    name: str
    args: list[Argument] = field(default_factory=list)
    dot_prefix: bool = False  # `.name`: the top-level declaration
    decl: Any = field(default=None, repr=False)  # the ActionDecl, set by the checker


@dataclass(eq=False, kw_only=True)
class EntryDecl(Annotated):
    """One entry of `entries = { ... }`: keyset (one expression or a ListExpr), action,
    and an optional explicit `priority = N :` prefix."""

    keyset: Expression
    action: ActionRef
    priority: Expression | None = None
    is_const: bool = False


@dataclass(eq=False, kw_only=True)
class TableProperty(Annotated):
    """Any other table property, e.g. `size = 1024`, `counters = c`, `implementation = ...`."""

    name: str
    value: Expression
    is_const: bool = False


@dataclass(eq=False, kw_only=True)
class TableDecl(Declaration):
    """`has_actions` tells an empty `actions = {}` (legal) from no property at all."""

    keys: list[KeyElement] = field(default_factory=list)
    actions: list[ActionRef] = field(default_factory=list)
    has_actions: bool = False
    default_action: ActionRef | None = None
    default_action_const: bool = False
    entries: list[EntryDecl] = field(default_factory=list)
    entries_const: bool = False
    entries_before_key: bool = False  # written in that order (p4c refuses it)
    default_before_actions: bool = False  # the same
    properties: list[TableProperty] = field(default_factory=list)

    def property(self, name: str) -> TableProperty | None:
        """The property `name`, or PNA's spelling of it (pna.p4: `pna_implementation`,
        `pna_direct_counter`, `pna_direct_meter`), which means the same."""
        names = (name, *_PNA_PROPERTIES.get(name, ()))
        for prop in self.properties:
            if prop.name in names:
                return prop
        return None


    def pna_notifies_idle(self) -> bool:
        """`pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL` (pna.p4): the PNA
        spelling of v1model's `support_timeout = true`."""
        prop = self.property("pna_idle_timeout")
        return (prop is not None and isinstance(prop.value, MemberExpr)
                and prop.value.member == "NOTIFY_CONTROL")


_PNA_PROPERTIES = {"implementation": ("pna_implementation",),
                   "counters": ("pna_direct_counter",), "meters": ("pna_direct_meter",)}


@dataclass(eq=False, kw_only=True)
class InstantiationDecl(Declaration):
    """`Type<args>(ctor args) name;`, e.g. `register<bit<32>>(16) r;` or the top-level
    `V1Switch(P(), V(), I(), E(), C(), D()) main;`."""

    type_ref: TypeRef
    args: list[Argument]
    # `= { ... }` (spec 11.3.1): the functions implementing the extern's abstract
    # methods and the instances they use; None without an initializer.
    initializer: list[Declaration] | None = None


@dataclass(eq=False, kw_only=True)
class ControlDecl(Declaration):
    params: list[Parameter]
    constructor_params: list[Parameter]
    locals: list[Declaration]
    body: BlockStatement
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False, kw_only=True)
class Program(Node):
    decls: list[Node]
