"""P4Runtime ids and aliases, computed the way p4c computes them.

An id is `prefix << 24 | low24`: the 8-bit prefix names the entity kind (P4Runtime spec,
`p4.config.v1.P4Ids`), the low 24 bits are the Jenkins one-at-a-time hash of the fully
qualified name. Within one kind, names without an `@id` are hashed in sorted order and a
collision is resolved by linear probing of the 32-bit hash value, so the id a name gets
does not depend on the order declarations appear in. `@id(N)` sets the id (prefix added
when N has none). The alias is the shortest suffix of dot-separated components that no
other P4Runtime name of the program ends with.

Ids of members (match fields, action parameters, packet metadata, value set fields) are
sequential from 1 in declaration order, skipping any given with `@id`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p4.config.v1 import p4info_pb2

from . import ast
from .errors import P4Error, SourceLocation

__all__ = [
    "ACTION", "TABLE", "VALUE_SET", "CONTROLLER_HEADER", "ACTION_PROFILE", "COUNTER",
    "DIRECT_COUNTER", "METER", "DIRECT_METER", "REGISTER", "DIGEST",
    "P4InfoError", "SymbolTable", "SuffixSet", "jenkins_hash", "id_annotation",
    "member_ids",
]

_Ids = p4info_pb2.P4Ids
ACTION: int = _Ids.ACTION
TABLE: int = _Ids.TABLE
VALUE_SET: int = _Ids.VALUE_SET
CONTROLLER_HEADER: int = _Ids.CONTROLLER_HEADER
ACTION_PROFILE: int = _Ids.ACTION_PROFILE
COUNTER: int = _Ids.COUNTER
DIRECT_COUNTER: int = _Ids.DIRECT_COUNTER
METER: int = _Ids.METER
DIRECT_METER: int = _Ids.DIRECT_METER
REGISTER: int = _Ids.REGISTER
DIGEST: int = _Ids.DIGEST

_MASK32 = 0xFFFFFFFF
_PREFIX_MASK = 0xFF << 24


class P4InfoError(P4Error):
    """A program construct P4Runtime cannot describe (or an inconsistent `@id`)."""


def jenkins_hash(name: str) -> int:
    """Bob Jenkins' one-at-a-time hash of the UTF-8 bytes of `name` (32 bits)."""
    h = 0
    for byte in name.encode():
        h = (h + byte) & _MASK32
        h = (h + (h << 10)) & _MASK32
        h ^= h >> 6
    h = (h + (h << 3)) & _MASK32
    h ^= h >> 11
    h = (h + (h << 15)) & _MASK32
    return h


def id_annotation(node: ast.Annotated) -> int | None:
    """The value of `@id(N)` on `node`, or None."""
    ann = node.annotation("id")
    if ann is None:
        return None
    if len(ann.args) != 1 or not isinstance(ann.args[0], ast.IntLiteral):
        raise P4InfoError("@id needs one integer argument", ann.loc)
    value = ann.args[0].value
    if not 0 <= value <= _MASK32:
        raise P4InfoError(f"@id({value}) is not a 32-bit unsigned integer", ann.loc)
    return value


class SuffixSet:
    """Tree of name suffixes (by dot-separated component) counting the names through each."""

    def __init__(self) -> None:
        self._names: set[str] = set()
        self._root: dict[str, list[Any]] = {}  # component -> [count, children]

    def add(self, name: str) -> None:
        if name in self._names:
            return
        self._names.add(name)
        edges = self._root
        for comp in reversed(name.split(".")):
            node = edges.setdefault(comp, [0, {}])
            node[0] += 1
            edges = node[1]

    def shortest_unique_suffix(self, name: str) -> str:
        comps = name.split(".")
        needed = 0
        edges = self._root
        for comp in reversed(comps):
            node = edges[comp]
            needed += 1
            if node[0] < 2:
                break
            edges = node[1]
        return ".".join(comps[len(comps) - needed:])


@dataclass
class _Symbol:
    id: int  # 0 until assigned
    loc: SourceLocation | None


@dataclass
class SymbolTable:
    """Names visible to P4Runtime, by kind, and their ids; fill with `add`, then `assign`."""

    tables: dict[int, dict[str, _Symbol]] = field(default_factory=dict)
    suffixes: SuffixSet = field(default_factory=SuffixSet)
    _used: set[int] = field(default_factory=set)

    def add(self, kind: int, name: str, node: ast.Annotated | None = None,
            loc: SourceLocation | None = None) -> None:
        """Record `name` of `kind`; `node` may carry an `@id`. Adding twice is harmless."""
        table = self.tables.setdefault(kind, {})
        if name in table:
            return
        explicit = id_annotation(node) if node is not None else None
        loc = loc or (node.loc if node is not None else None)
        sym = _Symbol(0, loc)
        if explicit is not None:
            prefix = kind << 24
            if explicit & _PREFIX_MASK not in (0, prefix):
                raise P4InfoError(
                    f"@id(0x{explicit:08x}) of '{name}' has the wrong 8-bit prefix; "
                    f"expected 0x{kind:02x}", loc)
            explicit |= prefix
            if explicit in self._used:
                raise P4InfoError(f"@id 0x{explicit:08x} is assigned to multiple "
                                  "declarations", loc)
            self._used.add(explicit)
            sym.id = explicit
        table[name] = sym
        self.suffixes.add(name)

    def assign(self) -> None:
        """Hash every name without an `@id`, kind by kind, names in sorted order."""
        for kind in sorted(self.tables):
            table = self.tables[kind]
            for name in sorted(n for n, s in table.items() if s.id == 0):
                start = value = jenkins_hash(name)
                while True:
                    candidate = (kind << 24) | (value & 0xFFFFFF)
                    if candidate not in self._used:
                        break
                    value = (value + 1) & _MASK32
                    if value == start:
                        raise P4InfoError(f"no id left for '{name}'", table[name].loc)
                self._used.add(candidate)
                table[name].id = candidate

    def id(self, kind: int, name: str) -> int:
        return self.tables[kind][name].id

    def has(self, kind: int, name: str) -> bool:
        return name in self.tables.get(kind, {})

    def alias(self, name: str) -> str:
        return self.suffixes.shortest_unique_suffix(name)


def member_ids(members: Sequence[ast.Annotated]) -> list[int]:
    """Ids of match fields / parameters / metadata: `@id` where given, else 1, 2, ...

    As p4c: the counter advances past every member, and skips ids taken by `@id`.
    """
    assigned: set[int] = set()
    ids: list[int | None] = []
    for m in members:
        explicit = id_annotation(m)
        if explicit is not None:
            if explicit == 0:
                raise P4InfoError("0 is not a valid @id value", m.loc)
            if explicit in assigned:
                raise P4InfoError(f"@id {explicit} is used multiple times", m.loc)
            assigned.add(explicit)
        ids.append(explicit)
    out: list[int] = []
    index = 1
    for explicit in ids:
        if explicit is not None:
            out.append(explicit)
            index += 1
            continue
        while index in assigned:
            index += 1
        assigned.add(index)
        out.append(index)
    return out
