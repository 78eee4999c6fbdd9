"""What the application gets back: a handle per write (sender side) and a completion per
message received (receiver side)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Completion", "WriteError", "WriteHandle"]


class WriteError(Exception):
    """A write that cannot complete: the QP gave up after its retries."""


@dataclass(frozen=True)
class Completion:
    """A message that arrived whole: every PSN from its FIRST to its LAST packet.

    ``addr`` is the RETH address of its first byte, ``length`` its size. ``error`` is
    None when every packet was written, else why some were not (bad rkey, out of
    bounds): the message still completes, since its PSNs were acknowledged and will
    never be sent again."""

    qp: int
    msg_seq: int
    addr: int
    length: int
    rkey: int
    imm: int | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class WriteHandle:
    """The state of one ``Endpoint.write``: done once every PSN of the message was
    SACKed (``ok``) or the QP gave up (``error``). Like a future without threads."""

    def __init__(self, qp: int, msg_seq: int, length: int, remote_addr: int) -> None:
        self.qp = qp
        self.msg_seq = msg_seq
        self.length = length
        self.remote_addr = remote_addr
        self.first_psn: int | None = None
        self.last_psn: int | None = None
        self.error: WriteError | None = None
        self._done = False
        self._callbacks: list[Callable[[WriteHandle], object]] = []

    @property
    def done(self) -> bool:
        return self._done

    @property
    def ok(self) -> bool:
        return self._done and self.error is None

    def result(self) -> None:
        """Return if the write completed; raise its WriteError if it failed, or
        RuntimeError while it is still in progress."""
        if not self._done:
            raise RuntimeError(f"write {self.msg_seq} on QP {self.qp} is still in progress")
        if self.error is not None:
            raise self.error

    def add_done_callback(self, callback: Callable[[WriteHandle], object]) -> None:
        """Call ``callback(handle)`` when done (at once if it already is)."""
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def _finish(self, error: WriteError | None) -> None:
        if self._done:
            return
        self._done = True
        self.error = error
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def __repr__(self) -> str:
        state = "pending" if not self._done else ("ok" if self.error is None else "failed")
        return (f"WriteHandle(qp={self.qp}, msg_seq={self.msg_seq}, "
                f"length={self.length}, {state})")
