"""A fabric whose devices and links the topology file lists one by one."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass, field

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
)
from .qps import resolve_qps
from .schema import Bmv2Files, NicSpec, SwitchSpec, TopologySpec
from .values import nic_address, parse_ipv6, parse_ipv6_prefix, parse_mac, parse_usid_block

# The pairs of roles a link may join (both ends on one plane).
_LINKABLE = {frozenset({Role.NIC, Role.T0}), frozenset({Role.T0, Role.T1})}


@dataclass
class ListedFabric(Fabric):
    """Every device and link held in memory: for fabrics small enough to write out."""

    _switches: dict[str, SwitchNode] = field(default_factory=dict)
    _nics: dict[str, NicNode] = field(default_factory=dict)
    _switch_links: dict[str, list[PortLink]] = field(default_factory=dict)
    _nic_links: dict[tuple[str, int], PortLink] = field(default_factory=dict)

    @property
    def switch_count(self) -> int:
        return len(self._switches)

    @property
    def nic_count(self) -> int:
        return len(self._nics)

    def switches(self) -> Iterator[SwitchNode]:
        return iter(self._switches.values())

    def nics(self) -> Iterator[NicNode]:
        return iter(self._nics.values())

    def switch(self, name: str) -> SwitchNode | None:
        return self._switches.get(name)

    def nic(self, name: str) -> NicNode | None:
        return self._nics.get(name)

    def switch_links(self, name: str) -> Iterator[PortLink]:
        return iter(self._switch_links.get(name, ()))

    def nic_link(self, name: str, plane: int) -> PortLink:
        return self._nic_links[name, plane]

    def common_t1s(self, plane: int, t0_a: str, t0_b: str) -> list[SwitchNode]:
        def t1s_of(t0: str) -> set[str]:
            return {link.peer for link in self._switch_links.get(t0, ())
                    if link.peer_role is Role.T1}
        common = t1s_of(t0_a) & t1s_of(t0_b)
        return sorted((self._switches[n] for n in common), key=lambda s: s.index)

    def device_groups(self) -> Iterator[DeviceGroup]:
        for switch in self._switches.values():
            yield DeviceGroup(switch.role, switch.name, 1)
        for nic in self._nics.values():
            yield DeviceGroup(Role.NIC, nic.name, 1)


def build_listed_fabric(spec: TopologySpec, source: str) -> ListedFabric:
    """Check a listed topology's cross-references and build its fabric."""
    builder = _Builder(spec, source)
    builder.add_switches()
    builder.add_nics()
    _add_links(spec, builder.fabric, builder.problems)
    fabric = builder.fabric
    fabric.qps, qp_problems = resolve_qps(spec.qps, spec.qp_defaults, max(fabric.planes, 1),
                                          lambda n: n in fabric._nics)
    problems = builder.problems + qp_problems
    if problems:
        raise TopologyError(source, problems)
    return fabric


class _Builder:
    """Devices of a listed topology, with the problems found on the way."""

    def __init__(self, spec: TopologySpec, source: str) -> None:
        self.spec = spec
        self.problems: list[Problem] = []
        try:
            block = parse_usid_block(spec.usid_block)
        except ValueError as err:
            self.problems.append(Problem("usid_block", str(err)))
            block = c.USID_BLOCK_DEFAULT
        planes = len(spec.planes or ())
        if not 1 <= planes <= c.NIC_MAX_PLANES:
            self.problems.append(Problem("planes", (
                f"{planes} planes; a NIC has 1 to {c.NIC_MAX_PLANES}")))
        self.fabric = ListedFabric(
            source=source, name=spec.name, planes=planes, usid_block=block,
            port_bits=spec.port_bits, trim_threshold=spec.switch_policy.trim_threshold,
            ecn_low=spec.switch_policy.ecn_low, ecn_high=spec.switch_policy.ecn_high)
        self.names: dict[str, str] = {}
        self.endpoints: dict[tuple[str, int], str] = {}

    def claim(self, name: str, where: str, access: DeviceAccess) -> None:
        """Device names are unique, and so is each (P4Runtime address, device id)."""
        if name in self.names:
            self.problems.append(Problem(f"{where}.name", (
                f"name {name!r} is already used by {self.names[name]}")))
        self.names.setdefault(name, where)
        key = (access.address, access.device_id)
        if key in self.endpoints:
            self.problems.append(Problem(f"{where}.device_id", (
                f"{access.address} device {access.device_id} is already "
                f"{self.endpoints[key]}")))
        self.endpoints.setdefault(key, where)

    def access_of(self, device: SwitchSpec | NicSpec, program: str,
                  bmv2: Bmv2Files | None) -> DeviceAccess:
        files = device.bmv2 or bmv2
        return DeviceAccess(
            address=device.address, device_id=device.device_id,
            target=device.target or self.spec.defaults.target,
            program=device.program or program,
            bmv2_files=None if files is None else (files.json_file, files.p4info_file))

    def mac_of(self, text: str | None, where: str, derived: int) -> int:
        if text is None:
            return derived
        try:
            return parse_mac(text)
        except ValueError as err:
            self.problems.append(Problem(where, str(err)))
            return derived

    def add_switches(self) -> None:
        switch_index = 0
        for p, plane in enumerate(self.spec.planes or ()):
            for role, members in ((Role.T1, plane.t1), (Role.T0, plane.t0)):
                for i, sw in enumerate(members):
                    where = f"planes[{p}].{role}[{i}]"
                    access = self.access_of(sw, self.spec.defaults.switch_program,
                                            self.spec.defaults.switch_bmv2)
                    self.claim(sw.name, where, access)
                    mac = self.mac_of(sw.mac, f"{where}.mac", derived_switch_mac(switch_index))
                    self.fabric._switches.setdefault(sw.name, SwitchNode(
                        name=sw.name, role=role, plane=p, index=i, usid=sw.usid, mac=mac,
                        access=access, where=where))
                    switch_index += 1

    def add_nics(self) -> None:
        problems, fabric = self.problems, self.fabric
        try:
            prefix = parse_ipv6_prefix(self.spec.nic_address_prefix)
        except ValueError as err:
            problems.append(Problem("nic_address_prefix", str(err)))
            prefix = ipaddress.IPv6Network("fd00:1::/64")
        nics = self.spec.nics or ()
        if len(nics) >= prefix.num_addresses:
            problems.append(Problem("nic_address_prefix", (
                f"{prefix} has no room for {len(nics)} NIC addresses")))
            prefix = ipaddress.IPv6Network("fd00:1::/64")
        addresses: dict[int, str] = {}
        for n, nic in enumerate(nics):
            where = f"nics[{n}]"
            access = self.access_of(nic, self.spec.defaults.nic_program,
                                    self.spec.defaults.nic_bmv2)
            self.claim(nic.name, where, access)
            if len(nic.ports) != fabric.planes:
                problems.append(Problem(f"{where}.ports", (
                    f"{len(nic.ports)} ports for {fabric.planes} planes; a NIC has one per "
                    "plane")))
            for k, port in enumerate(nic.ports):
                problem = _port_problem(port, fabric.port_bits, nic=True)
                if problem:
                    problems.append(Problem(f"{where}.ports[{k}]", problem))
            if len(set(nic.ports)) != len(nic.ports):
                problems.append(Problem(f"{where}.ports", "a port serves two planes"))
            if nic.macs is not None and len(nic.macs) != len(nic.ports):
                problems.append(Problem(f"{where}.macs", "one MAC per port"))
            macs = tuple(
                self.mac_of(nic.macs[p] if nic.macs and p < len(nic.macs) else None,
                            f"{where}.macs[{p}]", derived_nic_mac(n, p))
                for p in range(len(nic.ports)))
            if nic.ipv6 is None:
                ipv6 = nic_address(prefix, n)
            else:
                try:
                    ipv6 = parse_ipv6(nic.ipv6)
                except ValueError as err:
                    problems.append(Problem(f"{where}.ipv6", str(err)))
                    ipv6 = 0
            if ipv6 in addresses:
                problems.append(Problem(f"{where}.ipv6", (
                    f"{ipaddress.IPv6Address(ipv6)} is already {addresses[ipv6]}'s address")))
            addresses.setdefault(ipv6, where)
            fabric._nics.setdefault(nic.name, NicNode(
                name=nic.name, index=n, ipv6=ipv6, ports=tuple(nic.ports), macs=macs,
                access=access))


def _port_problem(port: int, port_bits: int, nic: bool) -> str | None:
    if port >= 1 << port_bits:
        return f"port {port} does not fit in {port_bits} bits (port_bits)"
    if port in (c.CPU_PORT, c.DROP_PORT):
        return f"port {port} is the program's CPU or drop port"
    if nic and port == c.NIC_HOST_PORT:
        return f"port {port} is the NIC's host port"
    return None


def _add_links(spec: TopologySpec, fabric: ListedFabric, problems: list[Problem]) -> None:
    used: dict[tuple[str, int], str] = {}
    for k, link in enumerate(spec.links or ()):
        ends = []
        for e, text in enumerate(link):
            where = f"links[{k}][{e}]"
            end = _parse_end(text, fabric, where, problems)
            if end is None:
                continue
            if end[:2] in used:
                problems.append(Problem(where, f"{text!r} is already cabled by {used[end[:2]]}"))
                continue
            used[end[:2]] = where
            ends.append(end)
        if len(ends) != 2:
            continue
        (a, a_port, a_role, a_plane), (b, b_port, b_role, b_plane) = ends
        where = f"links[{k}]"
        if frozenset({a_role, b_role}) not in _LINKABLE:
            problems.append(Problem(where, (
                f"a link joins a NIC to a T0 or a T0 to a T1, not a {a_role} to a {b_role}")))
        elif a_plane != b_plane:
            problems.append(Problem(where, (
                f"{a}:{a_port} is on plane {a_plane}, {b}:{b_port} on plane {b_plane}")))
        else:
            for (x, x_port, x_role, _), (y, y_port, y_role, _) in (ends, ends[::-1]):
                peer = PortLink(port=x_port, peer=y, peer_role=y_role, peer_port=y_port,
                                peer_mac=_mac_on(fabric, y, a_plane))
                if x_role is Role.NIC:
                    fabric._nic_links[x, a_plane] = peer
                else:
                    fabric._switch_links.setdefault(x, []).append(peer)
    for links in fabric._switch_links.values():
        links.sort(key=lambda link: link.port)
    for n, nic in enumerate(fabric.nics()):
        for p, port in enumerate(nic.ports):
            if (nic.name, p) not in fabric._nic_links:
                problems.append(Problem(f"nics[{n}].ports[{p}]", (
                    f"port {port} (plane {p}) of {nic.name!r} is not cabled to a T0")))


def _mac_on(fabric: ListedFabric, device: str, plane: int) -> int:
    switch = fabric.switch(device)
    return switch.mac if switch is not None else fabric._nics[device].macs[plane]


def _parse_end(text: str, fabric: ListedFabric, where: str,
               problems: list[Problem]) -> tuple[str, int, Role, int] | None:
    """``"device:port"`` -> (device, port, role, plane), or None after a problem."""
    name, _, port_text = text.rpartition(":")
    if not name or not port_text.isdigit():
        problems.append(Problem(where, f"{text!r} is not 'device:port'"))
        return None
    port = int(port_text)
    switch = fabric.switch(name)
    if switch is not None:
        problem = _port_problem(port, fabric.port_bits, nic=False)
        if problem:
            problems.append(Problem(where, problem))
            return None
        return name, port, switch.role, switch.plane
    nic = fabric.nic(name)
    if nic is None:
        problems.append(Problem(where, f"no device named {name!r}"))
        return None
    if port not in nic.ports:
        problems.append(Problem(where, f"{name!r} has no fabric port {port} (ports: "
                                       f"{list(nic.ports)})"))
        return None
    return name, port, Role.NIC, nic.ports.index(port)
