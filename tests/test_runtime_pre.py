"""Packet replication engine: multicast groups (both styles) and clone sessions."""

from __future__ import annotations

import pytest

from behavioral_model.runtime.errors import (
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
)
from behavioral_model.runtime.pre import CloneSession, PacketReplicationEngine, Replica


def test_group_create_get_modify_delete() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1, [Replica(1, 0), Replica(2, 0)])
    assert pre.get_group(1) == (Replica(1, 0), Replica(2, 0))
    pre.modify_group(1, [Replica(3, 7)])
    assert pre.get_group(1) == (Replica(3, 7),)
    assert pre.groups() == {1: (Replica(3, 7),)}
    pre.delete_group(1)
    assert pre.get_group(1) is None


def test_group_errors() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1)
    with pytest.raises(DuplicateEntryError):
        pre.create_group(1)
    with pytest.raises(EntryNotFoundError):
        pre.modify_group(2, [])
    with pytest.raises(EntryNotFoundError):
        pre.delete_group(2)
    with pytest.raises(InvalidEntryError, match="> 0"):
        pre.create_group(0)


def test_bmv2_nodes_numbered_from_zero_and_associated() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1113)
    handles = [pre.create_node(400, [6]), pre.create_node(401, [7]), pre.create_node(402, [8])]
    assert handles == [0, 1, 2]
    for handle in handles:
        pre.associate_node(1113, handle)
    assert pre.get_group(1113) == (Replica(6, 400), Replica(7, 401), Replica(8, 402))
    pre.dissociate_node(1113, 1)
    assert pre.get_group(1113) == (Replica(6, 400), Replica(8, 402))
    pre.update_node(0, [5, 6])
    assert pre.get_group(1113) == (Replica(5, 400), Replica(6, 400), Replica(8, 402))
    pre.destroy_node(2)
    assert pre.get_group(1113) == (Replica(5, 400), Replica(6, 400))


def test_nodes_add_to_replicas_written_p4runtime_style() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1, [Replica(9, 1)])
    handle = pre.create_node(0, [1, 2])
    pre.associate_node(1, handle)
    assert pre.get_group(1) == (Replica(9, 1), Replica(1, 0), Replica(2, 0))
    pre.dissociate_node(1, handle)
    assert pre.get_group(1) == (Replica(9, 1),)


def test_node_errors() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1)
    handle = pre.create_node(0, [1])
    with pytest.raises(EntryNotFoundError):
        pre.associate_node(2, handle)
    with pytest.raises(EntryNotFoundError):
        pre.associate_node(1, 99)
    pre.associate_node(1, handle)
    with pytest.raises(DuplicateEntryError):
        pre.associate_node(1, handle)
    with pytest.raises(EntryNotFoundError):
        pre.dissociate_node(1, pre.create_node(0, [2]))


def test_clone_sessions() -> None:
    pre = PacketReplicationEngine()
    pre.create_clone_session(5, CloneSession(egress_port=4))
    session = pre.get_clone_session(5)
    assert session is not None
    assert session.destinations() == (Replica(4, 0),)
    assert session.packet_length_bytes == 0
    pre.modify_clone_session(5, CloneSession(replicas=(Replica(1, 2), Replica(3, 4))))
    assert pre.get_clone_session(5).destinations() == (Replica(1, 2), Replica(3, 4))
    pre.delete_clone_session(5)
    assert pre.get_clone_session(5) is None


def test_clone_session_to_multicast_group() -> None:
    session = CloneSession(multicast_group_id=7, packet_length_bytes=64)
    assert session.destinations() == ()
    assert session.multicast_group_id == 7


def test_clone_session_errors() -> None:
    pre = PacketReplicationEngine()
    pre.create_clone_session(1, CloneSession(egress_port=1))
    with pytest.raises(DuplicateEntryError):
        pre.create_clone_session(1, CloneSession(egress_port=2))
    with pytest.raises(EntryNotFoundError):
        pre.modify_clone_session(2, CloneSession(egress_port=2))
    with pytest.raises(EntryNotFoundError):
        pre.delete_clone_session(2)
    with pytest.raises(InvalidEntryError, match="needs an egress port"):
        CloneSession()
    with pytest.raises(InvalidEntryError, match="negative"):
        CloneSession(egress_port=1, packet_length_bytes=-1)


def test_reset() -> None:
    pre = PacketReplicationEngine()
    pre.create_group(1, [Replica(1)])
    pre.create_node(0, [1])
    pre.create_clone_session(1, CloneSession(egress_port=1))
    pre.reset()
    assert pre.groups() == {}
    assert pre.clone_sessions() == {}
    assert pre.create_node(0, [1]) == 0
