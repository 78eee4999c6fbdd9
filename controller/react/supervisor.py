"""One thread per device that keeps it programmed: connect, push the pipeline if the
device lost it, reconcile the desired state, then pass its digests on until its stream
ends; then reconnect with backoff and do it all again. A device whose primary is another
controller (a higher election id) is reported and left alone; this controller tries
again later, with the same election id, and never raises it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import StrEnum

from p4.v1 import p4runtime_pb2

from controller.device import DeviceLink, ReconcileError
from controller.events import EventLog
from p4rt_client import (
    ElectionIdInUseError,
    NotPrimaryError,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
)

FIRST_BACKOFF_S = 0.2
MAX_BACKOFF_S = 5.0
DIGEST_WAIT_S = 0.2  # how often the stream's liveness is checked between digests

Program = Callable[[DeviceLink], None]
DigestHandler = Callable[[str, p4runtime_pb2.DigestList], None]


class LinkState(StrEnum):
    CONNECTING = "connecting"
    UP = "up"
    UNREACHABLE = "unreachable"
    ANOTHER_PRIMARY = "another-primary"
    FAILED = "failed"  # reachable, but refused the pipeline or a write


class DeviceSupervisor:
    """Runs ``program(link)`` on every (re)connection and hands digests to
    ``on_digest(device, digest)``; ``stop`` ends it."""

    def __init__(self, link: DeviceLink, program: Program, on_digest: DigestHandler,
                 log: EventLog, stop: threading.Event, connect_timeout: float = 2.0) -> None:
        self.link = link
        self.connect_timeout = connect_timeout
        self.program = program
        self.on_digest = on_digest
        self.log = log
        self.stop = stop
        self.state = LinkState.CONNECTING
        self.connections = 0
        self.message = ""
        self._thread = threading.Thread(target=self._run, name=f"ctl-{link.name}",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _report(self, state: LinkState, event: str, message: str, **fields: object) -> None:
        """Log a failure once per streak, not once per retry."""
        if self.state is not state or self.message != message:
            self.log.emit(event, device=self.link.name, message=message, **fields)
        self.state, self.message = state, message

    def _run(self) -> None:
        backoff = FIRST_BACKOFF_S
        while not self.stop.is_set():
            if self._session():
                backoff = FIRST_BACKOFF_S
                continue
            self.stop.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_S)

    def _session(self) -> bool:
        """One connection, from connect to the end of its stream; whether it got as
        far as serving digests (else the caller backs off)."""
        link = self.link
        try:
            link.connect(self.connect_timeout)
        except NotPrimaryError as error:
            self._report(LinkState.ANOTHER_PRIMARY, "another-primary", str(error),
                         election_id=list(error.primary_election_id or ()))
            return False
        except ElectionIdInUseError as error:
            self._report(LinkState.ANOTHER_PRIMARY, "another-primary",
                         f"{error} (is another mrc-ctl apply or watch running?)")
            return False
        except P4RuntimeSessionError as error:
            self._report(LinkState.UNREACHABLE, "unreachable", str(error))
            return False
        try:
            self.program(link)
        except (ReconcileError, P4RuntimeWriteError, P4RuntimeSessionError) as error:
            text = error.summary() if isinstance(error, P4RuntimeWriteError) else str(error)
            self._report(LinkState.FAILED, "apply-failed", text)
            link.close()
            return False
        self.connections += 1
        self.log.emit("connected" if self.connections == 1 else "reconnected",
                      device=link.name, address=link.target.access.address)
        self.state, self.message = LinkState.UP, ""
        self._serve()
        link.close()
        return True

    def _serve(self) -> None:
        link = self.link
        while not self.stop.is_set():
            digest = link.next_digest(DIGEST_WAIT_S)
            if digest is not None:
                self.on_digest(link.name, digest)
            elif not link.alive:
                self._report(LinkState.CONNECTING, "device-lost", "its stream ended")
                return
            elif not link.primary:
                self._report(LinkState.ANOTHER_PRIMARY, "another-primary",
                             "another controller took over as primary")
                return
