"""Source locations and the exception family raised by the P4 frontend.

Every error the frontend reports for bad input is a :class:`P4Error`, so the CLI
can print ``file:line:col: message`` and exit instead of showing a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "SourceLocation",
    "P4Warning",
    "P4Error",
    "PreprocessError",
    "P4SyntaxError",
    "P4TypeError",
]


@dataclass(frozen=True)
class SourceLocation:
    """A position in an original source file; ``line`` and ``col`` are 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class P4Warning:
    """Something p4c warns about and compiles anyway; ``str()`` is
    ``"file:line:col: warning: message"``."""

    message: str
    location: SourceLocation | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}warning: {self.message}"


class P4Error(Exception):
    """Base class of frontend errors: a message plus an optional location.

    ``str(err)`` is ``"file:line:col: message"``, or just the message when the
    location is unknown.
    """

    def __init__(self, message: str, location: SourceLocation | None = None) -> None:
        # Both values go to Exception.args so the error survives pickling.
        super().__init__(message, location)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.location}: {self.message}"


class PreprocessError(P4Error):
    """Raised by the preprocessor (includes, macros, conditionals, #error)."""


class P4SyntaxError(P4Error):
    """Raised by the parser for source that does not match the P4_16 grammar."""


class P4TypeError(P4Error):
    """Raised by name resolution and type checking."""
