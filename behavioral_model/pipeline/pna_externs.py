"""Calls of pna.p4 externs to Python source, with BMv2 pna_nic's semantics.

`send_to_port` and `drop_packet` are the forwarding functions (pna.p4: the last one
called wins); `Register.read` returns the cell (0 out of range, as BMv2 registers
read); `Counter.count` counts packets and bytes as its type says; `Random.read` draws
from the constructor's inclusive range; `Digest.pack` sends one message named, as in
P4Info, after the Digest instance. Externs BMv2 pna_nic does not implement
(`recirculate`, `mirror_packet`, ...) are refused by name at compile time.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import qualify


class PnaExternGenMixin:
    arch: str
    checked: Any
    w: Any
    block: Any

    def _f_send_to_port(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.dest = {self.expr(args[0])}")  # type: ignore[attr-defined]
        self.w.line("pk.drop = False")
        return ""

    def _f_drop_packet(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line("pk.drop = True")
        return ""

    def _f_recirculate(self, call: ast.MethodCallExpr, args: list) -> str:
        if self.arch == "pna":
            raise P4TypeError("recirculate() is not supported on PNA by this target "
                              "(BMv2 pna_nic has no recirculation primitive)", call.loc)
        return super()._f_recirculate(call, args)  # type: ignore[misc]

    def _x_Register_read(self, call: ast.MethodCallExpr, args: list) -> str:
        reg = self._instance(call, "register")  # type: ignore[attr-defined]
        return f"{reg}.read({self.expr(args[0])})"  # type: ignore[attr-defined]

    def _x_Register_write(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._x_register_write(call, args)  # type: ignore[attr-defined]

    def _x_Counter_count(self, call: ast.MethodCallExpr, args: list) -> str:
        ctr = self._instance(call, "counter")  # type: ignore[attr-defined]
        size = (self.expr(args[1]) if len(args) > 1 and args[1] is not None  # type: ignore
                else "pk.sm.packet_length")
        self.w.line(f"{ctr}.count({self.expr(args[0])}, {size})")  # type: ignore
        return ""

    def _x_Random_read(self, call: ast.MethodCallExpr, args: list) -> str:
        decl = self._receiver_decl(call)
        try:
            lo, hi = (int(evaluate(a.value)) for a in decl.args)
        except (NotConstant, TypeError, ValueError):
            raise P4TypeError("Random's bounds must be compile-time constants",
                              decl.loc) from None
        return f"pk.random({lo}, {hi})"

    def _x_Digest_pack(self, call: ast.MethodCallExpr, args: list) -> str:
        decl = self._receiver_decl(call)
        top = any(decl is d for d in self.checked.program.decls)
        name = qualify("" if top else self.block.path, decl)
        self.w.line(f"pk.digest({name!r}, {self.digest_value(args[0])})")  # type: ignore
        return ""

    def _receiver_decl(self, call: ast.MethodCallExpr) -> ast.InstantiationDecl:
        recv = call.target.receiver
        decl = recv.decl if isinstance(recv, ast.PathExpr) else None
        if not isinstance(decl, ast.InstantiationDecl):
            raise P4TypeError("extern instance must be named directly", call.loc)
        return decl
