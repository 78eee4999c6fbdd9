"""Two MRC NICs cabled back to back, plane port to plane port, with a host endpoint on
each host port: the smallest network that runs the whole transport (host software, NIC
pipeline, SACK/NACK, EV retirement) without switches.

Everything runs in one thread in virtual time: frames move at once, in order, and the
clock only jumps to the next host timer when nothing else is in flight. A link filter can
drop frames (e.g. a lossy path) to exercise loss recovery. The NICs are programmed by
table and action *names* (docs/mrc-nic.md section 2), the way the controller does it over
P4Runtime.

    pair = BackToBack(load_program("p4src/mrc_nic.p4"), NicPairConfig())
    handle = pair.a.endpoint.write(pair.qpn_a, data, remote_addr=0x1000, rkey=1)
    pair.run(until=lambda: handle.done)
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from behavioral_model.pipeline.v1model import V1ModelDevice
from behavioral_model.program import P4Program
from behavioral_model.runtime.digests import DigestMessage
from behavioral_model.runtime.matches import Exact
from behavioral_model.runtime.pre import Replica
from behavioral_model.runtime.state import DeviceState
from behavioral_model.runtime.tables import ActionCall, TableEntry
from behavioral_model.stf.resolve import action_parameters
from host import Endpoint, InProcessPort, ManualClock, TransportConfig
from protocol import constants as c

__all__ = ["BackToBack", "NicPairConfig", "NicSide", "LinkFilter", "frame_ev", "plane_usid"]

# Where a frame is on its way: (plane, frame) -> keep it?
LinkFilter = Callable[[int, bytes], bool]

# Byte offsets in an encapsulated frame (Ethernet, outer IPv6, inner IPv6, UDP).
_OUTER_FLOW_LABEL = 14 + 2
_UDP_SPORT = 14 + 40 + 40


def frame_ev(frame: bytes) -> int | None:
    """The EV an encapsulated MRC frame travels on (UDP source port and the outer flow
    label's low 16 bits, docs/mrc-protocol.md section 3), None for anything shorter."""
    if len(frame) < _UDP_SPORT + 2:
        return None
    high = int.from_bytes(frame[_UDP_SPORT:_UDP_SPORT + 2], "big")
    low = int.from_bytes(frame[_OUTER_FLOW_LABEL:_OUTER_FLOW_LABEL + 2], "big")
    return high << 16 | low


def plane_usid(plane: int, node: int) -> int:
    """A uSID of ``plane``: the plane in its top bits (USID_PLANE_SHIFT), as the
    controller allocates them, so an EV through it names its plane."""
    return plane << c.USID_PLANE_SHIFT | node


@dataclass(frozen=True)
class NicPairConfig:
    """The QP the two NICs share and how its EVs are spread.

    Slot ``s`` is on plane ``s % planes`` (EVs split equally over the planes); each
    plane has ``backups_per_plane`` backup EVs (docs/mrc-nic.md section 2, EV ids)."""

    planes: int = 2
    evs_per_plane: int = 4
    backups_per_plane: int = 2
    min_active: int = 2
    sack_every: int = 4
    probe_threshold: int = 2
    qpn_a: int = 0x11
    qpn_b: int = 0x22
    address_a: str = "2001:db8::a"
    address_b: str = "2001:db8::b"
    transport: TransportConfig = field(default_factory=TransportConfig)

    def __post_init__(self) -> None:
        if not 1 <= self.planes <= c.NIC_MAX_PLANES:
            raise ValueError(f"planes {self.planes}: must be 1..{c.NIC_MAX_PLANES}")
        if not 1 <= self.slots <= c.NIC_EV_SLOTS:
            raise ValueError(f"{self.slots} EV slots: must be 1..{c.NIC_EV_SLOTS}")
        backups = self.planes * self.backups_per_plane
        if backups > c.NIC_EV_IDS - c.NIC_EV_BACKUP_BASE:
            raise ValueError(f"{backups} backup EVs do not fit the QP's EV ids")

    @property
    def slots(self) -> int:
        return self.planes * self.evs_per_plane

    def slot_t1(self, slot: int) -> int:
        """The T1 uSID of a slot's own EV."""
        return plane_usid(slot % self.planes, 0x100 + slot // self.planes)

    def backup_t1(self, plane: int, index: int) -> int:
        return plane_usid(plane, 0x180 + index)


@dataclass
class NicSide:
    """One NIC and the host behind it."""

    name: str
    address: str
    qpn: int
    state: DeviceState
    device: V1ModelDevice
    host_port: InProcessPort
    endpoint: Endpoint
    digests: list[DigestMessage] = field(default_factory=list)
    # PSNs of the data packets handed to the host, in order.
    delivered_psns: list[int] = field(default_factory=list)


class BackToBack:
    """Two NICs, ``a`` and ``b``, plane port ``1 + p`` of one cabled to that of the other."""

    def __init__(self, program: P4Program, config: NicPairConfig | None = None, *,
                 clock: ManualClock | None = None, link_filter: LinkFilter | None = None,
                 seed: int = 0) -> None:
        self.program = program
        self.config = config if config is not None else NicPairConfig()
        self.clock = clock if clock is not None else ManualClock()
        self.link_filter = link_filter
        self._params = action_parameters(program.checked)
        cfg = self.config
        self.a = self._side("a", cfg.address_a, cfg.qpn_a, cfg.address_b, cfg.qpn_b, seed)
        self.b = self._side("b", cfg.address_b, cfg.qpn_b, cfg.address_a, cfg.qpn_a, seed + 1)
        self.frames_dropped = 0
        self._wire: deque[tuple[NicSide, int, bytes]] = deque()

    def peer(self, side: NicSide) -> NicSide:
        return self.b if side is self.a else self.a

    # -- set-up -----------------------------------------------------------------------
    def _side(self, name: str, address: str, qpn: int, peer: str, peer_qpn: int,
              seed: int) -> NicSide:
        state = self.program.new_state()
        host_port = InProcessPort()
        endpoint = Endpoint(host_port, address, clock=self.clock, config=self.config.transport)
        endpoint.open_qp(qpn, peer)
        self._program_nic(state, address, qpn, peer_qpn)
        return NicSide(name, address, qpn, state, self.program.new_device(state, seed=seed),
                       host_port, endpoint)

    def _install(self, state: DeviceState, table: str, match: Mapping[str, int],
                 action: str, params: Mapping[str, int]) -> None:
        target = state.table(f"NicIngress.{table}")
        keys = tuple(Exact(match[k.name]) for k in target.keys)
        full_action = f"NicIngress.{table.rsplit('.', 1)[0]}.{action}"
        args = tuple(params[p.name] for p in self._params[full_action])
        target.insert(TableEntry(keys, ActionCall(full_action, args)))

    def _program_nic(self, state: DeviceState, address: str, qpn: int,
                     peer_qpn: int) -> None:
        cfg = self.config
        self._install(state, "lookup.nic_address",
                      {"dst_addr": int(ipaddress.IPv6Address(address))}, "accept_local", {})
        self._install(state, "lookup.qp_context", {"local_qpn": qpn}, "set_qp", {
            "qp_index": 0, "remote_qpn": peer_qpn, "ev_slots": cfg.slots,
            "ev_mask": (1 << (cfg.slots - 1).bit_length()) - 1,
            "min_active": cfg.min_active, "backups_per_plane": cfg.backups_per_plane,
            "sack_every": cfg.sack_every, "probe_threshold": cfg.probe_threshold})
        for slot in range(cfg.slots):
            self._install(state, "ev.qp_ev", {"qp_index": 0, "ev_id": slot}, "set_ev",
                          {"t1_usid": cfg.slot_t1(slot)})
        for plane in range(cfg.planes):
            for index in range(cfg.backups_per_plane):
                ev_id = c.NIC_EV_BACKUP_BASE + plane * cfg.backups_per_plane + index
                self._install(state, "ev.qp_ev", {"qp_index": 0, "ev_id": ev_id}, "set_ev",
                              {"t1_usid": cfg.backup_t1(plane, index)})
            port = 1 + plane
            self._install(state, "path.plane_port", {"plane": plane}, "set_plane_port", {
                "port": port, "nic_mac": 0x02_00_00_00_00_00 | port,
                "next_hop_mac": 0x02_00_00_00_01_00 | port, "usid_block": c.USID_BLOCK_DEFAULT,
                "src_t0_usid": plane_usid(plane, 0x10)})
            self._install(state, "path.qp_plane", {"qp_index": 0, "plane": plane},
                          "set_qp_path", {"dst_t0_usid": plane_usid(plane, 0x11),
                                          "down_usid": plane_usid(plane, 0x21)})
            state.pre.create_group(c.NIC_REPLY_MCAST_BASE + plane,
                                   [Replica(c.NIC_HOST_PORT, 0), Replica(port, 1)])

    # -- running ----------------------------------------------------------------------
    def _nic_input(self, side: NicSide, port: int, frame: bytes) -> None:
        for out in side.device.process(frame, port=port):
            if out.port == c.NIC_HOST_PORT:
                if len(out.data) > 14 + 40 + 12 and out.data[14 + 40 + 8] in c.WRITE_OPCODES:
                    psn_at = 14 + 40 + 8 + 9
                    side.delivered_psns.append(
                        int.from_bytes(out.data[psn_at:psn_at + 3], "big"))
                side.endpoint.handle_frame(out.data)
            else:
                self._wire.append((self.peer(side), out.port, out.data))
        side.digests.extend(side.state.digests.drain())

    def _pump(self) -> bool:
        """Move every frame that is ready; False when nothing moved."""
        moved = False
        for side in (self.a, self.b):
            for frame in side.host_port.take_sent():
                moved = True
                self._nic_input(side, c.NIC_HOST_PORT, frame)
        while self._wire:
            moved = True
            side, port, frame = self._wire.popleft()
            if self.link_filter is not None and not self.link_filter(port - 1, frame):
                self.frames_dropped += 1
                continue
            self._nic_input(side, port, frame)
            for other in (self.a, self.b):
                for sent in other.host_port.take_sent():
                    self._nic_input(other, c.NIC_HOST_PORT, sent)
        return moved

    def run(self, until: Callable[[], bool], max_time: float = 60.0) -> None:
        """Move frames and fire host timers until ``until()`` holds; raises TimeoutError
        when virtual time passes ``max_time`` seconds or nothing is left to happen."""
        while True:
            if self._pump():
                continue
            if until():
                return
            deadlines = [d for d in (self.a.endpoint.next_deadline(),
                                     self.b.endpoint.next_deadline()) if d is not None]
            if not deadlines:
                raise TimeoutError("nothing in flight and no timer running")
            when = min(deadlines)
            if when > max_time:
                raise TimeoutError(f"not done after {max_time} s of virtual time")
            if when > self.clock.now():
                self.clock.advance(when - self.clock.now())
            self.a.endpoint.on_timer()
            self.b.endpoint.on_timer()
