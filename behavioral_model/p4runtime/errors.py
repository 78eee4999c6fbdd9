"""P4Runtime errors: one exception type carrying a canonical code, and the mapping of
runtime-state errors onto P4Runtime codes.

Handlers raise :class:`P4RTError` (usually through the small helpers ``invalid``,
``not_found``, ...). The server turns it into a gRPC status, or, inside a batched
``Write``/``Read``, into one ``p4.v1.Error`` per update (spec section "Error Reporting
Messages": overall code ``UNKNOWN`` and every update's status in
``google.rpc.Status.details``, in request order).
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.errors import (
    ConstViolationError,
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidConfigError,
    InvalidEntryError,
    RuntimeStateError,
    TableFullError,
    UnknownNameError,
)

__all__ = [
    "P4RTError",
    "invalid",
    "not_found",
    "already_exists",
    "out_of_range",
    "unimplemented",
    "permission_denied",
    "failed_precondition",
    "resource_exhausted",
    "from_runtime_error",
    "grpc_code",
    "p4_error",
    "batch_status",
    "STATUS_DETAILS_KEY",
]

#: Trailing-metadata key gRPC uses for the serialized ``google.rpc.Status``.
STATUS_DETAILS_KEY = "grpc-status-details-bin"

_GRPC_BY_CODE: dict[int, grpc.StatusCode] = {sc.value[0]: sc for sc in grpc.StatusCode}


class P4RTError(Exception):
    """A request (or one update of it) failed with canonical ``code``
    (a ``google.rpc.Code`` value)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{code_pb2.Code.Name(self.code)}: {self.message}"


def invalid(message: str) -> P4RTError:
    return P4RTError(code_pb2.INVALID_ARGUMENT, message)


def not_found(message: str) -> P4RTError:
    return P4RTError(code_pb2.NOT_FOUND, message)


def already_exists(message: str) -> P4RTError:
    return P4RTError(code_pb2.ALREADY_EXISTS, message)


def out_of_range(message: str) -> P4RTError:
    return P4RTError(code_pb2.OUT_OF_RANGE, message)


def unimplemented(message: str) -> P4RTError:
    return P4RTError(code_pb2.UNIMPLEMENTED, message)


def permission_denied(message: str) -> P4RTError:
    return P4RTError(code_pb2.PERMISSION_DENIED, message)


def failed_precondition(message: str) -> P4RTError:
    return P4RTError(code_pb2.FAILED_PRECONDITION, message)


def resource_exhausted(message: str) -> P4RTError:
    return P4RTError(code_pb2.RESOURCE_EXHAUSTED, message)


_RUNTIME_CODES: tuple[tuple[type[RuntimeStateError], int], ...] = (
    (DuplicateEntryError, code_pb2.ALREADY_EXISTS),
    (EntryNotFoundError, code_pb2.NOT_FOUND),
    (TableFullError, code_pb2.RESOURCE_EXHAUSTED),
    (ConstViolationError, code_pb2.PERMISSION_DENIED),
    (UnknownNameError, code_pb2.NOT_FOUND),
    (InvalidEntryError, code_pb2.INVALID_ARGUMENT),
    (InvalidConfigError, code_pb2.INVALID_ARGUMENT),
)


def from_runtime_error(err: RuntimeStateError) -> P4RTError:
    """The P4Runtime error for a refusal of ``behavioral_model.runtime``."""
    for cls, code in _RUNTIME_CODES:
        if isinstance(err, cls):
            return P4RTError(code, str(err))
    return P4RTError(code_pb2.INTERNAL, str(err))


def grpc_code(code: int) -> grpc.StatusCode:
    return _GRPC_BY_CODE.get(code, grpc.StatusCode.UNKNOWN)


def p4_error(err: P4RTError | None) -> p4runtime_pb2.Error:
    """One ``p4.v1.Error``: code OK with no other field for a successful update."""
    if err is None:
        return p4runtime_pb2.Error(canonical_code=code_pb2.OK)
    return p4runtime_pb2.Error(canonical_code=err.code, message=err.message)


def batch_status(errors: Sequence[P4RTError | None], what: str) -> status_pb2.Status:
    """``google.rpc.Status`` with code UNKNOWN and one ``p4.v1.Error`` per item."""
    failed = [e for e in errors if e is not None]
    message = f"{what} failure: {len(failed)} of {len(errors)} failed"
    if failed:
        message += f"; first: {failed[0]}"
    status = status_pb2.Status(code=code_pb2.UNKNOWN, message=message)
    for err in errors:
        detail = any_pb2.Any()
        detail.Pack(p4_error(err))
        status.details.append(detail)
    return status
