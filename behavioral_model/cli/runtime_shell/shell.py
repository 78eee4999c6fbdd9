"""Reads simple_switch_CLI commands (a file, stdin, or a prompt) and carries each one
out; a failing command prints one ``Error:`` line and the next one runs."""

from __future__ import annotations

import cmd
import sys
from collections.abc import Iterable

import grpc

from behavioral_model.cli.runtime_shell.context import Command, CommandError, ShellContext
from behavioral_model.cli.runtime_shell.externs import ExternCommands
from behavioral_model.cli.runtime_shell.pre import PreCommands
from behavioral_model.cli.runtime_shell.profiles import ProfileCommands
from behavioral_model.cli.runtime_shell.tables import TableCommands
from p4rt_client import P4RuntimeWriteError, UnknownNameError

__all__ = ["RuntimeShell"]


class RuntimeShell(cmd.Cmd):
    prompt = "RuntimeCmd: "

    def __init__(self, ctx: ShellContext) -> None:
        super().__init__()
        self.ctx = ctx
        tables = TableCommands(ctx)
        groups = (tables.commands(), ProfileCommands(ctx, tables).commands(),
                  ExternCommands(ctx, tables).commands(), PreCommands(ctx).commands())
        self.registry: dict[str, Command] = {c.name: c for group in groups for c in group}
        self.failures = 0
        self.where = ""  # "FILE:LINE: " while running a file, for error lines

    # -- running ----------------------------------------------------------------------
    def run_lines(self, lines: Iterable[str], source: str) -> None:
        for number, line in enumerate(lines, start=1):
            self.where = f"{source}:{number}: "
            self.onecmd(line)
        self.where = ""

    def emptyline(self) -> bool:
        return False  # cmd.Cmd would repeat the last command

    def onecmd(self, line: str) -> bool:
        words = line.split("#", 1)[0].split()
        if not words:
            return False
        name, args = words[0], words[1:]
        if name in ("EOF", "exit", "quit"):
            return True
        if name == "help":
            self._help(args)
            return False
        command = self.registry.get(name)
        if command is None:
            self._error(f"unknown command '{name}' ('help' lists the commands)")
            return False
        try:
            command.run(args)
        except P4RuntimeWriteError as error:
            if error.is_unimplemented():
                # A target's documented limit (BMv2 serves no P4Runtime register
                # access): say so once and go on; it is not a mistake in the input.
                self.ctx.out(f"{name}: not supported by this target over P4Runtime "
                             f"({error.summary()})")
            else:
                self._error(f"{name}: {error.summary()}")
        except (CommandError, UnknownNameError, ValueError) as error:
            self._error(f"{name}: {error}")
        except grpc.RpcError as error:  # the connection itself failed
            self._error(f"{name}: {error.code().name}: {error.details()}")
        return False

    def _error(self, message: str) -> None:
        self.failures += 1
        print(f"Error: {self.where}{message}", file=sys.stderr, flush=True)

    # -- help and completion ----------------------------------------------------------
    def _help(self, args: list[str]) -> None:
        if args:
            command = self.registry.get(args[0])
            if command is None:
                self._error(f"help: unknown command '{args[0]}'")
                return
            self.ctx.out(f"{command.name} {command.usage}".rstrip())
            self.ctx.out(f"    {command.summary}")
            return
        width = max(len(n) for n in self.registry)
        for name in sorted(self.registry):
            self.ctx.out(f"{name:{width}}  {self.registry[name].summary}")

    def completenames(self, text: str, *ignored: object) -> list[str]:
        return [n for n in sorted([*self.registry, "help", "exit"]) if n.startswith(text)]

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        """Second word: table, action, counter... names from the P4Info."""
        if len(line[:begidx].split()) != 1:
            return []
        info = self.ctx.helper.p4info
        names = [o.preamble.name for kind in (info.tables, info.counters, info.meters,
                                              info.registers, info.action_profiles,
                                              info.direct_counters, info.direct_meters)
                 for o in kind]
        return [n for n in sorted(names) if n.startswith(text)]
