"""Client arbitration: who is the primary controller of each (device, role).

Rules of the P4Runtime spec ("Rules for Handling MasterArbitrationUpdate Messages"):
for each role the server remembers the highest election id it has ever received; the
live controller holding it is the primary, every other one a backup; an unset election
id is lower than any. A controller whose id is >= that highest id becomes (or stays)
primary and everybody in the role is told; one that falls below it becomes a backup
(everybody is told if it was the primary, else only itself). When the primary's
stream ends, the role has no primary until some controller sends an id >= the highest
one, and the others are told (status NOT_FOUND). Notifications carry status OK for the
primary, ALREADY_EXISTS for backups, NOT_FOUND for backups when there is no primary.

Errors that end a stream: unknown device (NOT_FOUND), an election id already used by
another live controller of the role (INVALID_ARGUMENT), a later update that changes
the device or the role (FAILED_PRECONDITION).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

from .errors import failed_precondition, invalid, not_found

__all__ = ["Arbiter", "Controller", "election_id_of", "role_of"]

Send = Callable[[p4runtime_pb2.StreamMessageResponse], None]


def election_id_of(msg: p4runtime_pb2.MasterArbitrationUpdate
                   | p4runtime_pb2.WriteRequest
                   | p4runtime_pb2.SetForwardingPipelineConfigRequest) -> int | None:
    """The 128-bit election id, or None when the field is unset."""
    if not msg.HasField("election_id"):
        return None
    return (msg.election_id.high << 64) | msg.election_id.low


def role_of(msg: p4runtime_pb2.MasterArbitrationUpdate) -> str:
    if not msg.HasField("role"):
        return ""
    return msg.role.name or (str(msg.role.id) if msg.role.id else "")


@dataclass(eq=False)
class Controller:
    """One live stream that has sent a MasterArbitrationUpdate."""

    send: Send
    device_id: int
    role: str
    election_id: int | None
    name: str = ""


@dataclass
class _Role:
    controllers: list[Controller] = field(default_factory=list)
    highest: int | None = None
    primary: Controller | None = None
    config: any_pb2.Any | None = None


class Arbiter:
    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self._lock = threading.Lock()
        self._roles: dict[str, _Role] = {}
        self._by_key: dict[object, Controller] = {}

    # -- stream events ------------------------------------------------------------------
    def update(self, key: object, send: Send, msg: p4runtime_pb2.MasterArbitrationUpdate,
               name: str = "") -> Controller:
        """Handle an arbitration message from the stream ``key``; raises P4RTError when
        the stream must be terminated with that error."""
        role_name = role_of(msg)
        eid = election_id_of(msg)
        with self._lock:
            ctrl = self._by_key.get(key)
            if ctrl is None:
                if msg.device_id != self.device_id:
                    raise not_found(f"unknown device id {msg.device_id} (this device is "
                                    f"{self.device_id})")
                role = self._roles.setdefault(role_name, _Role())
                self._check_unique(role, eid, None, role_name)
                ctrl = Controller(send, msg.device_id, role_name, eid, name)
                role.controllers.append(ctrl)
                self._by_key[key] = ctrl
            else:
                if msg.device_id != ctrl.device_id:
                    raise failed_precondition("a stream cannot change its device id")
                if role_name != ctrl.role:
                    raise failed_precondition("a stream cannot change its role; open a new "
                                              "stream for another role")
                role = self._roles[role_name]
                self._check_unique(role, eid, ctrl, role_name)
                ctrl.election_id = eid
            self._elect(role, ctrl, msg)
            return ctrl

    def remove(self, key: object) -> None:
        """The stream ``key`` ended."""
        with self._lock:
            ctrl = self._by_key.pop(key, None)
            if ctrl is None:
                return
            role = self._roles[ctrl.role]
            role.controllers.remove(ctrl)
            if role.primary is ctrl:
                role.primary = None
                self._notify(role, ctrl.role, role.controllers)

    # -- queries ------------------------------------------------------------------------
    def role_known(self, role: str) -> bool:
        with self._lock:
            return role == "" or role in self._roles

    def is_primary(self, role: str, election_id: int | None) -> bool:
        """Whether (role, election_id) from a Write/SetPipeline is the live primary."""
        with self._lock:
            r = self._roles.get(role)
            return (r is not None and r.primary is not None and election_id is not None
                    and r.primary.election_id == election_id)

    def controller(self, key: object) -> Controller | None:
        with self._lock:
            return self._by_key.get(key)

    def is_primary_stream(self, key: object) -> bool:
        with self._lock:
            ctrl = self._by_key.get(key)
            return ctrl is not None and self._roles[ctrl.role].primary is ctrl

    def primaries(self) -> list[Controller]:
        """The primary of every role that has one (default role first)."""
        with self._lock:
            return [r.primary for _, r in sorted(self._roles.items()) if r.primary]

    # -- internals ----------------------------------------------------------------------
    @staticmethod
    def _check_unique(role: _Role, eid: int | None, me: Controller | None,
                      role_name: str) -> None:
        if eid is None:
            return
        for other in role.controllers:
            if other is not me and other.election_id == eid:
                raise invalid(f"election id {eid} is already used by another controller "
                              f"of role '{role_name}'")

    def _elect(self, role: _Role, ctrl: Controller,
               msg: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        eid = ctrl.election_id
        if eid is not None and (role.highest is None or eid >= role.highest):
            role.highest = eid
            role.primary = ctrl
            role.config = msg.role.config if msg.role.HasField("config") else None
            self._notify(role, ctrl.role, role.controllers)
        elif role.primary is ctrl:
            role.primary = None
            self._notify(role, ctrl.role, role.controllers)
        else:
            self._notify(role, ctrl.role, [ctrl])

    def _notify(self, role: _Role, role_name: str, targets: list[Controller]) -> None:
        for ctrl in targets:
            resp = p4runtime_pb2.StreamMessageResponse()
            arb = resp.arbitration
            arb.device_id = self.device_id
            if role_name:
                arb.role.name = role_name
                if role.config is not None:
                    arb.role.config.CopyFrom(role.config)
            if role.highest is not None:
                arb.election_id.high = role.highest >> 64
                arb.election_id.low = role.highest & ((1 << 64) - 1)
            if role.primary is ctrl:
                arb.status.CopyFrom(status_pb2.Status(code=code_pb2.OK,
                                                      message="you are the primary"))
            elif role.primary is not None:
                arb.status.CopyFrom(status_pb2.Status(
                    code=code_pb2.ALREADY_EXISTS, message="a primary is connected; you are "
                    "a backup"))
            else:
                arb.status.CopyFrom(status_pb2.Status(
                    code=code_pb2.NOT_FOUND, message="there is no primary; you are a backup"))
            ctrl.send(resp)
