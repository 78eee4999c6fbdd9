"""Run an STF test against a program on our target, with p4c's BMv2 runner semantics.

    program = load_program("router.p4")
    result = run_stf_file(program, "router.stf")
    if not result.passed:
        print(result.report())

Semantics (p4c ``backends/bmv2/bmv2stf.py`` plus what ``simple_switch_CLI`` does with
the commands it passes through):

* Commands run in file order on one fresh device. ``packet`` processes the packet at
  once (the n-th packet at time n microseconds, which is what meters see); what
  comes out is queued per output port. ``expect PORT DATA`` adds an
  expectation for that port. Per port, the n-th expectation is compared with the n-th
  packet that came out of it, nibble by nibble (``*`` matches anything, ``$`` demands
  the exact length; without ``$`` the packet may be longer), whatever the order of the
  ``packet`` and ``expect`` lines.
* Only ports named by some ``packet`` or ``expect`` line are observed: like BMv2, which
  only has those interfaces, packets leaving on other ports are not checked (they are
  reported in ``notes``, or as failures with ``strict_ports=True``).
* On an observed port, packets beyond the expected ones are failures. A bare
  ``expect PORT`` (no data) means any number of packets of any content on that port.
* ``wait`` is a checkpoint: every expectation written so far must have been met by
  then (missing packets are reported at the ``wait``); extra packets may still be
  claimed by later ``expect`` lines. ``no_packet`` is a checkpoint that also fails on
  every packet (on any port) not expected so far. The end of the file is the final
  checkpoint.
* ``add`` resolves names as described in ``stf.resolve``; key fields left out are
  wildcards, except exact fields, which p4c's runner sets to 0. Priorities exist only
  for tables with ternary/range/optional fields (elsewhere a written priority is
  ignored, as p4c does): a larger STF priority wins. An entry written without a
  priority ranks below every entry written with one, and among themselves such
  entries rank in insertion order, the earliest first.
* ``check_counter NAME(INDEX) [packets|bytes OP VALUE]`` reads an indexed counter, or a
  direct counter at the entry named by a handle (``add ... = NAME``) or a BMv2 entry
  handle number (entries of a table numbered 0, 1, ... as added). Without the
  comparison both totals must satisfy ``== 0``.
* The BMv2 CLI commands (``mirroring_*``, ``mc_*``, ``counter_*``, ``register_*``,
  ``meter_*``) act on the device state like ``simple_switch_CLI``; the read commands
  only log what they read.

A command that cannot be carried out (unknown name, bad value, refused entry) is a
failure with its ``file:line``; the run continues with the next command.
"""

from __future__ import annotations

import operator
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.runtime.externs import CounterArray, MeterArray, MeterConfig, TrTcmMeter
from behavioral_model.runtime.matches import Exact, FieldMatch, MatchKind
from behavioral_model.runtime.pre import CloneSession
from behavioral_model.runtime.state import DirectResource
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry
from behavioral_model.stf import commands as cmd
from behavioral_model.stf.expected_packet import ExpectedPacket
from behavioral_model.stf.key_values import KeyValue, to_field_match
from behavioral_model.stf.parse import parse_stf_file
from behavioral_model.stf.resolve import (
    ActionParam,
    ResolveError,
    action_parameters,
    resolve_action,
    resolve_counter,
    resolve_extern,
    resolve_key_field,
    resolve_meter,
    resolve_table,
)

if TYPE_CHECKING:
    from behavioral_model.program import P4Program

__all__ = ["StfCounts", "StfResult", "run_stf", "run_stf_file", "EXPLICIT_PRIORITY_BASE"]

# STF priority p becomes runtime priority EXPLICIT_PRIORITY_BASE + p; entries without a
# priority get EXPLICIT_PRIORITY_BASE - 1, - 2, ... so they rank below all others.
EXPLICIT_PRIORITY_BASE = 1 << 20

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

Log = Callable[[str], None]


@dataclass
class StfCounts:
    """What a run did: commands executed, entries written, packets in and out."""

    commands: int = 0
    entries: int = 0
    packets_sent: int = 0
    packets_received: int = 0
    packets_expected: int = 0
    packets_matched: int = 0


@dataclass
class StfResult:
    """Outcome of one STF run. ``failures`` are readable, each starting with the STF
    ``file:line`` it concerns; ``notes`` are informational (e.g. unobserved output)."""

    filename: str
    failures: list[str] = field(default_factory=list)
    counts: StfCounts = field(default_factory=StfCounts)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        c = self.counts
        stats = (
            f"{c.packets_sent} packets sent, {c.packets_received} received, "
            f"{c.packets_matched}/{c.packets_expected} expected matched"
        )
        if self.passed:
            return f"{self.filename}: PASS ({stats})"
        plural = "s" if len(self.failures) != 1 else ""
        return f"{self.filename}: FAIL ({len(self.failures)} failure{plural}; {stats})"

    def report(self) -> str:
        """The failures (if any) followed by the summary line."""
        return "\n".join([*self.failures, self.summary()])


def run_stf(
    program: P4Program,
    commands: Sequence[cmd.Command],
    filename: str = "<stf>",
    *,
    strict_ports: bool = False,
    log: Log | None = None,
) -> StfResult:
    """Run parsed STF ``commands`` on a fresh device of ``program``.

    ``strict_ports`` also fails on packets leaving ports no STF line names; ``log``
    receives a trace line per command and per packet (the CLI's ``-v``).
    """
    return _Runner(program, filename, strict_ports, log).run(commands)


def run_stf_file(
    program: P4Program,
    path: str | Path,
    *,
    strict_ports: bool = False,
    log: Log | None = None,
) -> StfResult:
    """Parse and run an STF file; a file that cannot be read or parsed raises
    ``STFError`` (``file:line:col: message``)."""
    commands = parse_stf_file(path)
    return run_stf(program, commands, str(path), strict_ports=strict_ports, log=log)


# -- implementation ---------------------------------------------------------------------


class _Failed(Exception):
    """A command that cannot be carried out; the message becomes a failure."""


@dataclass
class _Output:
    data: bytes
    sent_line: int
    sent_port: int


@dataclass
class _PortLog:
    expected: list[cmd.ExpectPacket] = field(default_factory=list)
    received: list[_Output] = field(default_factory=list)
    compared: int = 0  # leading (expected, received) pairs already compared
    any_packets: bool = False


def _hex(data: bytes) -> str:
    return data.hex(" ") if data else "(empty)"


class _Runner:
    def __init__(self, program: P4Program, filename: str, strict_ports: bool,
                 log: Log | None) -> None:
        self.program = program
        self.filename = filename
        self.strict_ports = strict_ports
        self._log = log
        self.state = program.new_state()
        self.device = program.new_device(self.state)
        self.result = StfResult(filename)
        self.ports: dict[int, _PortLog] = {}
        self.unobserved: list[tuple[int, _Output]] = []
        self.clock_us = 0
        self._params: dict[str, tuple[ActionParam, ...]] | None = None
        self.handles: dict[str, tuple[Table, TableEntry]] = {}
        self.bmv2_handles: dict[str, list[TableEntry]] = {}
        self.implicit_priorities: dict[str, int] = {}
        self.line = 0
        self.handlers: dict[type, Callable[[Any], None]] = {
            cmd.AddEntry: self._add,
            cmd.RemoveEntry: self._remove,
            cmd.RemoveAll: self._remove_all,
            cmd.SetDefault: self._setdefault,
            cmd.SendPacket: self._packet,
            cmd.ExpectPacket: self._expect,
            cmd.ExpectNoPacket: self._no_packet,
            cmd.Wait: self._wait,
            cmd.CheckCounter: self._check_counter,
            cmd.MirroringAdd: self._mirroring_add,
            cmd.MirroringAddMc: self._mirroring_add_mc,
            cmd.MirroringDelete: self._mirroring_delete,
            cmd.MirroringGet: self._mirroring_get,
            cmd.McGroupCreate: lambda c: self.state.pre.create_group(c.group),
            cmd.McGroupDestroy: lambda c: self.state.pre.delete_group(c.group),
            cmd.McNodeCreate: self._mc_node_create,
            cmd.McNodeUpdate: lambda c: self.state.pre.update_node(c.handle, c.ports),
            cmd.McNodeAssociate: lambda c: self.state.pre.associate_node(c.group, c.handle),
            cmd.McNodeDissociate: lambda c: self.state.pre.dissociate_node(c.group, c.handle),
            cmd.McNodeDestroy: lambda c: self.state.pre.destroy_node(c.handle),
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

    # -- reporting ---------------------------------------------------------------------

    def where(self, line: int | None = None) -> str:
        return f"{self.filename}:{self.line if line is None else line}"

    def fail(self, message: str, line: int | None = None) -> None:
        self.result.failures.append(f"{self.where(line)}: {message}")
        self.log(f"FAILED: {message}", line)

    def log(self, message: str, line: int | None = None) -> None:
        if self._log is not None:
            self._log(f"{self.where(line)}: {message}")

    # -- driver ------------------------------------------------------------------------

    def run(self, commands: Sequence[cmd.Command]) -> StfResult:
        for command in commands:
            if isinstance(command, cmd.SendPacket | cmd.ExpectPacket):
                self.ports.setdefault(command.port, _PortLog())
        for command in commands:
            self.line = command.line
            self.result.counts.commands += 1
            handler = self.handlers.get(type(command))
            if handler is None:
                self.fail(f"the runner does not support {type(command).__name__} commands")
                continue
            try:
                handler(command)
            except (_Failed, ResolveError, RuntimeStateError) as error:
                self.fail(str(error))
            except P4Error as error:  # STFValueError from key conversion
                self.fail(error.message)
            except Exception as error:  # a bug of ours: report it, keep going
                self.fail(f"internal error running this command: "
                          f"{type(error).__name__}: {error}")
                self.log(traceback.format_exc().rstrip())
        self.line = commands[-1].line if commands else 0
        self._checkpoint(final=True)
        self._report_unobserved()
        return self.result

    # -- tables ------------------------------------------------------------------------

    def _action_params(self) -> dict[str, tuple[ActionParam, ...]]:
        if self._params is None:
            self._params = action_parameters(self.program.checked)
        return self._params

    def _matches(
        self, table: Table, keys: Sequence[tuple[str, KeyValue]]
    ) -> tuple[FieldMatch | None, ...]:
        slots: list[FieldMatch | None] = [None] * len(table.keys)
        given: dict[int, str] = {}
        for name, value in keys:
            position = resolve_key_field(table, name)
            key = table.keys[position]
            if position in given:
                raise _Failed(f"key field '{key.name}' of table '{table.name}' is given "
                              f"twice ('{given[position]}' and '{name}')")
            given[position] = name
            try:
                slots[position] = to_field_match(value, key.match_kind, key.width)
            except P4Error as error:
                raise _Failed(f"key field '{key.name}': {error.message}") from None
        for position, key in enumerate(table.keys):
            if position not in given and key.match_kind is MatchKind.EXACT:
                # p4c's runner writes 0 for exact fields the STF line leaves out.
                slots[position] = Exact(0)
                self.log(f"exact key field '{key.name}' not given: using 0")
        return tuple(slots)

    def _action(self, table: Table, name: str,
                args: Sequence[tuple[str, int]]) -> ActionCall:
        action = resolve_action(table, name)
        params = self._action_params().get(action, ())
        by_name = {p.name: p for p in params}
        values: dict[str, int] = {}
        for arg_name, value in args:
            param = by_name.get(arg_name)
            if param is None:
                known = ", ".join(p.name for p in params) or "none"
                raise _Failed(f"action '{action}' has no parameter '{arg_name}'; "
                              f"its parameters: {known}")
            if arg_name in values:
                raise _Failed(f"parameter '{arg_name}' of action '{action}' is given twice")
            if not 0 <= value < (1 << param.width):
                raise _Failed(f"value {value} for parameter '{arg_name}' of action "
                              f"'{action}' does not fit in {param.width} bits")
            values[arg_name] = value
        missing = [p.name for p in params if p.name not in values]
        if missing:
            raise _Failed(f"action '{action}' needs parameter(s) {', '.join(missing)}")
        return ActionCall(action, tuple(values[p.name] for p in params))

    def _action_text(self, action: ActionCall) -> str:
        params = self._action_params().get(action.name, ())
        args = ", ".join(f"{p.name}={v:#x}" for p, v in zip(params, action.args, strict=False))
        return f"{action.name}({args})"

    def _priority(self, table: Table, priority: int | None) -> int:
        if not table.needs_priority:
            if priority is not None:
                self.log(f"priority {priority} ignored: table '{table.name}' has no "
                         "ternary/range/optional field")
            return 0
        if priority is not None:
            return EXPLICIT_PRIORITY_BASE + priority
        rank = self.implicit_priorities.get(table.name, 0)
        self.implicit_priorities[table.name] = rank + 1
        return max(1, EXPLICIT_PRIORITY_BASE - 1 - rank)

    def _add(self, c: cmd.AddEntry) -> None:
        table = resolve_table(self.state, c.table)
        matches = self._matches(table, c.keys)
        action = self._action(table, c.action, c.args)
        priority = self._priority(table, c.priority)
        entry = table.insert(TableEntry(matches, action, priority))
        self.result.counts.entries += 1
        self.bmv2_handles.setdefault(table.name, []).append(entry)
        if c.handle is not None:
            self.handles[c.handle] = (table, entry)
        shown_priority = ""
        if priority:
            written = "none" if c.priority is None else c.priority
            shown_priority = f" priority {written} (runtime {priority})"
        self.log(f"add {table.name} {_matches_text(table, entry.matches)} -> "
                 f"{self._action_text(action)}{shown_priority}")

    def _remove(self, c: cmd.RemoveEntry) -> None:
        table = resolve_table(self.state, c.table)
        matches = table.canonical_matches(self._matches(table, c.keys))
        if not table.needs_priority or c.priority is not None:
            table.delete(matches, self._priority(table, c.priority))
            return
        found = [e for e in table.entries() if e.matches == matches and not e.is_const]
        if not found:
            raise _Failed(f"table '{table.name}': no entry with these key values")
        if len(found) > 1:
            raise _Failed(f"table '{table.name}': {len(found)} entries have these key "
                          "values; give the priority to choose one")
        table.delete(matches, found[0].priority)

    def _remove_all(self, c: cmd.RemoveAll) -> None:
        for table in self.state.tables.values():
            table.clear()
        self.handles.clear()
        self.bmv2_handles.clear()

    def _setdefault(self, c: cmd.SetDefault) -> None:
        table = resolve_table(self.state, c.table)
        action = self._action(table, c.action, c.args)
        table.set_default(action)
        self.log(f"setdefault {table.name} {self._action_text(action)}")

    # -- packets -----------------------------------------------------------------------

    def _packet(self, c: cmd.SendPacket) -> None:
        self.result.counts.packets_sent += 1
        now = self.clock_us
        self.clock_us += 1
        self.device.log_messages.clear()
        self.log(f"packet in on port {c.port}: {_hex(c.data)}")
        try:
            outputs = self.device.process(c.data, c.port, now_us=now)
        finally:
            for message in self.device.log_messages:
                self.log(f"log_msg: {message}")
        if not outputs:
            self.log("no packet out")
        for out in outputs:
            self.result.counts.packets_received += 1
            record = _Output(bytes(out.data), c.line, c.port)
            self.log(f"packet out on port {out.port}: {_hex(record.data)}")
            port_log = self.ports.get(out.port)
            if port_log is None:
                self.unobserved.append((out.port, record))
            else:
                port_log.received.append(record)

    def _expect(self, c: cmd.ExpectPacket) -> None:
        port_log = self.ports.setdefault(c.port, _PortLog())
        if c.expected is None:
            port_log.any_packets = True
            return
        self.result.counts.packets_expected += 1
        port_log.expected.append(c)

    def _wait(self, c: cmd.Wait) -> None:
        self._checkpoint(final=False)

    def _no_packet(self, c: cmd.ExpectNoPacket) -> None:
        self._checkpoint(final=False, no_extra=True)

    def _checkpoint(self, final: bool, no_extra: bool = False) -> None:
        command = "no_packet" if no_extra else "wait"
        at = "" if final else f" by the {command} at line {self.line}"
        for port, log in sorted(self.ports.items()):
            if log.any_packets:
                if log.expected and final:
                    self.result.notes.append(
                        f"{self.filename}: port {port} has a bare 'expect {port}' and "
                        "expected packets; as in p4c, any packets are accepted on it")
                continue
            pairs = min(len(log.expected), len(log.received))
            for i in range(log.compared, pairs):
                self._compare(port, i + 1, log.expected[i], log.received[i])
            log.compared = pairs
            for missing in log.expected[pairs:]:
                self.fail(f"expected packet on port {port} was not received{at}: "
                          f"{missing.expected}", missing.line)
            del log.expected[pairs:]
            if final or no_extra:
                for extra in log.received[pairs:]:
                    self._unexpected(port, extra, at)
                del log.received[pairs:]
        if no_extra:  # nothing may have come out, wherever it went
            for port, extra in self.unobserved:
                self._unexpected(port, extra, at)
            self.unobserved.clear()

    def _unexpected(self, port: int, extra: _Output, at: str) -> None:
        self.fail(f"unexpected packet on port {port} (not expected{at}; from the packet "
                  f"sent at line {extra.sent_line}): {_hex(extra.data)}",
                  None if at else extra.sent_line)

    def _compare(self, port: int, number: int, expect: cmd.ExpectPacket,
                 received: _Output) -> None:
        expected = expect.expected
        assert isinstance(expected, ExpectedPacket)
        if expected.matches(received.data):
            self.result.counts.packets_matched += 1
            return
        diff = "\n".join("    " + line for line in expected.diff(received.data).splitlines())
        self.fail(f"packet #{number} on port {port} (from the packet sent at line "
                  f"{received.sent_line}) differs from the expected packet\n{diff}",
                  expect.line)

    def _report_unobserved(self) -> None:
        for port, out in self.unobserved:
            text = (f"packet left on port {port}, which no packet/expect line names "
                    f"(from the packet sent at line {out.sent_line}): {_hex(out.data)}")
            if self.strict_ports:
                self.fail(text, out.sent_line)
            else:
                self.result.notes.append(f"{self.where(out.sent_line)}: {text}")

    # -- counters ----------------------------------------------------------------------

    def _entry_for(self, resource: DirectResource, index: int | str) -> TableEntry:
        """The entry of ``resource``'s table named by a handle name or BMv2 number."""
        table = self.state.tables[resource.table]
        if isinstance(index, str):
            named = self.handles.get(index)
            if named is None:
                known = ", ".join(sorted(self.handles)) or "none"
                raise _Failed(f"no entry handle '{index}' (handles: {known})")
            owner, entry = named
            if owner is not table:
                raise _Failed(f"handle '{index}' names an entry of table '{owner.name}', "
                              f"but '{resource.name}' belongs to table '{table.name}'")
        else:
            added = self.bmv2_handles.get(table.name, [])
            if not 0 <= index < len(added):
                raise _Failed(f"table '{table.name}' has no entry handle {index} "
                              f"({len(added)} entries added)")
            entry = added[index]
        if table.find(entry.matches, entry.priority) is not entry:
            raise _Failed(f"the entry for '{index}' is no longer in table '{table.name}'")
        return entry

    def _counter_values(self, name: str, index: int | str) -> tuple[str, int, int]:
        full, counter = resolve_counter(self.state, name)
        if isinstance(counter, DirectResource):
            cell = self._entry_for(counter, index).direct_counter
            return f"{full}({index})", cell.packets, cell.bytes
        if isinstance(index, str):
            raise _Failed(f"counter '{full}' is indexed: give a number, not handle '{index}'")
        packets, nbytes = counter.read(index)
        return f"{full}[{index}]", packets, nbytes

    def _check_counter(self, c: cmd.CheckCounter) -> None:
        shown, packets, nbytes = self._counter_values(c.counter, c.index)
        compare = _COMPARE[c.op]
        checks = [("packets", packets), ("bytes", nbytes)] if c.kind is None else [
            (c.kind, packets if c.kind == "packets" else nbytes)]
        for kind, actual in checks:
            if not compare(actual, c.value):
                raise _Failed(f"counter {shown}: {kind} is {actual}, expected "
                              f"{c.op} {c.value}")
        self.log(f"counter {shown}: {packets} packets, {nbytes} bytes (ok)")

    def _counter_read(self, c: cmd.CounterRead) -> None:
        shown, packets, nbytes = self._counter_values(c.counter, c.index)
        self.log(f"counter {shown}: {packets} packets, {nbytes} bytes")

    def _counter_write(self, c: cmd.CounterWrite) -> None:
        full, counter = resolve_counter(self.state, c.counter)
        if isinstance(counter, DirectResource):
            cell = self._entry_for(counter, c.index).direct_counter
            cell.packets, cell.bytes = c.packets, c.bytes
        else:
            counter.write(c.index, c.packets, c.bytes)

    def _counter_reset(self, c: cmd.CounterReset) -> None:
        full, counter = resolve_counter(self.state, c.counter)
        if isinstance(counter, CounterArray):
            counter.reset()
            return
        for entry in self.state.tables[counter.table].entries():
            entry.direct_counter.packets = entry.direct_counter.bytes = 0

    # -- registers ---------------------------------------------------------------------

    def _register_read(self, c: cmd.RegisterRead) -> None:
        full, register = resolve_extern(self.state.registers, c.register, "register")
        self.log(f"register {full}[{c.index}] = {register.read_checked(c.index)}")

    def _register_write(self, c: cmd.RegisterWrite) -> None:
        full, register = resolve_extern(self.state.registers, c.register, "register")
        register.write_checked(c.index, c.value)

    def _register_reset(self, c: cmd.RegisterReset) -> None:
        full, register = resolve_extern(self.state.registers, c.register, "register")
        register.reset()

    # -- meters ------------------------------------------------------------------------

    @staticmethod
    def _meter_config(rates: Sequence[cmd.MeterRate]) -> MeterConfig:
        if len(rates) != 2:
            raise _Failed(f"a meter needs 2 RATE:BURST pairs (committed, peak), "
                          f"got {len(rates)}")
        committed, peak = rates
        return MeterConfig.from_rates_per_us(
            (committed.rate_per_us, committed.burst), (peak.rate_per_us, peak.burst))

    def _meter_set_rates(self, c: cmd.MeterSetRates) -> None:
        config = self._meter_config(c.rates)
        full, meter = resolve_meter(self.state, c.meter)
        if isinstance(meter, MeterArray):
            meter.set_config(c.index, config)
        else:
            self._entry_for(meter, c.index).direct_meter = TrTcmMeter(config)

    def _meter_array_set_rates(self, c: cmd.MeterArraySetRates) -> None:
        config = self._meter_config(c.rates)
        full, meter = resolve_meter(self.state, c.meter)
        if not isinstance(meter, MeterArray):
            raise _Failed(f"'{full}' is a direct meter; use meter_set_rates with an "
                          "entry handle")
        meter.set_all(config)

    def _meter_get_rates(self, c: cmd.MeterGetRates) -> None:
        full, meter = resolve_meter(self.state, c.meter)
        if isinstance(meter, MeterArray):
            config = meter.get_config(c.index)
        else:
            direct = self._entry_for(meter, c.index).direct_meter
            config = None if direct is None else direct.config
        rates = "unconfigured" if config is None else str(config.rates_per_us())
        self.log(f"meter {full}[{c.index}]: {rates}")

    # -- PRE ---------------------------------------------------------------------------

    def _set_session(self, session_id: int, session: CloneSession) -> None:
        pre = self.state.pre
        if pre.get_clone_session(session_id) is None:
            pre.create_clone_session(session_id, session)
        else:  # simple_switch_CLI's mirroring_add replaces an existing session
            pre.modify_clone_session(session_id, session)

    def _mirroring_add(self, c: cmd.MirroringAdd) -> None:
        self._set_session(c.session, CloneSession(egress_port=c.port))

    def _mirroring_add_mc(self, c: cmd.MirroringAddMc) -> None:
        self._set_session(c.session, CloneSession(multicast_group_id=c.group))

    def _mirroring_delete(self, c: cmd.MirroringDelete) -> None:
        self.state.pre.delete_clone_session(c.session)

    def _mirroring_get(self, c: cmd.MirroringGet) -> None:
        self.log(f"mirroring session {c.session}: "
                 f"{self.state.pre.get_clone_session(c.session)}")

    def _mc_node_create(self, c: cmd.McNodeCreate) -> None:
        handle = self.state.pre.create_node(c.rid, c.ports)
        self.log(f"multicast node {handle}: rid {c.rid}, ports {list(c.ports)}")


def _matches_text(table: Table, matches: Sequence[FieldMatch | None]) -> str:
    return " ".join(
        f"{key.name}={'*' if match is None else match}"
        for key, match in zip(table.keys, matches, strict=True)
    )

