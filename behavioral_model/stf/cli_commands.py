"""The BMv2 CLI commands STF passes through, and ``check_counter``.

``counter_*``, ``register_*``, ``meter_*``, ``mirroring_*`` and ``mc_*`` act on the
device state like ``simple_switch_CLI``; the read commands only log what they read.
Direct counters and meters are addressed by an entry handle (see ``table_commands``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from behavioral_model.runtime.externs import CounterArray, MeterArray, MeterConfig, TrTcmMeter
from behavioral_model.runtime.pre import CloneSession
from behavioral_model.runtime.state import DirectResource
from behavioral_model.stf import commands as cmd
from behavioral_model.stf.resolve import resolve_counter, resolve_extern, resolve_meter
from behavioral_model.stf.run_context import CommandFailed, RunContext
from behavioral_model.stf.table_commands import TableCommands

__all__ = ["CliCommands"]

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class CliCommands:
    """Counters, registers, meters, clone sessions and multicast groups."""

    def __init__(self, ctx: RunContext, tables: TableCommands) -> None:
        self.ctx = ctx
        self.tables = tables

    def handlers(self) -> dict[type, Callable[[Any], None]]:
        return {
            cmd.CheckCounter: self._check_counter,
            cmd.MirroringAdd: self._mirroring_add,
            cmd.MirroringAddMc: self._mirroring_add_mc,
            cmd.MirroringDelete: self._mirroring_delete,
            cmd.MirroringGet: self._mirroring_get,
            cmd.McGroupCreate: lambda c: self.ctx.state.pre.create_group(c.group),
            cmd.McGroupDestroy: lambda c: self.ctx.state.pre.delete_group(c.group),
            cmd.McNodeCreate: self._mc_node_create,
            cmd.McNodeUpdate: lambda c: self.ctx.state.pre.update_node(c.handle, c.ports),
            cmd.McNodeAssociate: lambda c: self.ctx.state.pre.associate_node(c.group, c.handle),
            cmd.McNodeDissociate: lambda c: self.ctx.state.pre.dissociate_node(c.group, c.handle),
            cmd.McNodeDestroy: lambda c: self.ctx.state.pre.destroy_node(c.handle),
            cmd.CounterRead: self._counter_read,
            cmd.CounterWrite: self._counter_write,
            cmd.CounterReset: self._counter_reset,
            cmd.RegisterRead: self._register_read,
            cmd.RegisterWrite: self._register_write,
            cmd.RegisterReset: self._register_reset,
            cmd.MeterGetRates: self._meter_get_rates,
            cmd.MeterSetRates: self._meter_set_rates,
            cmd.MeterArraySetRates: self._meter_array_set_rates,
        }

    # -- counters ----------------------------------------------------------------------

    def _counter_values(self, name: str, index: int | str) -> tuple[str, int, int]:
        full, counter = resolve_counter(self.ctx.state, name)
        if isinstance(counter, DirectResource):
            cell = self.tables.entry_for(counter, index).direct_counter
            return f"{full}({index})", cell.packets, cell.bytes
        if isinstance(index, str):
            raise CommandFailed(f"counter '{full}' is indexed: give a number, not handle '{index}'")
        packets, nbytes = counter.read(index)
        return f"{full}[{index}]", packets, nbytes

    def _check_counter(self, c: cmd.CheckCounter) -> None:
        shown, packets, nbytes = self._counter_values(c.counter, c.index)
        compare = _COMPARE[c.op]
        checks = [("packets", packets), ("bytes", nbytes)] if c.kind is None else [
            (c.kind, packets if c.kind == "packets" else nbytes)]
        for kind, actual in checks:
            if not compare(actual, c.value):
                raise CommandFailed(f"counter {shown}: {kind} is {actual}, expected "
                                    f"{c.op} {c.value}")
        self.ctx.log(f"counter {shown}: {packets} packets, {nbytes} bytes (ok)")

    def _counter_read(self, c: cmd.CounterRead) -> None:
        shown, packets, nbytes = self._counter_values(c.counter, c.index)
        self.ctx.log(f"counter {shown}: {packets} packets, {nbytes} bytes")

    def _counter_write(self, c: cmd.CounterWrite) -> None:
        full, counter = resolve_counter(self.ctx.state, c.counter)
        if isinstance(counter, DirectResource):
            cell = self.tables.entry_for(counter, c.index).direct_counter
            cell.packets, cell.bytes = c.packets, c.bytes
        else:
            counter.write(c.index, c.packets, c.bytes)

    def _counter_reset(self, c: cmd.CounterReset) -> None:
        full, counter = resolve_counter(self.ctx.state, c.counter)
        if isinstance(counter, CounterArray):
            counter.reset()
            return
        for entry in self.ctx.state.tables[counter.table].entries():
            entry.direct_counter.packets = entry.direct_counter.bytes = 0

    # -- registers ---------------------------------------------------------------------

    def _register_read(self, c: cmd.RegisterRead) -> None:
        full, register = resolve_extern(self.ctx.state.registers, c.register, "register")
        self.ctx.log(f"register {full}[{c.index}] = {register.read_checked(c.index)}")

    def _register_write(self, c: cmd.RegisterWrite) -> None:
        full, register = resolve_extern(self.ctx.state.registers, c.register, "register")
        register.write_checked(c.index, c.value)

    def _register_reset(self, c: cmd.RegisterReset) -> None:
        full, register = resolve_extern(self.ctx.state.registers, c.register, "register")
        register.reset()

    # -- meters ------------------------------------------------------------------------

    @staticmethod
    def _meter_config(rates: Sequence[cmd.MeterRate]) -> MeterConfig:
        if len(rates) != 2:
            raise CommandFailed(f"a meter needs 2 RATE:BURST pairs (committed, peak), "
                                f"got {len(rates)}")
        committed, peak = rates
        return MeterConfig.from_rates_per_us(
            (committed.rate_per_us, committed.burst), (peak.rate_per_us, peak.burst))

    def _meter_set_rates(self, c: cmd.MeterSetRates) -> None:
        config = self._meter_config(c.rates)
        full, meter = resolve_meter(self.ctx.state, c.meter)
        if isinstance(meter, MeterArray):
            meter.set_config(c.index, config)
        else:
            self.tables.entry_for(meter, c.index).direct_meter = TrTcmMeter(config)

    def _meter_array_set_rates(self, c: cmd.MeterArraySetRates) -> None:
        config = self._meter_config(c.rates)
        full, meter = resolve_meter(self.ctx.state, c.meter)
        if not isinstance(meter, MeterArray):
            raise CommandFailed(f"'{full}' is a direct meter; use meter_set_rates with an "
                                "entry handle")
        meter.set_all(config)

    def _meter_get_rates(self, c: cmd.MeterGetRates) -> None:
        full, meter = resolve_meter(self.ctx.state, c.meter)
        if isinstance(meter, MeterArray):
            config = meter.get_config(c.index)
        else:
            direct = self.tables.entry_for(meter, c.index).direct_meter
            config = None if direct is None else direct.config
        rates = "unconfigured" if config is None else str(config.rates_per_us())
        self.ctx.log(f"meter {full}[{c.index}]: {rates}")

    # -- PRE ---------------------------------------------------------------------------

    def _set_session(self, session_id: int, session: CloneSession) -> None:
        pre = self.ctx.state.pre
        if pre.get_clone_session(session_id) is None:
            pre.create_clone_session(session_id, session)
        else:  # simple_switch_CLI's mirroring_add replaces an existing session
            pre.modify_clone_session(session_id, session)

    def _mirroring_add(self, c: cmd.MirroringAdd) -> None:
        self._set_session(c.session, CloneSession(egress_port=c.port))

    def _mirroring_add_mc(self, c: cmd.MirroringAddMc) -> None:
        self._set_session(c.session, CloneSession(multicast_group_id=c.group))

    def _mirroring_delete(self, c: cmd.MirroringDelete) -> None:
        self.ctx.state.pre.delete_clone_session(c.session)

    def _mirroring_get(self, c: cmd.MirroringGet) -> None:
        self.ctx.log(f"mirroring session {c.session}: "
                     f"{self.ctx.state.pre.get_clone_session(c.session)}")

    def _mc_node_create(self, c: cmd.McNodeCreate) -> None:
        handle = self.ctx.state.pre.create_node(c.rid, c.ports)
        self.ctx.log(f"multicast node {handle}: rid {c.rid}, ports {list(c.ports)}")
