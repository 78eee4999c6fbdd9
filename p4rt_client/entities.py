"""Wrapping P4Runtime messages: entities, updates, pipeline cookies."""

from __future__ import annotations

import hashlib
from typing import Any

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

__all__ = ["pipeline_cookie", "to_entity", "update"]

_ENTITY_FIELDS: dict[type, str] = {
    p4runtime_pb2.TableEntry: "table_entry",
    p4runtime_pb2.ActionProfileMember: "action_profile_member",
    p4runtime_pb2.ActionProfileGroup: "action_profile_group",
    p4runtime_pb2.MeterEntry: "meter_entry",
    p4runtime_pb2.DirectMeterEntry: "direct_meter_entry",
    p4runtime_pb2.CounterEntry: "counter_entry",
    p4runtime_pb2.DirectCounterEntry: "direct_counter_entry",
    p4runtime_pb2.PacketReplicationEngineEntry: "packet_replication_engine_entry",
    p4runtime_pb2.ValueSetEntry: "value_set_entry",
    p4runtime_pb2.RegisterEntry: "register_entry",
    p4runtime_pb2.DigestEntry: "digest_entry",
}


def to_entity(obj: Any) -> p4runtime_pb2.Entity:
    """Wrap a TableEntry, CounterEntry, PRE entry, DigestEntry... in an Entity."""
    if isinstance(obj, p4runtime_pb2.Entity):
        return obj
    field = _ENTITY_FIELDS.get(type(obj))
    if field is None:
        raise TypeError(f"not a P4Runtime entity: {type(obj).__name__}")
    entity = p4runtime_pb2.Entity()
    getattr(entity, field).CopyFrom(obj)
    return entity


def update(kind: int, obj: Any) -> p4runtime_pb2.Update:
    """An Update of ``kind`` (p4runtime_pb2.Update.INSERT...) for an entity."""
    result = p4runtime_pb2.Update(type=kind)
    result.entity.CopyFrom(to_entity(obj))
    return result


def pipeline_cookie(p4info: p4info_pb2.P4Info, device_config: bytes) -> int:
    """A 64-bit cookie that identifies a pipeline (P4Info + device config)."""
    digest = hashlib.sha256(p4info.SerializeToString(deterministic=True)
                            + b"\0" + device_config).digest()
    return int.from_bytes(digest[:8], "big") or 1
