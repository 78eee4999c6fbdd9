"""Reconciling one device with its desired state: read what the controller owns, write
only the difference (DELETE extra, MODIFY changed, INSERT missing) in batches, read
back and verify.

The controller owns the tables the plan writes on that kind of device, the NIC reply
multicast groups and the EV-event digest; anything else on the device (entries a
person added to ``ipv6_route``, say) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import grpc
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from controller.plan import p4names as n
from controller.topology import Role
from p4rt_client import (
    P4InfoHelper,
    P4RuntimeSession,
    P4RuntimeWriteError,
    UnknownNameError,
    update,
)
from protocol import constants as c

from .encoding import State, describe, state_of

BATCH = 256  # updates per WriteRequest

OWNED_TABLES = {
    Role.T1: (n.MY_SID, n.USID_ROUTE, n.TRIM_CONFIG, n.ECN_CONFIG),
    Role.T0: (n.MY_SID, n.USID_ROUTE, n.TRIM_CONFIG, n.ECN_CONFIG),
    Role.NIC: (n.NIC_ADDRESS, n.QP_CONTEXT, n.QP_EV, n.PLANE_PORT, n.QP_PLANE),
}
OWNED_GROUPS = range(c.NIC_REPLY_MCAST_BASE, c.NIC_REPLY_MCAST_BASE + c.NIC_MAX_PLANES)

_U = p4runtime_pb2.Update


class ReconcileError(Exception):
    """A write the device refused, or a read-back that differs from what was written."""


@dataclass(frozen=True)
class WriteCounts:
    inserted: int = 0
    modified: int = 0
    deleted: int = 0

    @property
    def total(self) -> int:
        return self.inserted + self.modified + self.deleted


def owned_reads(helper: P4InfoHelper, role: Role) -> list[p4runtime_pb2.Entity]:
    """Wildcard reads of everything the controller owns on a device of ``role``."""
    reads: list[p4runtime_pb2.Entity] = []
    for table in OWNED_TABLES[role]:
        entity = p4runtime_pb2.Entity()
        entity.table_entry.table_id = helper.get_id("tables", table)
        reads.append(entity)
    if role is Role.NIC:
        entity = p4runtime_pb2.Entity()
        entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 0
        reads.append(entity)
    return reads


def read_owned(session: P4RuntimeSession, helper: P4InfoHelper, role: Role
               ) -> tuple[State, bool]:
    """What the device holds of what the controller owns, and whether its digest
    configuration could be read (a server may not serve DigestEntry reads)."""
    state = {key: held for key, held in state_of(session.read(owned_reads(helper, role)))
             .items() if key[0] != "multicast_group" or key[1] in OWNED_GROUPS}
    if role is not Role.NIC:
        return state, True
    entity = p4runtime_pb2.Entity()
    entity.digest_entry.digest_id = helper.get_id("digests", n.EV_EVENT_DIGEST)
    try:
        state.update(state_of(session.read([entity])))
    except P4RuntimeWriteError as error:
        # BMv2 (PI, proto/frontend/src/digest_mgr.cpp, DigestData::get_config) answers
        # the read of a digest no DigestEntry has configured yet with NOT_FOUND
        # ("Digest N not configured") and fails the whole Read, where our target
        # returns nothing: both mean "not configured", so the entry gets inserted.
        if error.code == grpc.StatusCode.NOT_FOUND:
            return state, True
        if not error.is_unimplemented():
            raise
        return state, False
    return state, True


def _insert_unreadable(session: P4RuntimeSession, desired: State) -> int:
    """Digest configurations the server cannot read back: inserted, and left as they
    are if they exist already; how many were written."""
    written = 0
    for key, (_, entity) in desired.items():
        if key[0] != "digest":
            continue
        try:
            session.write([update(_U.INSERT, entity)])
            written += 1
        except P4RuntimeWriteError as error:
            if error.failed_codes() != [code_pb2.ALREADY_EXISTS]:
                raise ReconcileError(f"write refused: {error.summary()}") from None
    return written


def diff(desired: State, current: State) -> tuple[list[p4runtime_pb2.Update], WriteCounts]:
    """The updates that turn ``current`` into ``desired``: deletes first (a key may
    only be re-inserted once its old entry is gone), then modifies, then inserts."""
    deletes = [update(_U.DELETE, current[k][1]) for k in current if k not in desired]
    modifies = [update(_U.MODIFY, desired[k][1]) for k in desired
                if k in current and current[k][0] != desired[k][0]]
    inserts = [update(_U.INSERT, desired[k][1]) for k in desired if k not in current]
    return deletes + modifies + inserts, WriteCounts(len(inserts), len(modifies), len(deletes))


def write_batches(session: P4RuntimeSession, updates: Sequence[p4runtime_pb2.Update]) -> None:
    for start in range(0, len(updates), BATCH):
        try:
            session.write(updates[start:start + BATCH])
        except P4RuntimeWriteError as error:
            raise ReconcileError(f"write refused: {error.summary()}") from None


def mismatches(helper: P4InfoHelper, desired: State, current: State) -> list[str]:
    """What differs between a read-back and the desired state, for people."""
    problems: list[str] = []
    for key in desired:
        if key not in current:
            problems.append(f"missing {describe(helper, key)}")
        elif current[key][0] != desired[key][0]:
            problems.append(f"differs {describe(helper, key)}")
    problems += [f"extra {describe(helper, key)}" for key in current if key not in desired]
    return problems


def reconcile(session: P4RuntimeSession, helper: P4InfoHelper, role: Role,
              desired_of: Callable[[State], State]) -> WriteCounts:
    """Read what the device holds, ask ``desired_of(current)`` what it should hold
    (a NIC's top-ups are found in what it holds), write the difference, read back;
    ReconcileError if the device refused a write or differs afterwards."""
    current, digest_readable = read_owned(session, helper, role)
    desired = desired_of(current)
    inserted = 0
    if not digest_readable:
        inserted = _insert_unreadable(session, desired)
        desired = {key: held for key, held in desired.items() if key[0] != "digest"}
    updates, counts = diff(desired, current)
    counts = replace(counts, inserted=counts.inserted + inserted)
    if updates:
        write_batches(session, updates)
        problems = mismatches(helper, desired, read_owned(session, helper, role)[0])
        if problems:
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise ReconcileError("read-back differs: " + "; ".join(problems[:3]) + more)
    return counts


def check_names(helper: P4InfoHelper, role: Role) -> None:
    """ReconcileError if the pipeline lacks a table the controller owns (a device
    running another program)."""
    try:
        for table in OWNED_TABLES[role]:
            helper.table(table)
        if role is Role.NIC:
            helper.get("digests", n.EV_EVENT_DIGEST)
    except UnknownNameError as error:
        raise ReconcileError(f"the device's program is not the {role} program: {error}"
                             ) from None

