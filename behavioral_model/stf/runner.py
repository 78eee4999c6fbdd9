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
  ignored, as p4c does): a larger STF priority wins (p4c's runner passes 10000 - p to
  simple_switch_CLI, where the smallest number wins). An entry written without a
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

This module is the driver: it runs the commands in order and turns what goes wrong into
failures. The commands themselves are carried out by ``table_commands`` (entries),
``expectations`` (packets and their checks) and ``cli_commands`` (the BMv2 CLI
commands and ``check_counter``), which share a ``run_context.RunContext``.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.stf import commands as cmd
from behavioral_model.stf.cli_commands import CliCommands
from behavioral_model.stf.expectations import PacketExpectations
from behavioral_model.stf.parse import parse_stf_file
from behavioral_model.stf.result import StfCounts, StfResult
from behavioral_model.stf.run_context import CommandFailed, Log, RunContext
from behavioral_model.stf.table_commands import EXPLICIT_PRIORITY_BASE, TableCommands
from p4rt_client.names import UnknownNameError

if TYPE_CHECKING:
    from behavioral_model.program import P4Program

__all__ = ["StfCounts", "StfResult", "run_stf", "run_stf_file", "EXPLICIT_PRIORITY_BASE"]


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


class _Runner:
    def __init__(self, program: P4Program, filename: str, strict_ports: bool,
                 log: Log | None) -> None:
        self.ctx = RunContext(program, filename, log)
        tables = TableCommands(self.ctx)
        self.packets = PacketExpectations(self.ctx, strict_ports)
        self.handlers: dict[type, Callable[[Any], None]] = {
            **tables.handlers(),
            **self.packets.handlers(),
            **CliCommands(self.ctx, tables).handlers(),
        }

    def run(self, commands: Sequence[cmd.Command]) -> StfResult:
        ctx = self.ctx
        for command in commands:
            if isinstance(command, cmd.SendPacket | cmd.ExpectPacket):
                self.packets.observe(command.port)
        for command in commands:
            ctx.line = command.line
            ctx.result.counts.commands += 1
            handler = self.handlers.get(type(command))
            if handler is None:
                ctx.fail(f"the runner does not support {type(command).__name__} commands")
                continue
            try:
                handler(command)
            except (CommandFailed, UnknownNameError, RuntimeStateError) as error:
                ctx.fail(str(error))
            except P4Error as error:  # STFValueError from key conversion
                ctx.fail(error.message)
            except Exception as error:  # a bug of ours: report it, keep going
                ctx.fail(f"internal error running this command: "
                         f"{type(error).__name__}: {error}")
                ctx.log(traceback.format_exc().rstrip())
        ctx.line = commands[-1].line if commands else 0
        self.packets.finish()
        return ctx.result
