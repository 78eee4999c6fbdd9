"""Run-time representation of P4 values.

bit<W> and int<W> are Python ints kept in range (int<W> as signed values), bool is bool,
error and enum members are ints. Headers, structs and header unions become generated
classes with `__slots__` so field access is a plain attribute access; a header stack is a
`HeaderStack`. Every field starts at zero: reads of uninitialised or invalid data give 0.

A header that is a field of a struct (a program's headers struct holds tens of them,
most never valid in a given packet) starts as its class's *shared zero*, one all-zero
invalid instance per header type (``cls._zero``), instead of an instance of its own:
a new struct costs a store per header, and a copy of it shares what is still zero.
Whoever writes into such a header first gives the struct a copy of its own: the
generated code (``ExprGenMixin.own`` before every write, extract, setValid and binding
by reference) and :func:`owned` for code outside it. The shared zero is never written.
A stack of headers that is a field of a struct starts the same way, as its type's
shared zero stack (``SharedZeroStack``): the NIC's and the switch's headers struct has
an 8-entry segment stack that few packets fill, and building it was most of the cost
of a new struct.
"""

from __future__ import annotations

import itertools
import keyword
from collections.abc import Callable, Iterator
from typing import Any

from ..frontend.errors import P4TypeError
from ..frontend.types import (
    BitT,
    BoolT,
    EnumT,
    HeaderT,
    HeaderUnionT,
    StackT,
    StructLike,
    StructT,
    TupleT,
    Type,
    VarbitT,
    strip_newtype,
)
from . import native


def py_name(name: str) -> str:
    """A Python attribute name for a P4 field name."""
    if keyword.iskeyword(name) or name.startswith("_") or name in ("elems",):
        return f"f_{name}"
    return name


class HeaderStack:
    """A header stack: fixed-size list of headers plus the next index (spec 8.18)."""

    __slots__ = ("elems", "next_index")

    def __init__(self, elems: list[Any]) -> None:
        self.elems = elems
        self.next_index = 0

    def _copy(self) -> HeaderStack:
        s = HeaderStack([e._copy() for e in self.elems])
        s.next_index = self.next_index
        return s

    def _set(self, other: HeaderStack) -> None:
        for mine, theirs in zip(self.elems, other.elems, strict=True):
            mine._set(theirs)
        self.next_index = other.next_index

    def _clear(self) -> None:
        """Back to the zero value (every element invalid), in place."""
        for elem in self.elems:
            elem._clear()
        self.next_index = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeaderStack) and self.elems == other.elems

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"HeaderStack({self.elems!r}, next={self.next_index})"


class SharedZeroStack(HeaderStack):
    """The zero value of a stack type, which a struct's stack field starts as: never
    written (a copy of it is an ordinary ``HeaderStack``)."""

    __slots__ = ()


def shares_zero(container: Type, field_type: Type) -> bool:
    """Whether a field of type ``field_type`` of a ``container`` starts as a shared
    zero: a header, or a stack of headers, directly in a struct (not in a header union
    or stack)."""
    t = _strip(field_type)
    return isinstance(_strip(container), StructT) and (
        isinstance(t, HeaderT) or isinstance(t, StackT) and isinstance(_strip(t.elem), HeaderT))


def owned(obj: Any, name: str) -> Any:
    """``obj.name``, first replaced by a copy of its own if it is a shared zero header
    or stack: for Python code that writes into a struct's header (the generated code
    does the same inline)."""
    value = getattr(obj, name)
    if value is getattr(type(value), "_zero", None) or type(value) is SharedZeroStack:
        value = value._copy()
        setattr(obj, name, value)
    return value


class ValueFactory:
    """Builds (once per type) the Python class of each header/struct/union type."""

    def __init__(self) -> None:
        self._classes: dict[Any, type] = {}
        self._zero_stacks: dict[tuple[type, int], SharedZeroStack] = {}
        self._prototypes: dict[type, Any] = {}  # class -> its Prototype, or None

    def default_expr(self, t: Type) -> str:
        """Python source creating the zero value of type `t` (used by generated code)."""
        t = _strip(t)
        if isinstance(t, BoolT):
            return "False"
        if isinstance(t, StructLike):
            return f"{self.class_name(t)}()"
        if isinstance(t, StackT):
            elem = self.default_expr(t.elem)
            return f"_HeaderStack([{', '.join([elem] * t.size)}])"
        if isinstance(t, TupleT):
            return "(" + "".join(self.default_expr(e) + ", " for e in t.elems) + ")"
        return "0"

    def class_name(self, t: StructLike) -> str:
        cls = self.class_for(t)
        return cls.__name__

    def classes(self) -> dict[str, type]:
        return {cls.__name__: cls for cls in self._classes.values()}

    def shared_zero(self, t: HeaderT | StackT) -> tuple[str, Any]:
        """The shared zero of a header or header stack type (see ``shares_zero``) and
        the name generated code gives it."""
        if isinstance(t, StackT):
            elem = self.class_for(_strip(t.elem))
            zero = self._zero_stacks.get((elem, t.size))
            if zero is None:
                zero = SharedZeroStack([elem() for _ in range(t.size)])
                self._zero_stacks[(elem, t.size)] = zero
            return f"_ZS{t.size}{elem.__name__}", zero
        return f"_Z{self.class_name(t)}", self.class_for(t)._zero

    def constructor(self, t: StructLike) -> Callable[[], Any]:
        """What builds a zero value of struct type ``t`` (a device's headers, metadata
        and standard metadata, once per packet): the class; or, where every field's
        zero is immutable (a number, a bool, a shared zero header or stack, which
        generated code copies before writing) and the C extension is there, a
        ``_native.Prototype``'s ``new``, which copies a zero instance's slots: one call
        instead of a store per field, and the same value."""
        made = self._prototype(t)
        return self.class_for(t) if made is None else made.new

    def _prototype(self, t: StructLike) -> Any | None:
        """``t``'s ``_native.Prototype`` (see ``constructor``; made once per type, for
        every device of the program), or None: not built or switched off, or a field
        whose zero is neither immutable nor a struct that has one itself (a header
        union, a header of a header union, a stack in a union or header)."""
        prototype = native.prototype_class()
        if prototype is None or not isinstance(t, StructT):
            return None
        cls = self.class_for(t)
        if cls not in self._prototypes:
            self._prototypes[cls] = self._make_prototype(prototype, t, cls)
        return self._prototypes[cls]

    def _make_prototype(self, prototype: Any, t: StructT, cls: type) -> Any | None:
        nested = {}
        for f, ft in t.fields:
            inner = _strip(ft)
            if shares_zero(t, inner):
                continue
            if isinstance(inner, StructT):
                child = self._prototype(inner)
                if child is None:
                    return None
                nested[py_name(f)] = child
            elif isinstance(inner, StructLike | StackT | TupleT):
                return None
        return prototype(cls(), [s for s in cls.__slots__ if s not in nested], nested)

    def class_for(self, t: StructLike) -> type:
        key = (type(t).__name__, t.name, id(t.decl), tuple(t.fields) if t.decl is None else ())
        cls = self._classes.get(key)
        if cls is None:
            cls = self._build(t, len(self._classes))
            self._classes[key] = cls
        return cls

    def _build(self, t: StructLike, serial: int) -> type:
        kind = {HeaderT: "H", HeaderUnionT: "U", StructT: "S"}.get(type(t), "S")
        safe = "".join(c if c.isalnum() else "_" for c in t.name)
        name = f"_{kind}{serial}_{safe}"
        fields = [(py_name(f), ft) for f, ft in t.fields]
        slots = [f for f, _ in fields]
        varbits = [f for f, ft in fields if isinstance(ft, VarbitT)]
        if len(varbits) > 1:
            # p4c's front end accepts the type (its issue2445.p4); BMv2 refuses it too.
            raise P4TypeError(f"bm does not support a header with more than one varbit "
                              f"field yet: {t.name}", getattr(t.decl, "loc", None))
        is_header = isinstance(t, HeaderT)
        if is_header:
            slots.append("_valid")
        slots.extend(f"_w_{f}" for f in varbits)
        ns: dict[str, Any] = {"_HeaderStack": HeaderStack, "_new": object.__new__}
        for _, ft in fields:
            inner = _strip(ft)
            if isinstance(inner, StructLike):
                ns[self.class_name(inner)] = self.class_for(inner)
            if isinstance(inner, StackT) and isinstance(inner.elem, StructLike):
                ns[self.class_name(inner.elem)] = self.class_for(inner.elem)
            if shares_zero(t, inner):
                zname, zero = self.shared_zero(inner)
                ns[zname] = zero
        # __init__ and _copy build nested headers and structs in place (object.__new__
        # and slot stores), not through their classes: a program's headers struct holds
        # tens of headers, and a Python call per header was most of its cost per packet.
        temps = (f"v{i}" for i in itertools.count())
        init = [f"        {line}" for line in self._fill_lines(t, "self", ns, temps)]
        copy_lines = [f"        {line}"
                      for line in self._copy_fields(t, "self", "n", ns, temps, slots)]
        set_lines, clear_lines = [], []
        for f in slots:
            ft = dict(fields).get(f)
            composite = ft is not None and isinstance(_strip(ft), StructLike | StackT)
            if ft is not None and shares_zero(t, ft):
                z, _ = self.shared_zero(_strip(ft))
                set_lines += [f"        v = o.{f}",
                              f"        if v is {z}:",
                              f"            if self.{f} is not {z}: self.{f}._clear()",
                              f"        elif self.{f} is {z}: self.{f} = v._copy()",
                              f"        else: self.{f}._set(v)"]
                clear_lines.append(f"        if self.{f} is not {z}: self.{f}._clear()")
                continue
            set_lines.append(f"        self.{f}._set(o.{f})" if composite
                             else f"        self.{f} = o.{f}")
            # _clear: the zero value in place, without building one to copy from
            # (setInvalid, an `out` parameter, a header union's other members).
            zero = ("False" if f == "_valid" else "0" if ft is None
                    else self.default_expr(ft))
            clear_lines.append(f"        self.{f}._clear()" if composite
                               else f"        self.{f} = {zero}")
        src = [f"class {name}:", f"    __slots__ = {tuple(slots)!r}", "    def __init__(self):"]
        src += init or ["        pass"]
        src += ["    def _copy(self):", f"        n = {name}.__new__({name})"]
        src += copy_lines + ["        return n", "    def _set(self, o):"]
        src += set_lines or ["        pass"]
        src += ["    def _clear(self):"] + (clear_lines or ["        pass"])
        eq_fields = [f for f, _ in fields]
        if is_header:
            src += ["    def __eq__(self, o):",
                    "        if self._valid != o._valid: return False",
                    "        if not self._valid: return True",
                    "        return " + (" and ".join(f"self.{f} == o.{f}" for f in eq_fields)
                                         or "True")]
        else:
            src += ["    def __eq__(self, o):",
                    "        return " + (" and ".join(f"self.{f} == o.{f}" for f in eq_fields)
                                         or "True")]
        src += ["    __hash__ = None",
                "    def __repr__(self):",
                f"        return '{t.name}(' + ', '.join(f'{{k}}={{getattr(self, k)!r}}' "
                f"for k in {name}.__slots__) + ')'"]
        exec(compile("\n".join(src), f"<p4 type {t.name}>", "exec"), ns)  # noqa: S102
        cls = ns[name]
        cls.p4_type = t
        if is_header:
            cls._zero = cls()
        return cls


    def _fill_lines(self, t: StructLike, var: str, ns: dict[str, Any],
                    temps: Iterator[str]) -> list[str]:
        """Statements giving every field of ``var`` (an instance of ``t``'s class) its
        zero value, nested headers and structs built in place."""
        lines = []
        for f, ft in t.fields:
            inner = _strip(ft)
            if shares_zero(t, inner):
                zero, ns[zero] = self.shared_zero(inner)
                lines.append(f"{var}.{py_name(f)} = {zero}")
            elif isinstance(inner, StructLike | StackT):
                sub = next(temps)
                lines += self._zero_lines(inner, sub, ns, temps)
                lines.append(f"{var}.{py_name(f)} = {sub}")
            else:
                lines.append(f"{var}.{py_name(f)} = {self.default_expr(ft)}")
        if isinstance(t, HeaderT):
            lines.append(f"{var}._valid = False")
        lines += [f"{var}._w_{py_name(f)} = 0" for f, ft in t.fields if isinstance(ft, VarbitT)]
        return lines

    def _zero_lines(self, t: StructLike | StackT, var: str, ns: dict[str, Any],
                    temps: Iterator[str]) -> list[str]:
        """Statements making ``var`` the zero value of a header, struct or stack."""
        if isinstance(t, StackT):
            elems = [next(temps) for _ in range(t.size)]
            lines = []
            for elem in elems:
                lines += self._zero_lines(_strip(t.elem), elem, ns, temps)
            return lines + [f"{var} = _HeaderStack([{', '.join(elems)}])"]
        cls = self.class_name(t)
        ns[cls] = self.class_for(t)
        return [f"{var} = _new({cls})", *self._fill_lines(t, var, ns, temps)]

    def _copy_fields(self, t: StructLike, src: str, dst: str, ns: dict[str, Any],
                     temps: Iterator[str], slots: list[str] | None = None) -> list[str]:
        """Statements copying every slot of ``src`` into ``dst`` (of ``t``'s class, whose
        ``slots`` are given while it is being built), nested headers and structs copied
        in place."""
        lines = []
        composite = {py_name(f): _strip(ft) for f, ft in t.fields
                     if isinstance(_strip(ft), StructLike | StackT)}
        for slot in slots if slots is not None else self.class_for(t).__slots__:
            inner = composite.get(slot)
            if inner is None:
                lines.append(f"{dst}.{slot} = {src}.{slot}")
                continue
            old, new = next(temps), next(temps)
            lines.append(f"{old} = {src}.{slot}")
            if shares_zero(t, inner):
                # a shared zero header or stack stays shared: copying it is one store
                zero, ns[zero] = self.shared_zero(inner)
                lines += [f"if {old} is {zero}:", f"    {dst}.{slot} = {old}", "else:"]
                lines += [f"    {line}" for line in
                          self._copy_lines(inner, old, new, ns, temps)]
                lines.append(f"    {dst}.{slot} = {new}")
                continue
            lines += self._copy_lines(inner, old, new, ns, temps)
            lines.append(f"{dst}.{slot} = {new}")
        return lines

    def _copy_lines(self, t: StructLike | StackT, src: str, dst: str, ns: dict[str, Any],
                    temps: Iterator[str]) -> list[str]:
        """Statements making ``dst`` a deep copy of ``src`` (a header, struct or stack)."""
        if isinstance(t, StackT):
            elems = []
            lines = []
            for i in range(t.size):
                old, new = next(temps), next(temps)
                lines.append(f"{old} = {src}.elems[{i}]")
                lines += self._copy_lines(_strip(t.elem), old, new, ns, temps)
                elems.append(new)
            return lines + [f"{dst} = _HeaderStack([{', '.join(elems)}])",
                            f"{dst}.next_index = {src}.next_index"]
        cls = self.class_name(t)
        ns[cls] = self.class_for(t)
        return [f"{dst} = _new({cls})", *self._copy_fields(t, src, dst, ns, temps)]


_strip = strip_newtype


def flatten_fields(t: Type) -> list[tuple[str, Type]]:
    """Leaf fields of a struct/header in order, as dotted Python attribute paths."""
    t = _strip(t)
    if not isinstance(t, StructLike):
        return [("", t)]
    out: list[tuple[str, Type]] = []
    for f, ft in t.fields:
        for sub, st in flatten_fields(ft):
            out.append((py_name(f) + ("." + sub if sub else ""), st))
    return out


def bit_width(t: Type) -> int:
    t = _strip(t)
    if isinstance(t, BitT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT):
        return t.underlying.width if t.underlying is not None else 32
    if isinstance(t, VarbitT):
        return t.max_width
    return 32
