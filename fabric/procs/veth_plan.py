"""The veth wiring of a fabric, as names: one veth pair per cable and per NIC host port,
their interface names, and the network namespace that holds the hosts' ends. Pure
data, computed from a ``FabricLayout``; ``veth_wiring`` creates and removes it.

Where things live (the Mininet way): the device processes and the veths between them
stay in the root namespace, so each device's gRPC server on ``127.0.0.1:PORT`` is
reachable by ``mrc-ctl``, p4runtime-shell or any client with no bridge or forwarding;
only the host side of every NIC's host port goes into the fabric's namespace
``mrcfab-ID``, where host software opens it (``ip netns exec mrcfab-ID mrc-host
--interface ...``, or ``netns.in_namespace``). ``ID`` is three hex digits drawn from
the work folder, so the names are the same on every run of one fabric and two fabrics
in different folders do not clash; interface names stay within IFNAMSIZ (15 bytes):
``mf{ID}d{DEVICE INDEX}p{PORT}`` for a device's port, ``mf{ID}d{INDEX}h`` for a host's
end.
"""

from __future__ import annotations

import dataclasses
import zlib
from dataclasses import dataclass
from pathlib import Path

from .layout import DeviceSpec, Endpoint, FabricLayout

__all__ = ["HOST_END", "IFNAMSIZ", "VethLink", "VethPlan", "fabric_id", "veth_layout"]

IFNAMSIZ = 15  # the kernel's limit on an interface name, without the NUL
HOST_END = "host"


@dataclass(frozen=True, slots=True)
class VethLink:
    """A veth pair: ``interfaces[i]`` is the end of ``ends[i]`` (``dev:port``, or
    ``host`` for the host's end, which lives in the namespace)."""

    name: str
    ends: tuple[str, str]
    interfaces: tuple[str, str]

    @property
    def to_host(self) -> bool:
        return self.ends[1] == HOST_END


@dataclass(frozen=True, slots=True)
class VethPlan:
    namespace: str
    prefix: str  # every interface name of the fabric starts with it
    links: tuple[VethLink, ...]

    def root_interfaces(self) -> list[str]:
        """The ends in the root namespace (every device port)."""
        return [link.interfaces[0] for link in self.links] + \
            [link.interfaces[1] for link in self.links if not link.to_host]

    def host_interface(self, nic: str) -> str:
        """The host's end of ``nic``'s host port, in the namespace; KeyError if none."""
        for link in self.links:
            if link.to_host and link.ends[0].rpartition(":")[0] == nic:
                return link.interfaces[1]
        raise KeyError(f"{nic} has no host port")


def fabric_id(workdir: Path) -> str:
    return f"{zlib.crc32(str(workdir.resolve()).encode()) & 0xFFF:03x}"


def veth_layout(layout: FabricLayout, workdir: Path) -> tuple[FabricLayout, VethPlan]:
    """``layout`` with every device on interfaces (``-i PORT@IFACE``) instead of an nn
    socket and no host sockets, and the veths that wire it."""
    prefix = f"mf{fabric_id(workdir)}"
    index = {device.name: i for i, device in enumerate(layout.devices)}

    def port_name(end: Endpoint) -> str:
        return f"{prefix}d{index[end.device]}p{end.port}"

    links = [VethLink(cable.name, (str(cable.a), str(cable.b)),
                      (port_name(cable.a), port_name(cable.b)))
             for cable in layout.cables]
    links += [VethLink(f"{host.port}-{HOST_END}", (str(host.port), HOST_END),
                       (port_name(host.port), f"{prefix}d{index[host.port.device]}h"))
              for host in layout.host_sockets]
    interfaces: dict[str, list[tuple[int, str]]] = {d.name: [] for d in layout.devices}
    for link in links:
        for end, name in zip(link.ends, link.interfaces, strict=True):
            if end != HOST_END:
                endpoint = Endpoint.parse(end)
                interfaces[endpoint.device].append((endpoint.port, name))
    devices = tuple(_on_interfaces(d, interfaces[d.name]) for d in layout.devices)
    plan = VethPlan(f"mrcfab-{prefix[2:]}", prefix, tuple(links))
    return dataclasses.replace(layout, devices=devices, host_sockets=()), plan


def _on_interfaces(device: DeviceSpec, ports: list[tuple[int, str]]) -> DeviceSpec:
    return dataclasses.replace(device, packet_in="", interfaces=tuple(sorted(ports)))
