"""What the plan needs to know of a fabric, whether it was listed or generated.

``Fabric`` is the interface, with the settings every fabric carries; ``ListedFabric``
(``explicit.py``) holds every device and link of a small file, ``ClosFabric``
(``clos.py``) computes them from a shape, so a 131,072-NIC fabric never exists as a
million link objects.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from protocol import constants as c


class Role(StrEnum):
    T1 = "t1"
    T0 = "t0"
    NIC = "nic"


@dataclass(frozen=True, slots=True)
class DeviceAccess:
    """How the controller reaches a device over P4Runtime."""

    address: str
    device_id: int
    target: str
    program: str
    # bmv2 only: (BMv2 JSON, P4Info) files to push when p4c-bm2-ss is not on PATH.
    bmv2_files: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class SwitchNode:
    name: str
    role: Role
    plane: int
    index: int  # among the switches of its role and plane
    usid: int | None  # as the file asked; None: the plan allocates
    mac: int
    access: DeviceAccess
    where: str  # its place in the topology file, for messages


@dataclass(frozen=True, slots=True)
class NicNode:
    name: str
    index: int
    ipv6: int
    ports: tuple[int, ...]  # ports[p]: the port of plane p
    macs: tuple[int, ...]  # macs[p]: the MAC of ports[p]
    access: DeviceAccess


@dataclass(frozen=True, slots=True)
class PortLink:
    """One cabled port of a device: ``port`` here leads to ``peer_port`` of ``peer``,
    whose MAC on that port is ``peer_mac``."""

    port: int
    peer: str
    peer_role: Role
    peer_port: int
    peer_mac: int


@dataclass(frozen=True, slots=True)
class QpEnd:
    nic: str
    qpn: int
    qp_index: int  # index in the NIC's per-QP tables and registers


@dataclass(frozen=True, slots=True)
class QpDecl:
    """A connection between two NICs, with its defaults filled in."""

    name: str
    ends: tuple[QpEnd, QpEnd]
    evs_per_plane: int
    backups_per_plane: int  # configured at first, on each plane
    backup_ids_per_plane: int  # the size of each plane's backup-id range (top-ups)
    sack_every: int
    min_active: int
    probe_threshold: int
    where: str


@dataclass(frozen=True, slots=True)
class DeviceGroup:
    """Devices that get the same number of entries in every table (``members`` of them).

    The plan counts entries once per group: a generated Clos fabric has a handful of
    groups, a listed one a group per device.
    """

    role: Role
    representative: str
    members: int


@dataclass(kw_only=True)
class Fabric(ABC):
    """The devices and cabling of one fabric, as the plan walks them, and the settings
    that hold fabric-wide."""

    source: str  # the topology file, for messages
    name: str
    planes: int
    usid_block: int
    port_bits: int
    trim_threshold: int
    ecn_low: int
    ecn_high: int
    qps: tuple[QpDecl, ...] = ()

    @property
    @abstractmethod
    def switch_count(self) -> int: ...

    @property
    @abstractmethod
    def nic_count(self) -> int: ...

    @abstractmethod
    def switches(self) -> Iterator[SwitchNode]: ...

    @abstractmethod
    def nics(self) -> Iterator[NicNode]: ...

    @abstractmethod
    def switch(self, name: str) -> SwitchNode | None: ...

    @abstractmethod
    def nic(self, name: str) -> NicNode | None: ...

    @abstractmethod
    def switch_links(self, name: str) -> Iterator[PortLink]:
        """Every cabled port of switch ``name``, in port order."""

    @abstractmethod
    def nic_link(self, name: str, plane: int) -> PortLink:
        """Where NIC ``name``'s port of ``plane`` is cabled (always a T0 of that plane)."""

    @abstractmethod
    def common_t1s(self, plane: int, t0_a: str, t0_b: str) -> list[SwitchNode]:
        """The T1s of ``plane`` cabled to both T0s, by index."""

    @abstractmethod
    def device_groups(self) -> Iterator[DeviceGroup]: ...


def usable_ports(port_bits: int) -> Iterator[int]:
    """Front-panel port numbers from 1 up: the programs' CPU and drop ports are not
    front-panel ports (they do not fit in 9 bits, but a wider fabric still avoids them
    so that a port number means the same thing in every program)."""
    return (p for p in range(1, 1 << port_bits) if p not in (c.CPU_PORT, c.DROP_PORT))


def derived_switch_mac(index: int) -> int:
    """Locally administered MAC of switch ``index`` (02:53 'S', index, 00) [ours]."""
    return 0x0253 << 32 | (index & 0xFFFFFF) << 8


def derived_nic_mac(index: int, plane: int) -> int:
    """Locally administered MAC of NIC ``index``'s port of ``plane`` (02:4e 'N') [ours]."""
    return 0x024E << 32 | (index & 0xFFFFFF) << 8 | plane
