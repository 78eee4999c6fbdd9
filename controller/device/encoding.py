"""Planned entities as P4Runtime entities (names looked up in the device's P4Info), and
the comparable form of any P4Runtime entity, so that what a device holds can be diffed
against what the plan wants.

A *state* is ``{key: (value, entity)}``: ``key`` says which entry it is (the table and
its match, a multicast group id, a digest id), ``value`` what it holds (action and
parameters, replicas, digest configuration), both as plain integers, however the
server chose to encode its bytes (canonical or padded, ``port`` or ``egress_port``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from p4.v1 import p4runtime_pb2

from controller.plan import DigestConfig, Entity, Exact, MulticastGroup, TableEntry
from p4rt_client import P4InfoHelper, to_entity

Key = tuple[Any, ...]
Value = tuple[Any, ...]
State = dict[Key, tuple[Value, p4runtime_pb2.Entity]]


def encode(helper: P4InfoHelper, entity: Entity) -> p4runtime_pb2.Entity:
    """The P4Runtime entity of a planned one; UnknownNameError for a name the P4Info
    does not have, ValueError for a value that does not fit its field."""
    if isinstance(entity, TableEntry):
        match = {name: m.value if isinstance(m, Exact) else (m.value, m.prefix_len)
                 for name, m in entity.match}
        return to_entity(helper.table_entry(entity.table, match=match, action=entity.action,
                                            params=dict(entity.params)))
    if isinstance(entity, MulticastGroup):
        return to_entity(helper.multicast_group_entry(
            entity.group_id, [(r.port, r.instance) for r in entity.replicas]))
    assert isinstance(entity, DigestConfig)
    return to_entity(helper.digest_entry(entity.digest, entity.max_timeout_ns,
                                         entity.max_list_size, entity.ack_timeout_ns))


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _field_match(fm: p4runtime_pb2.FieldMatch) -> tuple[int, str, int, int]:
    kind = fm.WhichOneof("field_match_type")
    if kind == "exact":
        return fm.field_id, kind, _int(fm.exact.value), 0
    if kind == "lpm":
        return fm.field_id, kind, _int(fm.lpm.value), fm.lpm.prefix_len
    if kind == "ternary":
        return fm.field_id, kind, _int(fm.ternary.value), _int(fm.ternary.mask)
    if kind == "range":
        return fm.field_id, kind, _int(fm.range.low), _int(fm.range.high)
    return fm.field_id, str(kind), _int(fm.optional.value), 0


def _replica_port(replica: p4runtime_pb2.Replica) -> int:
    if replica.WhichOneof("port_kind") == "port":
        return _int(replica.port)
    return replica.egress_port


def key_and_value(entity: p4runtime_pb2.Entity) -> tuple[Key, Value]:
    """The comparable (key, value) of a P4Runtime entity."""
    kind = entity.WhichOneof("entity")
    if kind == "table_entry":
        entry = entity.table_entry
        key: Key = ("table", entry.table_id, entry.priority,
                    tuple(sorted(_field_match(fm) for fm in entry.match)))
        action = entry.action.action
        value: Value = (action.action_id,
                        tuple(sorted((p.param_id, _int(p.value)) for p in action.params)))
        return key, value
    if kind == "packet_replication_engine_entry":
        group = entity.packet_replication_engine_entry.multicast_group_entry
        return (("multicast_group", group.multicast_group_id),
                tuple(sorted((_replica_port(r), r.instance) for r in group.replicas)))
    if kind == "digest_entry":
        digest = entity.digest_entry
        config = digest.config
        return (("digest", digest.digest_id),
                (config.max_timeout_ns, config.max_list_size, config.ack_timeout_ns))
    raise ValueError(f"the controller does not manage {kind} entities")


def state_of(entities: Iterable[p4runtime_pb2.Entity]) -> State:
    state: State = {}
    for entity in entities:
        key, value = key_and_value(entity)
        state[key] = (value, entity)
    return state


def desired_state(helper: P4InfoHelper, entities: Iterable[Entity]) -> State:
    return state_of(encode(helper, e) for e in entities)


def describe(helper: P4InfoHelper, key: Key) -> str:
    """A key for people: ``qp_ev`` and its match values, ``multicast group 1``..."""
    if key[0] == "table":
        name = helper.name_of(key[1])
        fields = {f.id: f.name for f in helper.by_id(key[1]).match_fields}
        match = " ".join(f"{fields.get(fid, fid)}={value:#x}" + (f"/{extra}" if kind == "lpm"
                                                                  else "")
                         for fid, kind, value, extra in key[3])
        return f"{name} {match}"
    if key[0] == "multicast_group":
        return f"multicast group {key[1]}"
    return f"digest {helper.name_of(key[1])}"
