"""A fabric generated from a Clos shape: devices and links are computed on demand.

Nothing here grows with the number of NICs except what a caller iterates: the
production shape (131,072 NICs, a million NIC links) costs a few thousand switch
records and one port list.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice

from protocol import constants as c

from .errors import Problem, TopologyError
from .fabric import (
    DeviceAccess,
    DeviceGroup,
    Fabric,
    NicNode,
    PortLink,
    Role,
    SwitchNode,
    derived_nic_mac,
    derived_switch_mac,
    usable_ports,
)
from .qps import resolve_qps
from .schema import Bmv2Files, ClosSpec, TopologySpec
from .values import nic_address, parse_ipv6_prefix, parse_usid_block

_SWITCH_NAME = re.compile(r"p(\d+)-(t0|t1)-(\d+)")
_NIC_NAME = re.compile(r"nic(\d+)")


def switch_name(plane: int, role: Role, index: int) -> str:
    return f"p{plane}-{role}-{index}"


def nic_name(index: int) -> str:
    return f"nic{index}"


@lru_cache(maxsize=64)
def _nic_index(name: str) -> int | None:
    """``nic17`` -> 17 (None for other names). Kept for the last few names: planning one
    NIC asks for its name once per plane."""
    match = _NIC_NAME.fullmatch(name)
    if match is None or name != nic_name(int(match[1])):
        return None
    return int(match[1])


@dataclass
class ClosFabric(Fabric):
    """Per plane, ``t1`` T1s and ``t0`` T0s, each T0 linked once to each T1, and ``k``
    NICs per T0; the layout is ClosSpec's docstring."""

    shape: ClosSpec
    switch_program: str
    nic_program: str
    target: str
    nic_prefix: ipaddress.IPv6Network
    ports: tuple[int, ...]  # ports[k]: the k-th front-panel port of a switch
    switch_bmv2: tuple[str, str] | None = None  # (BMv2 JSON, P4Info) files
    nic_bmv2: tuple[str, str] | None = None
    _neighbour_cache: dict[tuple[int, Role], tuple[tuple[str, int], ...]] = field(
        default_factory=dict, repr=False)

    @property
    def switch_count(self) -> int:
        return self.planes * (self.shape.t1_per_plane + self.shape.t0_per_plane)

    @property
    def nic_count(self) -> int:
        return self.shape.t0_per_plane * self.shape.nics_per_t0

    def _access(self, name: str, index: int, program: str,
                bmv2_files: tuple[str, str] | None) -> DeviceAccess:
        address = self.shape.p4runtime.format(name=name, index=index,
                                              port=self.shape.port_base + index)
        return DeviceAccess(address=address, device_id=index + 1, target=self.target,
                            program=program, bmv2_files=bmv2_files)

    def _switch_index(self, plane: int, role: Role, index: int) -> int:
        """The switch's place among all devices: plane by plane, T1s before T0s."""
        device_index = plane * (self.shape.t1_per_plane + self.shape.t0_per_plane) + index
        if role is Role.T0:
            device_index += self.shape.t1_per_plane
        return device_index

    def _switch_mac(self, plane: int, role: Role, index: int) -> int:
        return derived_switch_mac(self._switch_index(plane, role, index))

    def _switch(self, plane: int, role: Role, index: int) -> SwitchNode:
        device_index = self._switch_index(plane, role, index)
        name = switch_name(plane, role, index)
        return SwitchNode(name=name, role=role, plane=plane, index=index, usid=None,
                          mac=derived_switch_mac(device_index),
                          access=self._access(name, device_index, self.switch_program,
                                              self.switch_bmv2),
                          where=f"clos ({name})")

    def switches(self) -> Iterator[SwitchNode]:
        for plane in range(self.planes):
            for role, count in ((Role.T1, self.shape.t1_per_plane),
                                (Role.T0, self.shape.t0_per_plane)):
                for index in range(count):
                    yield self._switch(plane, role, index)

    def nics(self) -> Iterator[NicNode]:
        return (self._nic(n) for n in range(self.nic_count))

    def _nic(self, n: int) -> NicNode:
        name = nic_name(n)
        return NicNode(name=name, index=n, ipv6=nic_address(self.nic_prefix, n),
                       ports=tuple(range(1, self.planes + 1)),
                       macs=tuple(derived_nic_mac(n, p) for p in range(self.planes)),
                       access=self._access(name, self.switch_count + n, self.nic_program,
                                           self.nic_bmv2))

    def _locate_switch(self, name: str) -> tuple[int, Role, int] | None:
        """(plane, role, index) of a generated switch name."""
        match = _SWITCH_NAME.fullmatch(name)
        if match is None:
            return None
        plane, role, index = int(match[1]), Role(match[2]), int(match[3])
        count = self.shape.t1_per_plane if role is Role.T1 else self.shape.t0_per_plane
        if plane >= self.planes or index >= count or name != switch_name(plane, role, index):
            return None
        return plane, role, index

    def _locate_nic(self, name: str) -> int | None:
        index = _nic_index(name)
        return index if index is not None and index < self.nic_count else None

    def switch(self, name: str) -> SwitchNode | None:
        place = self._locate_switch(name)
        return None if place is None else self._switch(*place)

    def nic(self, name: str) -> NicNode | None:
        index = self._locate_nic(name)
        return None if index is None else self._nic(index)

    def _neighbours(self, plane: int, role: Role) -> tuple[tuple[str, int], ...]:
        """(name, MAC) of the plane's switches of ``role``, by index; kept, since every
        switch of the other role links to all of them."""
        key = (plane, role)
        if key not in self._neighbour_cache:
            count = self.shape.t1_per_plane if role is Role.T1 else self.shape.t0_per_plane
            self._neighbour_cache[key] = tuple(
                (switch_name(plane, role, i), self._switch_mac(plane, role, i))
                for i in range(count))
        return self._neighbour_cache[key]

    def switch_links(self, name: str) -> Iterator[PortLink]:
        place = self._locate_switch(name)
        if place is None:
            return
        plane, role, index = place
        k, ports = self.shape.nics_per_t0, self.ports
        if role is Role.T0:
            for d in range(k):
                nic = index * k + d
                yield PortLink(ports[d], nic_name(nic), Role.NIC, plane + 1,
                               derived_nic_mac(nic, plane))
            for i, (t1, mac) in enumerate(self._neighbours(plane, Role.T1)):
                yield PortLink(ports[k + i], t1, Role.T1, ports[index], mac)
        else:
            for j, (t0, mac) in enumerate(self._neighbours(plane, Role.T0)):
                yield PortLink(ports[j], t0, Role.T0, ports[k + index], mac)

    def nic_link(self, name: str, plane: int) -> PortLink:
        index = self._locate_nic(name)
        if index is None:
            raise KeyError(name)
        t0, downlink = divmod(index, self.shape.nics_per_t0)
        return PortLink(plane + 1, switch_name(plane, Role.T0, t0), Role.T0,
                        self.ports[downlink], self._switch_mac(plane, Role.T0, t0))

    def common_t1s(self, plane: int, t0_a: str, t0_b: str) -> list[SwitchNode]:
        return [self._switch(plane, Role.T1, i) for i in range(self.shape.t1_per_plane)]

    def device_groups(self) -> Iterator[DeviceGroup]:
        for plane in range(self.planes):
            yield DeviceGroup(Role.T1, switch_name(plane, Role.T1, 0), self.shape.t1_per_plane)
            yield DeviceGroup(Role.T0, switch_name(plane, Role.T0, 0), self.shape.t0_per_plane)
        # NICs with QPs differ from each other; the others all look alike.
        with_qps = sorted({end.nic for qp in self.qps for end in qp.ends},
                          key=lambda n: int(n[3:]))
        for name in with_qps:
            yield DeviceGroup(Role.NIC, name, 1)
        bare = self.nic_count - len(with_qps)
        if bare:
            first = next(n for n in range(self.nic_count) if nic_name(n) not in with_qps)
            yield DeviceGroup(Role.NIC, nic_name(first), bare)


def _files(files: Bmv2Files | None) -> tuple[str, str] | None:
    return None if files is None else (files.json_file, files.p4info_file)


def build_clos_fabric(spec: TopologySpec, source: str) -> ClosFabric:
    """Check a Clos shape against the programs' limits and build its fabric."""
    shape = spec.clos
    assert shape is not None
    problems: list[Problem] = []
    try:
        block = parse_usid_block(spec.usid_block)
    except ValueError as err:
        problems.append(Problem("usid_block", str(err)))
        block = c.USID_BLOCK_DEFAULT
    try:
        prefix = parse_ipv6_prefix(spec.nic_address_prefix)
    except ValueError as err:
        problems.append(Problem("nic_address_prefix", str(err)))
        prefix = ipaddress.IPv6Network("fd00:1::/64")
    nics = shape.t0_per_plane * shape.nics_per_t0
    if nics >= prefix.num_addresses:
        problems.append(Problem("nic_address_prefix",
                                f"{prefix} has no room for {nics} NIC addresses"))
    needed = max(shape.nics_per_t0 + shape.t1_per_plane, shape.t0_per_plane)
    ports = tuple(islice(usable_ports(spec.port_bits), needed))
    if len(ports) < needed:
        problems.append(Problem("clos", (
            f"a T0 needs {shape.nics_per_t0 + shape.t1_per_plane} ports and a T1 "
            f"{shape.t0_per_plane}, but {spec.port_bits}-bit port numbers (port_bits) "
            f"leave {len(ports)} front-panel ports")))
    try:
        shape.p4runtime.format(name="x", index=0, port=0)
    except (KeyError, IndexError, ValueError) as err:
        problems.append(Problem("clos.p4runtime", (
            f"{shape.p4runtime!r}: only {{name}}, {{index}} and {{port}} can be filled in "
            f"({err!r})")))
    fabric = ClosFabric(
        source=source, name=spec.name, planes=shape.planes, usid_block=block,
        port_bits=spec.port_bits, trim_threshold=spec.switch_policy.trim_threshold,
        ecn_low=spec.switch_policy.ecn_low, ecn_high=spec.switch_policy.ecn_high,
        shape=shape, switch_program=spec.defaults.switch_program,
        nic_program=spec.defaults.nic_program, target=spec.defaults.target,
        nic_prefix=prefix, ports=ports,
        switch_bmv2=_files(spec.defaults.switch_bmv2), nic_bmv2=_files(spec.defaults.nic_bmv2))
    fabric.qps, qp_problems = resolve_qps(spec.qps, spec.qp_defaults, shape.planes,
                                          lambda n: fabric.nic(n) is not None)
    problems += qp_problems
    if problems:
        raise TopologyError(source, problems)
    return fabric
