"""Syntax tree of a P4_16 program.

The parser builds these nodes; the checker then fills the `type` of every expression and
the `decl` of every name it resolves, so the pipeline compiler never has to look names up
again. Nodes compare by identity (``eq=False``) so they can key dictionaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import SourceLocation


@dataclass(eq=False, kw_only=True)
class Node:
    loc: SourceLocation | None = field(default=None, repr=False)


@dataclass(eq=False, kw_only=True)
class Annotation(Node):
    """`@name`, `@name(expr, ...)` or `@name[tokens]`; `body` keeps unparsed bodies as text."""

    name: str
    args: list[Expression] = field(default_factory=list)
    body: str | None = None
    # `@name[...]`: its elements, each (key or None, value); `body` keeps the text.
    structured: list[tuple[str | None, Expression]] | None = None


@dataclass(eq=False, kw_only=True)
class Annotated(Node):
    annotations: list[Annotation] = field(default_factory=list)

    def annotation(self, name: str) -> Annotation | None:
        for ann in self.annotations:
            if ann.name == name:
                return ann
        return None


# ---------------------------------------------------------------------------------------
# Type references (syntax; the checker turns them into behavioral_model.frontend.types)


@dataclass(eq=False, kw_only=True)
class TypeRef(Node):
    resolved: Any = field(default=None, repr=False)  # set by the checker: a types.Type


@dataclass(eq=False, kw_only=True)
class BaseTypeRef(TypeRef):
    """bool, error, string, int, void, match_kind, packet_in/out are named types instead."""

    name: str


@dataclass(eq=False, kw_only=True)
class BitTypeRef(TypeRef):
    """`bit<W>` (signed=False) or `int<W>` (signed=True); plain `bit` is width 1."""

    width: Expression
    signed: bool = False


@dataclass(eq=False, kw_only=True)
class VarbitTypeRef(TypeRef):
    width: Expression


@dataclass(eq=False, kw_only=True)
class NamedTypeRef(TypeRef):
    """A declared type or a type variable; `dot_prefix` for `.name` (top-level scope)."""

    name: str
    dot_prefix: bool = False


@dataclass(eq=False, kw_only=True)
class SpecializedTypeRef(TypeRef):
    """`Base<A, B>`, e.g. `register<bit<32>>` or `Checksum<bit<16>>`."""

    base: NamedTypeRef
    args: list[TypeRef]


@dataclass(eq=False, kw_only=True)
class StackTypeRef(TypeRef):
    """`elem[size]`: a header stack."""

    elem: TypeRef
    size: Expression


@dataclass(eq=False, kw_only=True)
class TupleTypeRef(TypeRef):
    elems: list[TypeRef]


@dataclass(eq=False, kw_only=True)
class DontCareTypeRef(TypeRef):
    """`_` in a type argument list."""


# ---------------------------------------------------------------------------------------
# Expressions


@dataclass(eq=False, kw_only=True)
class Expression(Node):
    type: Any = field(default=None, repr=False)  # set by the checker: a types.Type


@dataclass(eq=False, kw_only=True)
class IntLiteral(Expression):
    """`5` (width None: arbitrary precision), `8w5` (width 8), `8s5` (signed)."""

    value: int
    width: int | None = None
    signed: bool = False


@dataclass(eq=False, kw_only=True)
class BoolLiteral(Expression):
    value: bool


@dataclass(eq=False, kw_only=True)
class StringLiteral(Expression):
    value: str


@dataclass(eq=False, kw_only=True)
class PathExpr(Expression):
    """A name; `decl` is set by the checker to the declaration it names."""

    name: str
    dot_prefix: bool = False
    decl: Any = field(default=None, repr=False)


@dataclass(eq=False, kw_only=True)
class TypeNameExpr(Expression):
    """A type used where an expression stands: the base of `E.member` or `T.minSizeInBits()`."""

    type_ref: TypeRef


@dataclass(eq=False, kw_only=True)
class MemberExpr(Expression):
    """`base.member`: header/struct field, enum member (`MyEnum.A`, `error.NoError`),
    method (`t.apply`), stack property (`next`, `last`, `lastIndex`, `size`)."""

    base: Expression
    member: str


@dataclass(eq=False, kw_only=True)
class IndexExpr(Expression):
    """`base[index]`: header stack element (or tuple element with a constant index)."""

    base: Expression
    index: Expression


@dataclass(eq=False, kw_only=True)
class SliceExpr(Expression):
    """`base[hi:lo]`."""

    base: Expression
    hi: Expression
    lo: Expression


@dataclass(eq=False, kw_only=True)
class UnaryExpr(Expression):
    """op is one of `!`, `~`, `-`, `+`."""

    op: str
    operand: Expression


@dataclass(eq=False, kw_only=True)
class BinaryExpr(Expression):
    """op is one of `* / % + - |+| |-| << >> <= >= < > == != & ^ | && || ++`."""

    op: str
    left: Expression
    right: Expression


@dataclass(eq=False, kw_only=True)
class TernaryExpr(Expression):
    cond: Expression
    then: Expression
    else_: Expression


@dataclass(eq=False, kw_only=True)
class CastExpr(Expression):
    type_ref: TypeRef
    expr: Expression


@dataclass(eq=False, kw_only=True)
class Argument(Node):
    """A call argument; `name` for named arguments (`f(x = 1)`), value may be DontCareExpr."""

    value: Expression
    name: str | None = None


@dataclass(eq=False, kw_only=True)
class MethodCallExpr(Expression):
    """`func<type_args>(args)`: func is a PathExpr or MemberExpr (e.g. `pkt.extract`)."""

    func: Expression
    type_args: list[TypeRef] = field(default_factory=list)
    args: list[Argument] = field(default_factory=list)
    target: Any = field(default=None, repr=False)  # set by the checker: a checker.CallTarget


@dataclass(eq=False, kw_only=True)
class ConstructorCallExpr(Expression):
    """`Type(args)` in an expression, e.g. an extern constructed as an argument.
    `instance_name` is set by the checker for a parser/control built as a constructor
    argument inside a block: the name p4c's MoveConstructors declares it under."""

    type_ref: TypeRef
    args: list[Argument] = field(default_factory=list)
    instance_name: str | None = None


@dataclass(eq=False, kw_only=True)
class ListExpr(Expression):
    """`{a, b, c}`: a tuple/list initializer (also `(a, b)` tuples in select keys)."""

    elems: list[Expression]


@dataclass(eq=False, kw_only=True)
class StructInitExpr(Expression):
    """`{a = 1, b = 2}`, or `(T){...}` when a cast names the type."""

    fields: list[tuple[str, Expression]]


@dataclass(eq=False, kw_only=True)
class DontCareExpr(Expression):
    """`_`."""


@dataclass(eq=False, kw_only=True)
class DefaultExpr(Expression):
    """`default` in a select or table key set."""


@dataclass(eq=False, kw_only=True)
class MaskExpr(Expression):
    """`value &&& mask` in a key set."""

    value: Expression
    mask: Expression


@dataclass(eq=False, kw_only=True)
class RangeExpr(Expression):
    """`low .. high` in a key set."""

    low: Expression
    high: Expression


# ---------------------------------------------------------------------------------------
# Statements


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
