"""Python source emission for the pipeline compiler: the line buffer, fresh names, and
the compile-once module that generated functions live in.

The compiler turns each parser and control into Python source once per program; the
source is compiled to a code object and executed against a device state's objects
(tables, registers, ...) whenever a device is instantiated.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StateBinding:
    """A global of the generated module that refers to a device-state object."""

    pyname: str
    kind: str  # 'table', 'register', 'counter', 'meter', 'direct_counter', 'direct_meter'
    name: str  # the object's control-plane name


@dataclass
class Module:
    """Source lines and globals of the generated module."""

    lines: list[str] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)
    bindings: list[StateBinding] = field(default_factory=list)
    _counter: int = 0

    def fresh(self, hint: str = "t") -> str:
        self._counter += 1
        safe = "".join(c if c.isalnum() else "_" for c in hint)[:24]
        return f"_{safe}_{self._counter}"

    def constant(self, value: Any, hint: str = "k") -> str:
        for name, v in self.constants.items():
            if v is value:
                return name
        name = self.fresh(hint)
        self.constants[name] = value
        return name

    def bind(self, kind: str, name: str) -> str:
        for b in self.bindings:
            if b.kind == kind and b.name == name:
                return b.pyname
        pyname = self.fresh(f"{kind}_{name.rsplit('.', 1)[-1]}")
        self.bindings.append(StateBinding(pyname, kind, name))
        return pyname

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"


class Writer:
    """Indented line writer into a module. ``owned`` holds, per open block, the
    expressions whose shared zero header (values.py) code already written at that
    block or an enclosing one has replaced: on every path to the next line they hold a
    header of their own, which stays theirs (a shared zero is stored back only into an
    expression no open block holds, by ``setInvalid``)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.level = 0
        self.owned: list[set[str]] = [set()]

    def claim(self, code: str) -> bool:
        """Whether ``code``'s header still needs the check (then it is recorded)."""
        if code in self.owned[-1]:
            return False
        self.owned[-1].add(code)
        return True

    def line(self, text: str) -> None:
        self.module.lines.append("    " * self.level + text)

    @contextmanager
    def indent(self) -> Iterator[None]:
        self.level += 1
        self.owned.append(set(self.owned[-1]))
        start = len(self.module.lines)
        try:
            yield
        finally:
            if len(self.module.lines) == start:
                self.module.lines.append("    " * self.level + "pass")
            self.level -= 1
            self.owned.pop()
