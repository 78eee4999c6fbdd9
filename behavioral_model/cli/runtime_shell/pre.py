"""The packet replication engine: ``mc_mgrp_create``, ``mc_mgrp_destroy``,
``mc_node_create``, ``mc_node_update``, ``mc_node_associate``, ``mc_node_dissociate``,
``mc_node_destroy``, ``mc_dump``, and ``mirroring_add``, ``mirroring_delete``,
``mirroring_get``.

BMv2 builds a multicast group from *nodes* (a replication id and a set of ports) that
are associated with groups; P4Runtime has only groups with replicas (port,
instance). The nodes live here, client-side: a group touched by this CLI is written
as the replicas of its associated nodes, each port with the node's rid as instance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from behavioral_model.cli.runtime_shell.context import (
    DELETE,
    INSERT,
    MODIFY,
    Command,
    CommandError,
    ShellContext,
    expect_args,
)
from behavioral_model.cli.runtime_shell.syntax import number

__all__ = ["PreCommands"]


@dataclass
class _Node:
    rid: int
    ports: tuple[int, ...]
    groups: set[int] = field(default_factory=set)


class PreCommands:
    def __init__(self, ctx: ShellContext) -> None:
        self.ctx = ctx
        self._nodes: dict[int, _Node] = {}
        self._next_node = 0
        self._groups: dict[int, list[int]] = {}  # group -> node handles, in order

    def commands(self) -> list[Command]:
        return [
            Command("mc_mgrp_create", "<group id>", "create an empty multicast group",
                    self.mgrp_create),
            Command("mc_mgrp_destroy", "<group id>", "delete a multicast group",
                    self.mgrp_destroy),
            Command("mc_node_create", "<rid> <port>...", "create a node (a replication id "
                    "and ports)", self.node_create),
            Command("mc_node_update", "<node handle> <port>...", "change a node's ports",
                    self.node_update),
            Command("mc_node_associate", "<group id> <node handle>",
                    "add a node to a group", self.node_associate),
            Command("mc_node_dissociate", "<group id> <node handle>",
                    "take a node out of a group", self.node_dissociate),
            Command("mc_node_destroy", "<node handle>", "delete a node", self.node_destroy),
            Command("mc_dump", "", "show the multicast groups on the device", self.dump),
            Command("mirroring_add", "<session id> <egress port>",
                    "create or replace a clone session", self.mirroring_add),
            Command("mirroring_add_mc", "<session id> <group id>",
                    "not available over P4Runtime (a clone session has ports, not a "
                    "multicast group)", self.mirroring_add_mc),
            Command("mirroring_delete", "<session id>", "delete a clone session",
                    self.mirroring_delete),
            Command("mirroring_get", "<session id>", "show a clone session",
                    self.mirroring_get),
        ]

    # -- multicast --------------------------------------------------------------------
    def _group_entry(self, group_id: int) -> p4runtime_pb2.PacketReplicationEngineEntry:
        entry = p4runtime_pb2.PacketReplicationEngineEntry()
        group = entry.multicast_group_entry
        group.multicast_group_id = group_id
        for handle in self._groups.get(group_id, []):
            node = self._nodes[handle]
            group.replicas.extend(p4runtime_pb2.Replica(egress_port=port, instance=node.rid)
                                  for port in node.ports)
        return entry

    def _group_id(self, text: str) -> int:
        group_id = number(text, "group id")
        if group_id not in self._groups:
            raise CommandError(f"multicast group {group_id} was not created by this CLI "
                               "(mc_mgrp_create)")
        return group_id

    def _node(self, text: str) -> tuple[int, _Node]:
        handle = number(text, "node handle")
        if handle not in self._nodes:
            raise CommandError(f"no multicast node with handle {handle}")
        return handle, self._nodes[handle]

    def mgrp_create(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "mc_mgrp_create <group id>")
        group_id = number(words[0], "group id")
        self.ctx.write(INSERT, self._group_entry(group_id))
        self._groups[group_id] = []
        self.ctx.out(f"Creating multicast group {group_id}")

    def mgrp_destroy(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "mc_mgrp_destroy <group id>")
        group_id = number(words[0], "group id")
        self.ctx.write(DELETE, self._group_entry(group_id))
        for handle in self._groups.pop(group_id, []):
            self._nodes[handle].groups.discard(group_id)
        self.ctx.out(f"Destroying multicast group {group_id}")

    def node_create(self, words: list[str]) -> None:
        expect_args(words, 1, None, "mc_node_create <rid> <port>...")
        rid = number(words[0], "rid")
        ports = tuple(number(p, "port") for p in words[1:])
        handle = self._next_node
        self._next_node += 1
        self._nodes[handle] = _Node(rid, ports)
        self.ctx.out(f"Creating node with rid {rid}, ports {' '.join(map(str, ports))}")
        self.ctx.out(f"node was created with handle {handle}")

    def _rewrite(self, groups: set[int] | list[int]) -> None:
        self.ctx.write_updates(
            p4runtime_pb2.Update(type=MODIFY,
                                 entity=p4runtime_pb2.Entity(
                                     packet_replication_engine_entry=self._group_entry(g)))
            for g in sorted(groups))

    def node_update(self, words: list[str]) -> None:
        expect_args(words, 1, None, "mc_node_update <node handle> <port>...")
        handle, node = self._node(words[0])
        old = node.ports
        node.ports = tuple(number(p, "port") for p in words[1:])
        try:
            self._rewrite(node.groups)
        except Exception:  # the device kept the old groups: so does the model
            node.ports = old
            raise
        self.ctx.out(f"Updating node {handle}")

    def _membership(self, words: list[str], associate: bool) -> None:
        verb = "associate" if associate else "dissociate"
        expect_args(words, 2, 2, f"mc_node_{verb} <group id> <node handle>")
        group_id = self._group_id(words[0])
        handle, node = self._node(words[1])
        members = self._groups[group_id]
        if associate == (handle in members):
            raise CommandError(f"node {handle} is {'already' if associate else 'not'} in "
                               f"group {group_id}")
        if associate:
            members.append(handle)
        else:
            members.remove(handle)
        try:
            self._rewrite([group_id])
        except Exception:  # the device kept the old group: so does the model
            if associate:
                members.remove(handle)
            else:
                members.append(handle)
            raise
        if associate:
            node.groups.add(group_id)
        else:
            node.groups.discard(group_id)
        self.ctx.out(f"{verb.capitalize()}d node {handle} {'to' if associate else 'from'} "
                     f"multicast group {group_id}")

    def node_associate(self, words: list[str]) -> None:
        self._membership(words, associate=True)

    def node_dissociate(self, words: list[str]) -> None:
        self._membership(words, associate=False)

    def node_destroy(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "mc_node_destroy <node handle>")
        handle, node = self._node(words[0])
        if node.groups:
            raise CommandError(f"node {handle} is still in group(s) "
                               f"{', '.join(map(str, sorted(node.groups)))}; "
                               "mc_node_dissociate it first")
        del self._nodes[handle]
        self.ctx.out(f"Destroying node {handle}")

    def dump(self, words: list[str]) -> None:
        expect_args(words, 0, 0, "mc_dump")
        probe = p4runtime_pb2.PacketReplicationEngineEntry()
        probe.multicast_group_entry.SetInParent()
        for found in self.ctx.read(probe):
            group = found.packet_replication_engine_entry.multicast_group_entry
            replicas = " ".join(f"(port {r.egress_port}, rid {r.instance})"
                                for r in group.replicas)
            self.ctx.out(f"mgrp {group.multicast_group_id}: {replicas or '(empty)'}")

    # -- mirroring --------------------------------------------------------------------
    def _session(self, session_id: int) -> p4runtime_pb2.PacketReplicationEngineEntry:
        entry = p4runtime_pb2.PacketReplicationEngineEntry()
        entry.clone_session_entry.session_id = session_id
        return entry

    def _read_session(self, session_id: int) -> p4runtime_pb2.CloneSessionEntry | None:
        found = self.ctx.read(self._session(session_id))
        return found[0].packet_replication_engine_entry.clone_session_entry if found else None

    def mirroring_add(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "mirroring_add <session id> <egress port>")
        session_id = number(words[0], "session id")
        entry = self._session(session_id)
        entry.clone_session_entry.replicas.add(egress_port=number(words[1], "egress port"))
        # simple_switch_CLI's mirroring_add replaces an existing session.
        exists = self._read_session(session_id) is not None
        self.ctx.write(MODIFY if exists else INSERT, entry)
        self.ctx.out(f"Mirroring session {session_id} sends to port {words[1]}")

    def mirroring_add_mc(self, words: list[str]) -> None:
        raise CommandError("a P4Runtime clone session replicates to ports, not to a "
                           "multicast group: use mirroring_add per port")

    def mirroring_delete(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "mirroring_delete <session id>")
        self.ctx.write(DELETE, self._session(number(words[0], "session id")))
        self.ctx.out(f"Mirroring session {words[0]} deleted")

    def mirroring_get(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "mirroring_get <session id>")
        session = self._read_session(number(words[0], "session id"))
        if session is None:
            raise CommandError(f"no mirroring session {words[0]}")
        ports = ", ".join(str(r.egress_port) for r in session.replicas)
        self.ctx.out(f"Mirroring session {session.session_id}: port(s) {ports}")
