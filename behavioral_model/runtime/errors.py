"""Errors raised by the runtime device state when a control-plane request is refused.

All of them derive from :class:`RuntimeStateError`, so a P4Runtime server or the STF
runner can catch one type and turn it into a status code or a test failure. The
mapping to P4Runtime canonical codes is suggested in each docstring.
"""

from __future__ import annotations

__all__ = [
    "RuntimeStateError",
    "DuplicateEntryError",
    "EntryNotFoundError",
    "TableFullError",
    "InvalidEntryError",
    "ConstViolationError",
    "UnknownNameError",
    "InvalidConfigError",
]


class RuntimeStateError(Exception):
    """Base class of every error raised by ``behavioral_model.runtime``."""


class DuplicateEntryError(RuntimeStateError):
    """An entry with the same key (matches + priority) already exists (ALREADY_EXISTS)."""


class EntryNotFoundError(RuntimeStateError):
    """The entry, group or session to modify, read or delete does not exist (NOT_FOUND)."""


class TableFullError(RuntimeStateError):
    """The table already holds ``size`` entries (RESOURCE_EXHAUSTED)."""


class InvalidEntryError(RuntimeStateError):
    """Malformed match values, priority or action for this table (INVALID_ARGUMENT)."""


class ConstViolationError(RuntimeStateError):
    """Attempt to change a const entry, a const table or a const default action
    (PERMISSION_DENIED in P4Runtime terms)."""


class UnknownNameError(RuntimeStateError, KeyError):
    """A table/extern name that matches nothing, or more than one object (NOT_FOUND)."""

    def __str__(self) -> str:
        # KeyError would quote the message; keep it readable.
        return str(self.args[0]) if self.args else ""


class InvalidConfigError(RuntimeStateError):
    """Bad extern configuration or index: meter rates, counter/register index out of
    range for a control-plane access (INVALID_ARGUMENT / OUT_OF_RANGE)."""
