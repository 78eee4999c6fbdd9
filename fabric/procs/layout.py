"""What a fabric of processes is made of: one bm process per device, the nn socket each
listens on, the cables between (device, port) pairs and the host sockets the patch panel
offers. Pure data, computed from a topology (or written by hand in tests and benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.topology import Fabric
from protocol.constants import NIC_HOST_PORT

# sun_path holds 108 bytes with the terminating NUL; longer ipc:// paths cannot be bound.
MAX_SOCKET_PATH = 107
# Each device is a Python process of ~60 MB: beyond this a "fabric" is a mistake in the
# file (e.g. the production Clos shape), not something a laptop can run.
MAX_DEVICES = 256


class LayoutError(ValueError):
    """A topology this launcher cannot run (too large, socket paths too long)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Port ``port`` of device ``device``; written ``device:port``."""

    device: str
    port: int

    def __str__(self) -> str:
        return f"{self.device}:{self.port}"

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        """``"nic0:1"`` -> Endpoint("nic0", 1); ValueError otherwise."""
        device, sep, port = text.rpartition(":")
        if not sep or not device or not port.isdigit():
            raise ValueError(f"{text!r} is not DEVICE:PORT")
        return cls(device, int(port))


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    name: str
    role: str  # "t1", "t0", "nic", or anything a hand-written layout likes
    device_id: int
    grpc_address: str
    packet_in: str  # the device's nn socket (it listens, the panel dials); "" on veths
    log_file: str
    # veth wiring: (port, interface) of every port, instead of the nn socket
    interfaces: tuple[tuple[int, str], ...] = ()
    target: str = "bm"  # "bm" (our switch) or "bmv2" (simple_switch_grpc)
    pcap_dir: str = ""  # --pcap: the folder of the device's per-port pcaps ("": none)


@dataclass(frozen=True, slots=True)
class CableSpec:
    """A cable between two device ports; frames go both ways."""

    a: Endpoint
    b: Endpoint

    @property
    def name(self) -> str:
        return f"{self.a}-{self.b}"


@dataclass(frozen=True, slots=True)
class HostSocketSpec:
    """An nn socket the panel listens on for host software; its frames enter ``port``
    and the frames the device sends out of ``port`` go to it."""

    port: Endpoint
    address: str


@dataclass(frozen=True, slots=True)
class FabricLayout:
    name: str
    devices: tuple[DeviceSpec, ...]
    cables: tuple[CableSpec, ...]
    host_sockets: tuple[HostSocketSpec, ...]

    def device(self, name: str) -> DeviceSpec | None:
        return next((d for d in self.devices if d.name == name), None)


def ipc_address(workdir: Path, stem: str) -> str:
    """``ipc://WORKDIR/STEM.ipc``; LayoutError if the path does not fit a Unix socket."""
    path = str(workdir.resolve() / f"{stem}.ipc")
    check_socket_path(path)
    return f"ipc://{path}"


def check_socket_path(path: str) -> None:
    if len(path.encode()) > MAX_SOCKET_PATH:
        raise LayoutError(f"socket path {path} is longer than {MAX_SOCKET_PATH} bytes, the "
                          "limit of a Unix socket; use a shorter --workdir")


def layout_from_topology(fabric: Fabric, workdir: Path) -> FabricLayout:
    """One device per switch and NIC of ``fabric``, its links as cables, and a host
    socket on every NIC's host port."""
    count = fabric.switch_count + fabric.nic_count
    if count > MAX_DEVICES:
        raise LayoutError(f"{fabric.source}: {count} devices; a fabric of processes runs at "
                          f"most {MAX_DEVICES}")
    devices = [DeviceSpec(s.name, str(s.role), s.access.device_id, s.access.address,
                          ipc_address(workdir, s.name), str(workdir / f"{s.name}.log"),
                          target=s.access.target)
               for s in fabric.switches()]
    devices += [DeviceSpec(n.name, "nic", n.access.device_id, n.access.address,
                           ipc_address(workdir, n.name), str(workdir / f"{n.name}.log"),
                           target=n.access.target)
                for n in fabric.nics()]
    # one process per device: two devices on one address would share a port silently
    # (gRPC binds with SO_REUSEPORT), and one of them would never be reached
    owners: dict[str, str] = {}
    for device in devices:
        other = owners.setdefault(device.grpc_address, device.name)
        if other != device.name:
            raise LayoutError(f"{fabric.source}: {device.name} and {other} both have the "
                              f"address {device.grpc_address}; each device is a process "
                              "of its own and needs its own address")
    cables: dict[frozenset[Endpoint], CableSpec] = {}
    for switch in fabric.switches():
        for link in fabric.switch_links(switch.name):
            a, b = Endpoint(switch.name, link.port), Endpoint(link.peer, link.peer_port)
            cables.setdefault(frozenset((a, b)), CableSpec(a, b))
    hosts = tuple(HostSocketSpec(Endpoint(n.name, NIC_HOST_PORT),
                                 ipc_address(workdir, f"{n.name}-host"))
                  for n in fabric.nics())
    return FabricLayout(fabric.name, tuple(devices), tuple(cables.values()), hosts)
