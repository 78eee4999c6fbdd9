"""Errors for STF files, in the project's ``P4Error`` family (``file:line:col: msg``)."""

from __future__ import annotations

from behavioral_model.frontend.errors import P4Error, SourceLocation

__all__ = ["STFError", "STFSyntaxError", "STFValueError", "SourceLocation"]


class STFError(P4Error):
    """Base class of STF errors."""


class STFSyntaxError(STFError):
    """The text is not a valid STF file."""


class STFValueError(STFError):
    """A well-formed value that does not fit its use, e.g. a ternary pattern for an
    exact key field (raised when converting key values for a table)."""
