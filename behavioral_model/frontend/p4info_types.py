"""P4Info building blocks: annotations and documentation as p4c writes them, P4 types as
`P4DataTypeSpec` (registering named types in `P4Info.type_info`), widths and byte strings.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from p4.config.v1 import p4info_pb2, p4types_pb2

from . import ast
from .lexer import tokenize
from .p4info_ids import P4InfoError
from .printer import expr_text
from .types import (
    BitT,
    BoolT,
    EnumT,
    ErrorT,
    HeaderT,
    HeaderUnionT,
    NewT,
    StackT,
    StructLike,
    StructT,
    TupleT,
    Type,
    VarbitT,
)

# Annotations p4c parses as expression lists; the bodies of all others stay token lists
# and are printed with one space between tokens.
_PARSED = frozenset({
    "name", "deprecated", "noWarn", "length", "synchronous", "field_list", "debug",
    "match", "controller_header", "id", "brief", "description", "p4runtime_translation",
    "max_group_size", "selector_size_semantics", "max_member_weight", "priority",
})
# Never copied into `annotations`: represented elsewhere in P4Info.
_SKIPPED = frozenset({"name", "id", "brief", "description"})


def annotation_text(ann: ast.Annotation) -> str:
    """`@name`, `@name(args)` as p4c's ToP4 prints an annotation."""
    if ann.args:
        if ann.name in _PARSED:
            return f"@{ann.name}({', '.join(expr_text(a) for a in ann.args)})"
        return f"@{ann.name}({_token_text(', '.join(expr_text(a) for a in ann.args))})"
    if ann.body is not None and ann.body.strip():
        return f"@{ann.name}({_token_text(ann.body)})"
    return f"@{ann.name}"


def _token_text(text: str) -> str:
    try:
        return " ".join(str(t) for t in tokenize(text))
    except Exception:  # an unlexable body: keep it as written
        return " ".join(text.split())


def add_annotations(msg: Any, node: ast.Annotated | None,
                    skip: Collection[str] = ()) -> None:
    """Append `node`'s annotations to `msg.annotations` except @name/@id/@brief/@description."""
    if node is None:
        return
    for ann in node.annotations:
        if ann.name in _SKIPPED or ann.name in skip:
            continue
        msg.annotations.append(annotation_text(ann))


def add_doc(msg: Any, node: ast.Annotated | None) -> None:
    """Set `msg.doc` from `@brief` / `@description` when either is present."""
    if node is None:
        return
    for ann in node.annotations:
        if ann.name in ("brief", "description"):
            text = _string_arg(ann)
            setattr(msg.doc, ann.name, text)


def set_preamble(pre: p4info_pb2.Preamble, id_: int, name: str, alias: str,
                 node: ast.Annotated | None, skip: Collection[str] = ()) -> None:
    pre.id = id_
    pre.name = name
    pre.alias = alias
    add_annotations(pre, node, skip)
    add_doc(pre, node)


def _string_arg(ann: ast.Annotation) -> str:
    if len(ann.args) != 1 or not isinstance(ann.args[0], ast.StringLiteral):
        raise P4InfoError(f"@{ann.name} needs one string argument", ann.loc)
    return ann.args[0].value


def string_annotation(node: ast.Annotated, name: str) -> str | None:
    ann = node.annotation(name)
    return None if ann is None else _string_arg(ann)


def int_annotation(node: ast.Annotated, name: str) -> int | None:
    ann = node.annotation(name)
    if ann is None:
        return None
    if len(ann.args) != 1 or not isinstance(ann.args[0], ast.IntLiteral):
        raise P4InfoError(f"@{name} needs one integer argument", ann.loc)
    return ann.args[0].value


def encode(value: int, width: int) -> bytes:
    """`value` as a big-endian byte string of ceil(width/8) bytes (two's complement)."""
    nbytes = max(1, (width + 7) // 8)
    return (value & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "big")


def type_display_name(t: Type) -> str:
    decl = getattr(t, "decl", None)
    if decl is not None and hasattr(decl, "display_name"):
        name = decl.display_name()
        return name[1:] if name.startswith(".") else name
    return getattr(t, "name", str(t))


class TypeSpecs:
    """Converts semantic types to P4DataTypeSpec, filling `info.type_info` on the way."""

    def __init__(self, info: p4info_pb2.P4Info, error_members: list[str]) -> None:
        self.info = info
        self.error_members = error_members

    @property
    def type_info(self) -> p4types_pb2.P4TypeInfo:
        return self.info.type_info

    def touch(self) -> None:
        """Make `type_info` present (p4c creates it for every table, parameter, extern...)."""
        self.info.type_info.SetInParent()

    # -- specs ----------------------------------------------------------------------
    def spec(self, t: Type, loc: Any = None) -> p4types_pb2.P4DataTypeSpec:
        out = p4types_pb2.P4DataTypeSpec()
        if isinstance(t, BitT):
            if t.signed:
                out.bitstring.int.bitwidth = t.width
            else:
                out.bitstring.bit.bitwidth = t.width
        elif isinstance(t, VarbitT):
            out.bitstring.varbit.max_bitwidth = t.max_width
        elif isinstance(t, BoolT):
            out.bool.SetInParent()
        elif isinstance(t, ErrorT):
            out.error.SetInParent()
            self._error()
        elif isinstance(t, EnumT):
            name = type_display_name(t)
            if t.underlying is not None:
                out.serializable_enum.name = name
                self._ser_enum(name, t)
            else:
                out.enum.name = name
                self._enum(name, t)
        elif isinstance(t, NewT):
            name = type_display_name(t)
            out.new_type.name = name
            self._new_type(name, t, loc)
        elif isinstance(t, HeaderT):
            name = type_display_name(t)
            out.header.name = name
            self._header(name, t, loc)
        elif isinstance(t, HeaderUnionT):
            name = type_display_name(t)
            out.header_union.name = name
            self._header_union(name, t, loc)
        elif isinstance(t, StructT):
            name = type_display_name(t)
            out.struct.name = name
            self._struct(name, t, loc)
        elif isinstance(t, TupleT):
            for e in t.elems:
                out.tuple.members.add().CopyFrom(self.spec(e, loc))
        elif isinstance(t, StackT):
            name = type_display_name(t.elem)
            if isinstance(t.elem, HeaderT):
                out.header_stack.header.name = name
                out.header_stack.size = t.size
                self._header(name, t.elem, loc)
            elif isinstance(t.elem, HeaderUnionT):
                out.header_union_stack.header_union.name = name
                out.header_union_stack.size = t.size
                self._header_union(name, t.elem, loc)
            else:
                raise P4InfoError(f"P4Runtime cannot describe a stack of {t.elem}", loc)
        else:
            raise P4InfoError(f"P4Runtime cannot describe a value of type {t}", loc)
        return out

    def _error(self) -> None:
        ti = self.type_info
        if not ti.HasField("error"):
            ti.error.SetInParent()
            ti.error.members.extend(self.error_members)

    def _enum(self, name: str, t: EnumT) -> None:
        if name in self.type_info.enums:
            return
        spec = self.type_info.enums[name]
        for m in t.members:
            spec.members.add().name = m

    def _ser_enum(self, name: str, t: EnumT) -> None:
        if name in self.type_info.serializable_enums:
            return
        spec = self.type_info.serializable_enums[name]
        assert t.underlying is not None
        width = t.underlying.width
        spec.underlying_type.bitwidth = width
        for m in t.members:
            member = spec.members.add()
            member.name = m
            member.value = encode(t.values[m], width)

    def _struct(self, name: str, t: StructT, loc: Any) -> None:
        if name in self.type_info.structs:
            return
        members = [(f, self.spec(ft, loc)) for f, ft in t.fields]
        spec = self.type_info.structs[name]
        for fname, fspec in members:
            member = spec.members.add()
            member.name = fname
            member.type_spec.CopyFrom(fspec)

    def _header(self, name: str, t: HeaderT, loc: Any) -> None:
        if name in self.type_info.headers:
            return
        members = []
        for fname, ft in t.fields:
            fspec = self.spec(ft, loc)
            if not fspec.HasField("bitstring"):
                raise P4InfoError(f"header {name}: field {fname} of type {ft} is not a "
                                  "bit string, which P4Runtime requires", loc)
            members.append((fname, fspec))
        spec = self.type_info.headers[name]
        for fname, fspec in members:
            member = spec.members.add()
            member.name = fname
            member.type_spec.CopyFrom(fspec.bitstring)

    def _header_union(self, name: str, t: HeaderUnionT, loc: Any) -> None:
        if name in self.type_info.header_unions:
            return
        members = []
        for fname, ft in t.fields:
            fspec = self.spec(ft, loc)
            members.append((fname, fspec))
        spec = self.type_info.header_unions[name]
        for fname, fspec in members:
            member = spec.members.add()
            member.name = fname
            member.header.CopyFrom(fspec.header)

    def _new_type(self, name: str, t: NewT, loc: Any) -> None:
        if name in self.type_info.new_types:
            return
        base: Type = t
        while isinstance(base, NewT):
            base = base.base
        translation = translation_of(t)
        new_spec = p4types_pb2.P4NewTypeSpec()
        decl = getattr(t, "decl", None)
        if isinstance(decl, ast.Annotated):
            add_annotations(new_spec, decl, skip=("p4runtime_translation",))
        if translation is not None:
            if not isinstance(base, BitT):
                raise P4InfoError(f"type {name}: @p4runtime_translation needs an underlying "
                                  "bit<W> type", loc)
            uri, width = translation
            new_spec.translated_type.uri = uri
            if width is None:
                new_spec.translated_type.sdn_string.SetInParent()
            else:
                new_spec.translated_type.sdn_bitwidth = width
        else:
            new_spec.original_type.CopyFrom(self.spec(base, loc))
        self.type_info.new_types[name].CopyFrom(new_spec)


def translation_of(t: Type) -> tuple[str, int | None] | None:
    """(uri, controller width or None for a string) of a `@p4runtime_translation` type."""
    decl = getattr(t, "decl", None)
    if not isinstance(t, NewT) or not isinstance(decl, ast.Annotated):
        return None
    ann = decl.annotation("p4runtime_translation")
    if ann is None:
        return None
    if len(ann.args) != 2 or not isinstance(ann.args[0], ast.StringLiteral):
        raise P4InfoError("@p4runtime_translation needs a URI string and a width (or "
                          "'string')", ann.loc)
    second = ann.args[1]
    if isinstance(second, ast.IntLiteral):
        return ann.args[0].value, second.value
    if isinstance(second, ast.StringLiteral) or (isinstance(second, ast.PathExpr)
                                                  and second.name == "string"):
        return ann.args[0].value, None
    raise P4InfoError("@p4runtime_translation: the second argument must be a width or "
                      "'string'", ann.loc)


def type_width(t: Type, loc: Any = None) -> int:
    """Width P4Info gives a key, parameter or metadata field of type `t`."""
    translation = translation_of(t)
    if translation is not None:
        return translation[1] or 0
    if isinstance(t, NewT):
        return type_width(t.base, loc)
    if isinstance(t, BitT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, ErrorT):
        return 0
    if isinstance(t, EnumT):
        return t.underlying.width if t.underlying is not None else 32
    if isinstance(t, StructLike):
        return sum(type_width(ft, loc) for _, ft in t.fields)
    raise P4InfoError(f"P4Runtime cannot give a width to a value of type {t}", loc)


def new_type_name(t: Type) -> str | None:
    return type_display_name(t) if isinstance(t, NewT) else None
