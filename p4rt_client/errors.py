"""Errors of the P4Runtime client and the gRPC status codes they carry."""

from __future__ import annotations

import grpc
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

__all__ = [
    "STATUS_DETAILS_KEY",
    "ElectionIdInUseError",
    "NotPrimaryError",
    "P4RuntimeSessionError",
    "P4RuntimeWriteError",
    "code_name",
    "grpc_code",
]

#: Trailing-metadata key of the google.rpc.Status with per-update p4.v1.Error details.
STATUS_DETAILS_KEY = "grpc-status-details-bin"


def code_name(code: int | grpc.StatusCode) -> str:
    """``"NOT_FOUND"`` for a google.rpc code number or a grpc.StatusCode."""
    if isinstance(code, grpc.StatusCode):
        return code.name
    try:
        return str(code_pb2.Code.Name(code))
    except ValueError:
        return str(code)


def grpc_code(code: int | grpc.StatusCode) -> grpc.StatusCode:
    """The grpc.StatusCode of a google.rpc code number (or the StatusCode itself)."""
    if isinstance(code, grpc.StatusCode):
        return code
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return status
    raise ValueError(f"unknown gRPC code {code}")


class P4RuntimeSessionError(Exception):
    """Connecting or arbitration failed."""


class NotPrimaryError(P4RuntimeSessionError):
    """Another controller is the primary: this client does not raise its election id
    to take over (that is the operator's call), it says who holds the role."""

    def __init__(self, message: str, primary_election_id: tuple[int, int] | None) -> None:
        super().__init__(message)
        self.primary_election_id = primary_election_id


class ElectionIdInUseError(P4RuntimeSessionError):
    """The server kept refusing this session's election id because another live
    session (another controller, or one of ours that is still open) holds it."""


class P4RuntimeWriteError(Exception):
    """A failed RPC. ``code`` is the RPC's gRPC status; ``errors`` the per-update
    ``p4.v1.Error`` details of a batched Write, as ``(index, error)`` for every update
    (OK ones included), empty when the server sent none."""

    def __init__(self, rpc_error: grpc.RpcError, what: str = "Write") -> None:
        self.rpc_error = rpc_error
        self.code: grpc.StatusCode = rpc_error.code()
        self.details: str = rpc_error.details() or ""
        self.errors: list[tuple[int, p4runtime_pb2.Error]] = []
        for key, value in rpc_error.trailing_metadata() or ():
            if key != STATUS_DETAILS_KEY:
                continue
            status = status_pb2.Status()
            status.ParseFromString(value)
            for index, detail in enumerate(status.details):
                error = p4runtime_pb2.Error()
                if detail.Unpack(error):
                    self.errors.append((index, error))
        failed = [f"#{i}: {code_name(e.canonical_code)} {e.message}"
                  for i, e in self.errors if e.canonical_code != code_pb2.OK]
        text = f"{what} failed: {self.code.name}: {self.details}"
        if failed:
            text += " [" + "; ".join(failed) + "]"
        super().__init__(text)

    def summary(self) -> str:
        """One line: the first failed update's code and message, else the RPC's."""
        failed = self.failed_updates()
        if failed:
            index, error = failed[0]
            more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            return f"{code_name(error.canonical_code)}: {error.message}{more}"
        return f"{self.code.name}: {self.details}"

    def is_unimplemented(self) -> bool:
        """Whether the server said it does not support what was asked."""
        codes = self.failed_codes() or [self.code.value[0]]
        return all(c == code_pb2.UNIMPLEMENTED for c in codes)

    def failed_codes(self) -> list[int]:
        """canonical codes of the updates that failed (per-update details)."""
        return [e.canonical_code for _, e in self.errors if e.canonical_code != code_pb2.OK]

    def failed_updates(self) -> list[tuple[int, p4runtime_pb2.Error]]:
        """``(index, error)`` of every update that failed."""
        return [(i, e) for i, e in self.errors if e.canonical_code != code_pb2.OK]

    def applied(self) -> list[int]:
        """Indexes of the updates the server reports as applied (code OK)."""
        return [i for i, e in self.errors if e.canonical_code == code_pb2.OK]
