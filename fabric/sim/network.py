"""A whole fabric in one event loop (virtual time), built from the controller's plan: a
:class:`SimDevice` per switch and NIC, each behind its own P4Runtime server, a
:class:`Cable` per link of the topology, and a host endpoint behind every NIC.

Devices start empty, as real switches do: the controller loads their pipelines and
writes their entries over P4Runtime (``fabric.control``) before traffic starts.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from behavioral_model.p4runtime.server import P4RuntimeServer
from controller.plan import FabricPlan
from host import TransportConfig
from protocol import constants as c

from .device import SimDevice
from .events import EventLoop
from .host import SimHost
from .link import Cable, Channel
from .pfc import PfcConfig
from .target import SimTarget

REPO_ROOT = Path(__file__).resolve().parents[2]
# How long a packet-out may take from the controller to its device (wall clock).
PACKET_OUT_WAIT_S = 10.0


@dataclass(frozen=True)
class NetworkConfig:
    """Physical parameters of a run. Rates are scaled down from 100 Gb/s so that runs
    are short; every cable of the fabric has the same rate and delay."""

    link_rate_bps: float = 10e9
    link_delay_us: float = 1.0
    host_delay_us: float = 0.5  # host <-> NIC host port, each way (no rate limit)
    queue_depth: int = 64  # packets per priority queue (BMv2's default)
    seed: int = 1
    pfc: PfcConfig | None = None  # PFC on every device (the RoCE baseline's, if any)


def program_path(program: str, topology: str) -> Path:
    """A topology's program path: absolute, or relative to the working directory, the
    topology file's folder or the repository (in that order)."""
    path = Path(program)
    if path.is_absolute():
        return path
    for base in (Path.cwd(), Path(topology).resolve().parent, REPO_ROOT):
        if (base / path).is_file():
            return base / path
    return path


def _pfc_watcher(dev_a: SimDevice | None, port_a: int, dev_b: SimDevice | None,
                 port_b: int) -> Callable[[Cable], None]:
    """What a cable's change of state means to PFC at both its ends (those this
    process runs)."""
    def changed(_cable: Cable) -> None:
        if dev_a is not None:
            dev_a.pfc_link_changed(port_a)
        if dev_b is not None:
            dev_b.pfc_link_changed(port_b)
    return changed


class Network:
    """``owned``: the devices this process runs (default: all). A partitioned run
    (``fabric.sim.partition``) builds the whole network in every process, so that
    cables, channels and their indices are the same everywhere, and runs only its
    own devices; the channels toward the others collect what they send."""

    def __init__(self, plan: FabricPlan, config: NetworkConfig,
                 transport: TransportConfig, owned: frozenset[str] | None = None) -> None:
        self.plan = plan
        self.config = config
        self.env = EventLoop()
        self.owned = frozenset(plan.device_names()) if owned is None else owned
        self.devices: dict[str, SimDevice] = {}
        self.channels: list[Channel] = []  # every channel by its index
        self.servers: dict[str, P4RuntimeServer] = {}
        self.cables: dict[str, Cable] = {}
        self._cable_at: dict[tuple[str, int], Cable] = {}
        self.hosts: dict[str, SimHost] = {}
        fabric = plan.fabric
        for name in plan.device_names():
            node = fabric.switch(name) or fabric.nic(name)
            assert node is not None
            access = node.access
            target = SimTarget(name, access.device_id, config.seed, self._now, c.CPU_PORT)
            self.devices[name] = SimDevice(self.env, target, config.queue_depth, config.pfc)
        self._cable_fabric()
        for nic in fabric.nics():
            self._attach_host(nic.name, str(ipaddress.IPv6Address(nic.ipv6)), transport)

    def _now(self) -> float:
        return self.env.now

    # -- set-up ---------------------------------------------------------------------------
    def _cable_fabric(self) -> None:
        fabric = self.plan.fabric
        ends: list[tuple[str, int, str, int]] = []
        for switch in fabric.switches():
            ends.extend((switch.name, link.port, link.peer, link.peer_port)
                        for link in fabric.switch_links(switch.name))
        for nic in fabric.nics():
            for plane in range(fabric.planes):
                link = fabric.nic_link(nic.name, plane)
                ends.append((nic.name, nic.ports[plane], link.peer, link.peer_port))
        for a, port_a, b, port_b in ends:
            if (a, port_a) in self._cable_at:
                continue
            name = f"{a}:{port_a}-{b}:{port_b}"
            cable = Cable(name, self.config.link_rate_bps, self.config.link_delay_us,
                          seed=self.config.seed)
            self.cables[name] = cable
            self._cable_at[(a, port_a)] = self._cable_at[(b, port_b)] = cable
            dev_a, dev_b = self.devices[a], self.devices[b]
            # a NIC's cable: where a partitioned run's processes meet
            boundary = (fabric.nic(a) is None) != (fabric.nic(b) is None)
            dev_a.attach(port_a, self._channel(cable, port_b, dev_b.receive, dev_b, boundary))
            dev_b.attach(port_b, self._channel(cable, port_a, dev_a.receive, dev_a, boundary,
                                               back=True))
            dev_a.peers[port_a] = (dev_b, port_b)
            dev_b.peers[port_b] = (dev_a, port_a)
            if self.config.pfc is not None:
                cable.watchers.append(_pfc_watcher(
                    dev_a if a in self.owned else None, port_a,
                    dev_b if b in self.owned else None, port_b))

    def _channel(self, cable: Cable, far_port: int, receive: Callable[[int, bytes], None],
                 far: SimDevice | None, boundary: bool = False, back: bool = False) -> Channel:
        channel = Channel(self.env, cable, far_port, receive, len(self.channels), far,
                          boundary, back)
        self.channels.append(channel)
        return channel

    def _attach_host(self, nic: str, address: str, transport: TransportConfig) -> None:
        device = self.devices[nic]
        host = SimHost(self.env, nic, device, address, transport, self.config.host_delay_us)
        cable = Cable(f"{nic}:host", 0, self.config.host_delay_us)
        device.attach(c.NIC_HOST_PORT, self._channel(cable, c.NIC_HOST_PORT, host.deliver, None))
        self.hosts[nic] = host

    def await_packet_outs(self, expected: Mapping[str, int],
                          timeout_s: float = PACKET_OUT_WAIT_S) -> None:
        """Block until every device in ``expected`` holds at least that many packet-outs
        not yet injected: a packet-out crosses the controller's gRPC stream on other
        threads, and one injected a tick late would make a run depend on thread timing.
        TimeoutError if they do not all arrive within ``timeout_s`` (wall clock)."""
        deadline = time.monotonic() + timeout_s
        while any(self.devices[name].target.packet_outs_pending < count
                  for name, count in expected.items()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"packet-outs {dict(expected)} did not reach their "
                                   f"devices within {timeout_s} s")
            time.sleep(0.0005)

    def inject_packet_outs(self) -> None:
        """Feed the controller's packet-outs received since the last call into their
        devices' CPU ports."""
        for device in self.devices.values():
            for frame in device.target.take_packet_outs():
                device.receive(c.CPU_PORT, frame)

    def cable(self, end: str) -> Cable:
        """The cable at ``device:port`` (either end); KeyError if none."""
        device, _, port = end.rpartition(":")
        return self._cable_at[(device, int(port))]

    def cables_of(self, device: str) -> list[Cable]:
        return [cable for (name, _), cable in self._cable_at.items() if name == device]

    # -- P4Runtime ------------------------------------------------------------------------
    def start_servers(self) -> None:
        """A P4Runtime server per device, at the address the plan gives it."""
        fabric = self.plan.fabric
        for name, device in self.devices.items():
            if name not in self.owned:
                continue  # served by the process that runs it
            node = fabric.switch(name) or fabric.nic(name)
            assert node is not None
            server = P4RuntimeServer(device.target, node.access.address, max_workers=2)
            server.start()
            self.servers[name] = server

    def stop_servers(self) -> None:
        """Stop the P4Runtime servers and let go of every device's state (a NIC's
        registers are tens of MB; gRPC may keep a stopped server's objects alive for a
        while, and a report runs many networks one after the other)."""
        for name, server in self.servers.items():
            self.devices[name].target.reboot()
            server.live_context()  # the server sees no pipeline: it drops its context
            server.stop(0)
        self.servers.clear()
        for device in self.devices.values():
            device.tm.clear()
