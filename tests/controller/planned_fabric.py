"""A whole planned fabric in one process: every switch and NIC is a bm device of the real
program (``srv6_switch.p4``, ``mrc_nic.p4``) holding exactly its planned entities, and
frames move along the topology's cables at once. For end-to-end tests of the plan."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from behavioral_model.pipeline.v1model import V1ModelDevice
from behavioral_model.program import P4Program, load_program
from behavioral_model.runtime import matches as bm_matches
from behavioral_model.runtime.pre import Replica as BmReplica
from behavioral_model.runtime.tables import ActionCall
from behavioral_model.runtime.tables import TableEntry as BmEntry
from controller.plan import Exact, FabricPlan, MulticastGroup, TableEntry
from controller.topology import Role
from protocol import constants as c

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "p4src" / "include"


@cache
def programs() -> tuple[P4Program, P4Program]:
    """The switch and NIC programs, compiled once per test session."""
    return (load_program(ROOT / "p4src" / "srv6_switch.p4", [INCLUDE]),
            load_program(ROOT / "p4src" / "mrc_nic.p4", [INCLUDE]))


def program_device(device: V1ModelDevice, entities: list) -> None:
    """Write planned entities into a bm device, as ``apply`` will over P4Runtime."""
    for entity in entities:
        if isinstance(entity, TableEntry):
            table = device.state.table(entity.table)
            by_field = {name: bm_matches.Exact(m.value) if isinstance(m, Exact)
                        else bm_matches.Lpm(m.value, m.prefix_len)
                        for name, m in entity.match}
            table.insert(BmEntry(matches=table.build_matches(by_field),
                                 action=ActionCall(entity.action,
                                                   tuple(v for _, v in entity.params))))
        elif isinstance(entity, MulticastGroup):
            device.state.pre.create_group(
                entity.group_id, [BmReplica(r.port, r.instance) for r in entity.replicas])
        # DigestConfig: bm queues digests whether or not a controller asked for them.


@dataclass
class PlannedFabric:
    plan: FabricPlan
    devices: dict[str, V1ModelDevice] = field(default_factory=dict)
    # (NIC, frame) handed to each NIC's host port, in arrival order.
    delivered: list[tuple[str, bytes]] = field(default_factory=list)
    # (device, in port, frame) of every frame that left a NIC toward the fabric.
    sent: list[tuple[str, int, bytes]] = field(default_factory=list)

    @classmethod
    def build(cls, plan: FabricPlan) -> PlannedFabric:
        switch, nic = programs()
        fabric = cls(plan)
        for name in plan.device_names():
            program = nic if plan.role_of(name) is Role.NIC else switch
            device = program.new_device()
            program_device(device, plan.device_entities(name))
            fabric.devices[name] = device
        return fabric

    def _peer(self, device: str, port: int) -> tuple[str, int]:
        fabric = self.plan.fabric
        nic = fabric.nic(device)
        if nic is not None:
            link = fabric.nic_link(device, nic.ports.index(port))
        else:
            link = next(link for link in fabric.switch_links(device) if link.port == port)
        return link.peer, link.peer_port

    def post(self, nic: str, frame: bytes) -> None:
        """The host of ``nic`` posts ``frame``; run until nothing moves."""
        queue = deque([(nic, c.NIC_HOST_PORT, frame)])
        while queue:
            device, port, data = queue.popleft()
            for out in self.devices[device].process(data, port):
                assert out.port != c.CPU_PORT, f"{device} punted a frame to the CPU"
                if self.plan.role_of(device) is Role.NIC and out.port == c.NIC_HOST_PORT:
                    self.delivered.append((device, out.data))
                    continue
                if self.plan.role_of(device) is Role.NIC:
                    self.sent.append((device, out.port, out.data))
                queue.append((*self._peer(device, out.port), out.data))
