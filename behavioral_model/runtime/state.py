"""All run-time state of one device, and lookup of its objects by (short) name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from behavioral_model.runtime.action_profiles import ActionProfile
from behavioral_model.runtime.digests import DigestQueue
from behavioral_model.runtime.externs import CounterArray, MeterArray, RegisterArray
from behavioral_model.runtime.naming import resolve_name
from behavioral_model.runtime.pre import PacketReplicationEngine
from behavioral_model.runtime.tables import Table

__all__ = ["DirectResource", "DeviceState"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class DirectResource:
    """A direct counter or direct meter: its name, the table it is attached to and
    its kind (``"packets"``, ``"bytes"`` or ``"packets_and_bytes"``). Its per-entry
    data lives on each ``TableEntry`` (``direct_counter`` / ``direct_meter``)."""

    name: str
    table: str
    kind: str


@dataclass
class DeviceState:
    """Tables, externs, PRE and digests of one device, keyed by full P4 name.

    ``value_sets`` maps a parser value set to its ``(value, mask)`` members.
    The accessor methods accept a full name or a unique dotted suffix.
    """

    tables: dict[str, Table] = field(default_factory=dict)
    registers: dict[str, RegisterArray] = field(default_factory=dict)
    counters: dict[str, CounterArray] = field(default_factory=dict)
    meters: dict[str, MeterArray] = field(default_factory=dict)
    direct_counters: dict[str, DirectResource] = field(default_factory=dict)
    direct_meters: dict[str, DirectResource] = field(default_factory=dict)
    pre: PacketReplicationEngine = field(default_factory=PacketReplicationEngine)
    digests: DigestQueue = field(default_factory=DigestQueue)
    value_sets: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    action_profiles: dict[str, ActionProfile] = field(default_factory=dict)

    @staticmethod
    def _find(objects: dict[str, _T], name: str, what: str) -> _T:
        found = objects.get(name)
        if found is not None:
            return found
        return objects[resolve_name(name, objects, what)]

    def table(self, name: str) -> Table:
        """``"ipv6_lpm"`` -> the table ``"MyIngress.ipv6_lpm"``; UnknownNameError if
        no table or several tables match."""
        return self._find(self.tables, name, "table")

    def register(self, name: str) -> RegisterArray:
        return self._find(self.registers, name, "register")

    def counter(self, name: str) -> CounterArray:
        return self._find(self.counters, name, "counter")

    def meter(self, name: str) -> MeterArray:
        return self._find(self.meters, name, "meter")

    def direct_counter(self, name: str) -> DirectResource:
        return self._find(self.direct_counters, name, "direct counter")

    def direct_meter(self, name: str) -> DirectResource:
        return self._find(self.direct_meters, name, "direct meter")

    def action_profile(self, name: str) -> ActionProfile:
        return self._find(self.action_profiles, name, "action profile")

    def value_set(self, name: str) -> list[tuple[int, int]]:
        return self.value_sets[resolve_name(name, self.value_sets, "value set")]

    def reset(self) -> None:
        """Forget everything the control plane and the data plane wrote: runtime
        table entries and default actions, register/counter values, meter
        configurations, PRE groups and sessions, queued digests, value-set members.
        Const table entries from the P4 source stay."""
        for table in self.tables.values():
            table.reset()
        for register in self.registers.values():
            register.reset()
        for counter in self.counters.values():
            counter.reset()
        for meter in self.meters.values():
            meter.reset()
        for profile in self.action_profiles.values():
            profile.reset()
        self.pre.reset()
        self.digests.clear()
        for members in self.value_sets.values():
            members.clear()
