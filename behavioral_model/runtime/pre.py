"""Packet replication engine state: multicast groups and clone (mirror) sessions.

Two control-plane views of multicast groups are offered over the same state:

* P4Runtime style: a group is a whole list of :class:`Replica` written at once
  (``create_group``/``modify_group``/``delete_group``).
* BMv2 CLI style, as used by STF files: ``create_node(rid, ports) -> handle`` then
  ``associate_node(group, handle)``; handles are numbered from 0 in creation order,
  like ``simple_switch``.

Lookups used per packet (``get_group``, ``get_clone_session``) return None for an
unknown id; mutations raise ``RuntimeStateError`` subclasses.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from behavioral_model.runtime.errors import (
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
)

__all__ = ["Replica", "CloneSession", "McNode", "PacketReplicationEngine"]


@dataclass(frozen=True, slots=True)
class Replica:
    """One copy: the egress port and the replication id (``egress_rid``, the
    P4Runtime ``instance``)."""

    egress_port: int
    rid: int = 0


@dataclass(frozen=True, slots=True)
class CloneSession:
    """Where clones for one session go.

    Either a single ``egress_port`` (BMv2 ``mirroring_add``), an explicit
    ``replicas`` list (P4Runtime ``CloneSessionEntry``), or a multicast group
    (BMv2 ``mirroring_add_mc``; the group's replicas are used when cloning).
    ``packet_length_bytes`` truncates clones; 0 means no truncation.
    """

    egress_port: int | None = None
    class_of_service: int = 0
    packet_length_bytes: int = 0
    replicas: tuple[Replica, ...] = ()
    multicast_group_id: int = 0

    def __post_init__(self) -> None:
        if self.egress_port is None and not self.replicas and not self.multicast_group_id:
            raise InvalidEntryError(
                "clone session needs an egress port, replicas or a multicast group"
            )
        if self.packet_length_bytes < 0:
            raise InvalidEntryError("clone session packet_length_bytes cannot be negative")

    def destinations(self) -> tuple[Replica, ...]:
        """The explicit copies (``replicas``, else the single port with rid 0).
        Empty for a multicast-group session: resolve ``multicast_group_id``."""
        if self.replicas:
            return self.replicas
        if self.egress_port is not None:
            return (Replica(self.egress_port, 0),)
        return ()


@dataclass(slots=True)
class McNode:
    """A BMv2 multicast node: one rid and its ports, associated to groups."""

    rid: int
    ports: tuple[int, ...]
    groups: set[int] = field(default_factory=set)


class PacketReplicationEngine:
    def __init__(self) -> None:
        # Per group: replicas written P4Runtime style, then those of associated nodes.
        self._groups: dict[int, tuple[Replica, ...]] = {}
        self._written: dict[int, tuple[Replica, ...]] = {}
        self._sessions: dict[int, CloneSession] = {}
        # BMv2-style node bookkeeping: which node contributed which replicas.
        self._nodes: dict[int, McNode] = {}
        self._node_handles = itertools.count()
        self._group_nodes: dict[int, list[int]] = {}

    # -- multicast groups, P4Runtime style -------------------------------------------

    def create_group(self, group_id: int, replicas: Iterable[Replica] = ()) -> None:
        if group_id <= 0:
            raise InvalidEntryError(f"multicast group id must be > 0, got {group_id}")
        if group_id in self._groups:
            raise DuplicateEntryError(f"multicast group {group_id} already exists")
        self._written[group_id] = tuple(replicas)
        self._group_nodes[group_id] = []
        self._rebuild_group(group_id)

    def modify_group(self, group_id: int, replicas: Iterable[Replica]) -> None:
        """Replace the whole replica list (forgets BMv2 node associations)."""
        self._require_group(group_id)
        self._written[group_id] = tuple(replicas)
        self._forget_group_nodes(group_id)
        self._rebuild_group(group_id)

    def delete_group(self, group_id: int) -> None:
        self._require_group(group_id)
        self._forget_group_nodes(group_id)
        del self._groups[group_id]
        del self._written[group_id]
        del self._group_nodes[group_id]

    def get_group(self, group_id: int) -> tuple[Replica, ...] | None:
        """Replicas of a group (per packet), or None if it does not exist."""
        return self._groups.get(group_id)

    def groups(self) -> dict[int, tuple[Replica, ...]]:
        return dict(self._groups)

    def _require_group(self, group_id: int) -> None:
        if group_id not in self._groups:
            raise EntryNotFoundError(f"multicast group {group_id} does not exist")

    def _forget_group_nodes(self, group_id: int) -> None:
        for handle in self._group_nodes.get(group_id, []):
            self._nodes[handle].groups.discard(group_id)
        self._group_nodes[group_id] = []

    # -- multicast groups, BMv2 node style -------------------------------------------

    def create_node(self, rid: int, ports: Iterable[int]) -> int:
        """Create a node (``mc_node_create``); returns its handle."""
        handle = next(self._node_handles)
        self._nodes[handle] = McNode(rid, tuple(ports))
        return handle

    def update_node(self, handle: int, ports: Iterable[int]) -> None:
        """Change a node's ports (``mc_node_update``); groups using it follow."""
        node = self._require_node(handle)
        node.ports = tuple(ports)
        for group_id in node.groups:
            self._rebuild_group(group_id)

    def destroy_node(self, handle: int) -> None:
        node = self._require_node(handle)
        for group_id in list(node.groups):
            self.dissociate_node(group_id, handle)
        del self._nodes[handle]

    def associate_node(self, group_id: int, handle: int) -> None:
        """Add a node's replicas to a group (``mc_node_associate``)."""
        self._require_group(group_id)
        node = self._require_node(handle)
        if group_id in node.groups:
            raise DuplicateEntryError(f"node {handle} is already in group {group_id}")
        node.groups.add(group_id)
        self._group_nodes[group_id].append(handle)
        self._rebuild_group(group_id)

    def dissociate_node(self, group_id: int, handle: int) -> None:
        self._require_group(group_id)
        node = self._require_node(handle)
        if group_id not in node.groups:
            raise EntryNotFoundError(f"node {handle} is not in group {group_id}")
        node.groups.discard(group_id)
        self._group_nodes[group_id].remove(handle)
        self._rebuild_group(group_id)

    def _require_node(self, handle: int) -> McNode:
        node = self._nodes.get(handle)
        if node is None:
            raise EntryNotFoundError(f"multicast node handle {handle} does not exist")
        return node

    def _rebuild_group(self, group_id: int) -> None:
        self._groups[group_id] = self._written[group_id] + tuple(
            Replica(port, self._nodes[h].rid)
            for h in self._group_nodes[group_id]
            for port in self._nodes[h].ports
        )

    # -- clone sessions --------------------------------------------------------------

    def create_clone_session(self, session_id: int, session: CloneSession) -> None:
        if session_id < 0:
            raise InvalidEntryError(f"clone session id cannot be negative, got {session_id}")
        if session_id in self._sessions:
            raise DuplicateEntryError(f"clone session {session_id} already exists")
        self._sessions[session_id] = session

    def modify_clone_session(self, session_id: int, session: CloneSession) -> None:
        if session_id not in self._sessions:
            raise EntryNotFoundError(f"clone session {session_id} does not exist")
        self._sessions[session_id] = session

    def delete_clone_session(self, session_id: int) -> None:
        if self._sessions.pop(session_id, None) is None:
            raise EntryNotFoundError(f"clone session {session_id} does not exist")

    def get_clone_session(self, session_id: int) -> CloneSession | None:
        """The session (per packet), or None: BMv2 drops clones to unknown sessions."""
        return self._sessions.get(session_id)

    def clone_sessions(self) -> dict[int, CloneSession]:
        return dict(self._sessions)

    # -- whole state -----------------------------------------------------------------

    def reset(self) -> None:
        self._groups.clear()
        self._written.clear()
        self._sessions.clear()
        self._nodes.clear()
        self._group_nodes.clear()
        self._node_handles = itertools.count()
