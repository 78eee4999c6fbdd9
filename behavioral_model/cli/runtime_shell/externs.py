"""Counters, meters and registers: ``counter_read``, ``counter_write``,
``counter_reset``, ``meter_set_rates``, ``meter_get_rates``, ``register_read``,
``register_write``, ``register_reset``.

A direct counter or meter is addressed by the handle of a table entry (``table_dump``
shows them), as in BMv2's CLI. Meter rates are in units per microsecond, as BMv2
writes them (``0.0001:100`` is 100 units/s with a burst of 100); P4Runtime wants
units per second.
"""

from __future__ import annotations

from p4.v1 import p4data_pb2, p4runtime_pb2

from behavioral_model.cli.runtime_shell.context import (
    MODIFY,
    Command,
    CommandError,
    ShellContext,
    expect_args,
)
from behavioral_model.cli.runtime_shell.syntax import number, value
from behavioral_model.cli.runtime_shell.tables import TableCommands
from p4rt_client import UnknownNameError, decode_value, encode_value

__all__ = ["ExternCommands"]

_US_PER_S = 1_000_000


class ExternCommands:
    def __init__(self, ctx: ShellContext, tables: TableCommands) -> None:
        self.ctx = ctx
        self.tables = tables

    def commands(self) -> list[Command]:
        return [
            Command("counter_read", "<counter> <index | entry handle>",
                    "read a counter cell", self.counter_read),
            Command("counter_write", "<counter> <index | entry handle> <packets> <bytes>",
                    "write a counter cell", self.counter_write),
            Command("counter_reset", "<counter>", "zero every cell of a counter",
                    self.counter_reset),
            Command("meter_set_rates", "<meter> <index | entry handle> <rate>:<burst> "
                    "<rate>:<burst>", "configure a meter cell (committed, then peak; "
                    "rates per microsecond)", self.meter_set_rates),
            Command("meter_get_rates", "<meter> <index | entry handle>",
                    "show a meter cell's configuration", self.meter_get_rates),
            Command("register_read", "<register> [index]",
                    "read a register cell (or all of them)", self.register_read),
            Command("register_write", "<register> <index> <value>",
                    "write a register cell", self.register_write),
            Command("register_reset", "<register>", "zero every cell of a register",
                    self.register_reset),
        ]

    # -- addressing -------------------------------------------------------------------
    def _direct(self, kind: str, name: str) -> object | None:
        """The direct counter or meter ``name``, or None if ``name`` is indexed."""
        helper = self.ctx.helper
        try:
            helper.get(kind, name)
            return None
        except UnknownNameError:
            return helper.get(f"direct_{kind}", name)

    def _cell(self, kind: str, name: str, index_text: str) -> p4runtime_pb2.Entity:
        """The CounterEntry / DirectCounterEntry (``kind`` "counters") or MeterEntry /
        DirectMeterEntry ("meters") of one cell, as an Entity."""
        helper = self.ctx.helper
        entity = p4runtime_pb2.Entity()
        direct = self._direct(kind, name)
        if direct is None:
            info = helper.get(kind, name)
            index = number(index_text, "index")
            if not 0 <= index < info.size:
                raise CommandError(f"index {index} is outside {info.preamble.name}'s "
                                   f"0..{info.size - 1}")
            cell = entity.counter_entry if kind == "counters" else entity.meter_entry
            if kind == "counters":
                cell.counter_id = info.preamble.id
            else:
                cell.meter_id = info.preamble.id
            cell.index.index = index
            return entity
        table = helper.by_id(direct.direct_table_id)  # type: ignore[attr-defined]
        entry = self.tables.entry_of(table, index_text)
        cell = (entity.direct_counter_entry if kind == "counters"
                else entity.direct_meter_entry)
        cell.table_entry.CopyFrom(entry)
        return entity

    @staticmethod
    def _part(entity: p4runtime_pb2.Entity) -> object:
        return getattr(entity, entity.WhichOneof("entity"))

    # -- counters ---------------------------------------------------------------------
    def counter_read(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "counter_read <counter> <index | entry handle>")
        (found,) = self.ctx.read(self._cell("counters", words[0], words[1]))
        data = self._part(found).data  # type: ignore[attr-defined]
        self.ctx.out(f"{words[0]}[{words[1]}]= packets={data.packet_count}, "
                     f"bytes={data.byte_count}")

    def counter_write(self, words: list[str]) -> None:
        expect_args(words, 4, 4, "counter_write <counter> <index | entry handle> "
                    "<packets> <bytes>")
        entity = self._cell("counters", words[0], words[1])
        data = self._part(entity).data  # type: ignore[attr-defined]
        data.packet_count = number(words[2], "packets")
        data.byte_count = number(words[3], "bytes")
        self.ctx.write(MODIFY, entity)

    def counter_reset(self, words: list[str]) -> None:
        """Every cell is written with zeros, in one batch: wildcard counter writes are
        not served by every target."""
        expect_args(words, 1, 1, "counter_reset <counter>")
        helper = self.ctx.helper
        direct = self._direct("counters", words[0])
        cells: list[p4runtime_pb2.Entity] = []
        if direct is None:
            info = helper.get("counters", words[0])
            for index in range(info.size):
                entity = p4runtime_pb2.Entity()
                entity.counter_entry.counter_id = info.preamble.id
                entity.counter_entry.index.index = index
                entity.counter_entry.data.SetInParent()
                cells.append(entity)
        else:
            table_id = direct.direct_table_id  # type: ignore[attr-defined]
            for found in self.ctx.read(p4runtime_pb2.TableEntry(table_id=table_id)):
                if found.table_entry.is_default_action:
                    continue
                entity = p4runtime_pb2.Entity()
                entity.direct_counter_entry.table_entry.CopyFrom(found.table_entry)
                entity.direct_counter_entry.table_entry.ClearField("action")
                entity.direct_counter_entry.table_entry.ClearField("counter_data")
                entity.direct_counter_entry.data.SetInParent()
                cells.append(entity)
        self.ctx.write(MODIFY, *cells)

    # -- meters -----------------------------------------------------------------------
    @staticmethod
    def _rate(text: str) -> tuple[int, int]:
        rate, colon, burst = text.partition(":")
        try:
            per_us = float(rate)
        except ValueError:
            per_us = -1.0
        if not colon or per_us < 0:
            raise CommandError(f"'{text}': expected <rate>:<burst> (rate per microsecond)")
        return round(per_us * _US_PER_S), number(burst, "burst")

    def meter_set_rates(self, words: list[str]) -> None:
        expect_args(words, 4, 4, "meter_set_rates <meter> <index | entry handle> "
                    "<rate>:<burst> <rate>:<burst>")
        entity = self._cell("meters", words[0], words[1])
        config = self._part(entity).config  # type: ignore[attr-defined]
        (config.cir, config.cburst), (config.pir, config.pburst) = (
            self._rate(words[2]), self._rate(words[3]))
        self.ctx.write(MODIFY, entity)

    def meter_get_rates(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "meter_get_rates <meter> <index | entry handle>")
        (found,) = self.ctx.read(self._cell("meters", words[0], words[1]))
        part = self._part(found)
        if not part.HasField("config"):  # type: ignore[attr-defined]
            self.ctx.out(f"{words[0]}[{words[1]}]: not configured (all packets green)")
            return
        config = part.config  # type: ignore[attr-defined]
        for band, (rate, burst) in enumerate(((config.cir, config.cburst),
                                              (config.pir, config.pburst))):
            self.ctx.out(f"{band}: info rate = {rate / _US_PER_S:g}, burst size = {burst}")

    # -- registers --------------------------------------------------------------------
    def _register(self, name: str, index_text: str | None) -> p4runtime_pb2.RegisterEntry:
        info = self.ctx.helper.get("registers", name)
        entry = p4runtime_pb2.RegisterEntry(register_id=info.preamble.id)
        if index_text is not None:
            index = number(index_text, "index")
            if not 0 <= index < info.size:
                raise CommandError(f"index {index} is outside {info.preamble.name}'s "
                                   f"0..{info.size - 1}")
            entry.index.index = index
        return entry

    def _register_width(self, name: str) -> int:
        spec = self.ctx.helper.get("registers", name).type_spec
        if spec.WhichOneof("type_spec") != "bitstring":
            raise CommandError(f"register {name}: only bit<W> cells are supported")
        bits = spec.bitstring
        return int(getattr(bits, bits.WhichOneof("type_spec")).bitwidth)

    def register_read(self, words: list[str]) -> None:
        expect_args(words, 1, 2, "register_read <register> [index]")
        found = self.ctx.read(self._register(words[0], words[1] if len(words) > 1 else None))
        cells = sorted((e.register_entry.index.index,
                        decode_value(e.register_entry.data.bitstring)) for e in found)
        if len(words) > 1:
            self.ctx.out(f"{words[0]}[{words[1]}]= {cells[0][1] if cells else 0}")
        else:
            self.ctx.out(f"{words[0]}= " + ", ".join(str(v) for _, v in cells))

    def _write_register(self, name: str, index: str | None, cell_value: int) -> None:
        entry = self._register(name, index)
        entry.data.CopyFrom(p4data_pb2.P4Data(
            bitstring=encode_value(cell_value, self._register_width(name))))
        self.ctx.write(MODIFY, entry)

    def register_write(self, words: list[str]) -> None:
        expect_args(words, 3, 3, "register_write <register> <index> <value>")
        self._write_register(words[0], words[1], value(words[2], "value"))

    def register_reset(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "register_reset <register>")
        self._write_register(words[0], None, 0)
