"""What every command of one STF run shares: the device, the result, and reporting.

The command families (``table_commands``, ``expectations``, ``cli_commands``) each get
the same ``RunContext``; failures and trace lines go through it so each starts with the
STF ``file:line`` of the command being run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from behavioral_model.stf.result import StfResult

if TYPE_CHECKING:
    from behavioral_model.program import P4Program

__all__ = ["CommandFailed", "Log", "RunContext"]

Log = Callable[[str], None]


class CommandFailed(Exception):
    """A command that cannot be carried out; the message becomes a failure."""


class RunContext:
    """A fresh device of the program, the result being built, and the current line."""

    def __init__(self, program: P4Program, filename: str, log: Log | None) -> None:
        self.program = program
        self.filename = filename
        self._log = log
        self.state = program.new_state()
        self.device = program.new_device(self.state)
        self.result = StfResult(filename)
        self.line = 0  # STF line of the command being run

    def where(self, line: int | None = None) -> str:
        return f"{self.filename}:{self.line if line is None else line}"

    def fail(self, message: str, line: int | None = None) -> None:
        self.result.failures.append(f"{self.where(line)}: {message}")
        self.log(f"FAILED: {message}", line)

    def log(self, message: str, line: int | None = None) -> None:
        if self._log is not None:
            self._log(f"{self.where(line)}: {message}")
