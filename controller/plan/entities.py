"""What the plan asks a device to hold, by P4Info *names*: table entries, PRE multicast
groups and digest configurations. ``apply`` turns each into a P4Runtime update, looking
the names up in the device's P4Info; values are plain integers it encodes to the
field's bit width.

The records are NamedTuples: immutable like frozen dataclasses, and cheap enough to
build by the ten million (the 131,072-NIC plan) where a frozen dataclass costs about
twice as much per entry.
"""

from __future__ import annotations

from typing import NamedTuple


class Exact(NamedTuple):
    value: int


class Lpm(NamedTuple):
    value: int
    prefix_len: int


class TableEntry(NamedTuple):
    table: str
    match: tuple[tuple[str, Exact | Lpm], ...]
    action: str
    params: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> tuple[str, tuple[tuple[str, Exact | Lpm], ...]]:
        """What identifies the entry on the device (P4Runtime: table and match)."""
        return self.table, self.match


class Replica(NamedTuple):
    port: int
    instance: int


class MulticastGroup(NamedTuple):
    """A PRE multicast group (P4Runtime PacketReplicationEngineEntry)."""

    group_id: int
    replicas: tuple[Replica, ...]

    @property
    def key(self) -> tuple[str, int]:
        return "multicast_group", self.group_id


class DigestConfig(NamedTuple):
    """Digest delivery to the controller (P4Runtime DigestEntry), by the digest's name."""

    digest: str
    max_timeout_ns: int
    max_list_size: int
    ack_timeout_ns: int

    @property
    def key(self) -> tuple[str, str]:
        return "digest", self.digest


Entity = TableEntry | MulticastGroup | DigestConfig


def entity_kind(entity: Entity) -> str:
    """The name counts are kept under: the table, or the kind of PRE/digest entity."""
    if isinstance(entity, TableEntry):
        return entity.table
    if isinstance(entity, MulticastGroup):
        return "pre.multicast_group"
    return "digest"
