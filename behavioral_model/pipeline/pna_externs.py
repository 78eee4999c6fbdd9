"""Calls of pna.p4 externs to Python source, with BMv2 pna_nic's semantics.

`send_to_port` and `drop_packet` are the forwarding functions (pna.p4: the last one
called wins); `Register.read` returns the cell (0 out of range, as BMv2 registers
read); `Counter.count` counts packets and bytes as its type says; `Random.read` draws
from the constructor's inclusive range; `Digest.pack` sends one message named, as in
P4Info, after the Digest instance. Direct counters and meters count and colour on
every hit of their table, as BMv2 does. `Hash` and action selectors use the target's
default algorithm, which for bm is crc32. Externs BMv2 pna_nic does not implement
(`recirculate`, `mirror_packet`, colour-aware meters, ...) are refused at compile time.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import qualify
from ..frontend.types import BitT
from .exprgen import strip

# Our meters colour as v1model does (0 GREEN, 1 YELLOW, 2 RED); pna.p4 declares
# PNA_MeterColor_t { RED, GREEN, YELLOW }, so its members are 0 RED, 1 GREEN, 2 YELLOW.
_TO_PNA_COLOR = "(1, 2, 0)"
# PNA_HashAlgorithm_t's only member, the target's choice.
_DEFAULT_HASH = "crc32"


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
        return self.register_read(reg, self.expr(args[0]))  # type: ignore[attr-defined]

    def _x_Register_write(self, call: ast.MethodCallExpr, args: list) -> str:
        return self._x_register_write(call, args)  # type: ignore[attr-defined]

    def _x_Counter_count(self, call: ast.MethodCallExpr, args: list) -> str:
        ctr = self._instance(call, "counter")  # type: ignore[attr-defined]
        size = (self.expr(args[1]) if len(args) > 1 and args[1] is not None  # type: ignore
                else "pk.sm.packet_length")
        self.counter_count(ctr, self.expr(args[0]), size)  # type: ignore[attr-defined]
        return ""

    def _x_DirectCounter_count(self, call: ast.MethodCallExpr, args: list) -> str:
        return ""  # counted on every hit of its table (PacketContext.table_hit)

    def _x_Meter_execute(self, call: ast.MethodCallExpr, args: list) -> str:
        if len(args) > 1:
            raise P4TypeError("colour-aware Meter.execute is not supported by this target",
                              call.loc)
        mtr = self._instance(call, "meter")  # type: ignore[attr-defined]
        return (f"{_TO_PNA_COLOR}[pk.execute_meter({mtr}, "  # type: ignore[attr-defined]
                f"{self.expr(args[0])})]")

    def _x_DirectMeter_execute(self, call: ast.MethodCallExpr, args: list) -> str:
        if args:
            raise P4TypeError("colour-aware DirectMeter.execute is not supported by this "
                              "target", call.loc)
        return f"{_TO_PNA_COLOR}[pk.meter_color]"

    def _x_Hash_get_hash(self, call: ast.MethodCallExpr, args: list) -> str:
        t = strip(call.type)
        width = t.width if isinstance(t, BitT) else 32
        if len(args) == 1:
            # The hash itself: h % (2^64 - 1) is h for crc32's 32-bit values.
            return (f"_hash({_DEFAULT_HASH!r}, {self.field_list(args[0])}, 0, "  # type: ignore
                    f"{(1 << 64) - 1}, {width}, pk)")
        base, data, max_ = args
        return (f"_hash({_DEFAULT_HASH!r}, {self.field_list(data)}, "  # type: ignore
                f"{self.expr(base)}, {self.expr(max_)}, {width}, pk)")  # type: ignore

    # InternetChecksum: a ones' complement sum per instance and packet (RFC 1624).
    def _x_InternetChecksum_clear(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.csum_set({self._receiver_name(call)!r}, 0)")
        return ""

    def _x_InternetChecksum_add(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.csum_add({self._receiver_name(call)!r}, "
                    f"{self.field_list(args[0])}, False)")  # type: ignore[attr-defined]
        return ""

    def _x_InternetChecksum_subtract(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.csum_add({self._receiver_name(call)!r}, "
                    f"{self.field_list(args[0])}, True)")  # type: ignore[attr-defined]
        return ""

    def _x_InternetChecksum_get(self, call: ast.MethodCallExpr, args: list) -> str:
        return f"(~pk.csum_state({self._receiver_name(call)!r}) & 0xFFFF)"

    def _x_InternetChecksum_get_state(self, call: ast.MethodCallExpr, args: list) -> str:
        return f"pk.csum_state({self._receiver_name(call)!r})"

    def _x_InternetChecksum_set_state(self, call: ast.MethodCallExpr, args: list) -> str:
        self.w.line(f"pk.csum_set({self._receiver_name(call)!r}, "
                    f"{self.expr(args[0])})")  # type: ignore[attr-defined]
        return ""

    def _f_SelectByDirection(self, call: ast.MethodCallExpr, args: list) -> str:
        direction, n2h, h2n = (self.expr(a) for a in args)  # type: ignore[attr-defined]
        # PNA_Direction_t: NET_TO_HOST is member 0.
        return f"({n2h} if {direction} == 0 else {h2n})"

    def _x_Random_read(self, call: ast.MethodCallExpr, args: list) -> str:
        decl = self._receiver_decl(call)
        try:
            lo, hi = (int(evaluate(a.value)) for a in decl.args)
        except (NotConstant, TypeError, ValueError):
            raise P4TypeError("Random's bounds must be compile-time constants",
                              decl.loc) from None
        return f"pk.random({lo}, {hi})"

    def _x_Digest_pack(self, call: ast.MethodCallExpr, args: list) -> str:
        name = self._receiver_name(call)
        self.w.line(f"pk.digest({name!r}, {self.digest_value(args[0])})")  # type: ignore
        return ""

    def _receiver_name(self, call: ast.MethodCallExpr) -> str:
        """The control-plane name of the extern instance a method is called on."""
        decl = self._receiver_decl(call)
        top = any(decl is d for d in self.checked.program.decls)
        return qualify("" if top else self.block.path, decl)

    def _receiver_decl(self, call: ast.MethodCallExpr) -> ast.InstantiationDecl:
        recv = call.target.receiver
        decl = recv.decl if isinstance(recv, ast.PathExpr) else None
        if not isinstance(decl, ast.InstantiationDecl):
            raise P4TypeError("extern instance must be named directly", call.loc)
        return decl
