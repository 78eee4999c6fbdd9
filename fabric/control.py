"""The controller's side of a simulated run: every device gets its pipeline and its
planned entities over P4Runtime, from a loopback gRPC server per device, exactly as the
controller programs real switches; nothing is written into a device behind its back.

This module is a minimal stand-in for ``mrc-ctl apply`` and its digest reactor, which
are being written in ``controller/``; once they land, ``FabricProgrammer`` becomes a
call to them and this file shrinks to the glue. What it does meanwhile:

* ``program_all``: per device, SetForwardingPipelineConfig (VERIFY_AND_COMMIT, the P4
  source bundle of the topology's program) then one Write batch of INSERTs: table
  entries, PRE multicast groups and the digest config, encoded from P4Info names by
  ``p4rt_client``. It completes before any traffic starts.
* ``program_device``: the same for one device (after a reboot in a failure scenario).
* ``on_digest``: the reactor hook. The NIC refills a retired EV's slot from its backups
  on its own (docs/mrc-nic.md section 5); this stand-in only records the events, which
  the simulator hands over synchronously at the virtual time they happen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.program import load_program
from behavioral_model.runtime.digests import DigestMessage
from controller.plan import DigestConfig, Entity, Exact, MulticastGroup, TableEntry
from p4rt_client import P4InfoHelper, P4RuntimeSession, update

# Election id of the simulated controller: it is the only one, so any id is primary.
ELECTION_ID = (0, 1)


@dataclass(frozen=True)
class CompiledProgram:
    """What SetForwardingPipelineConfig sends for one P4 program."""

    p4info: p4info_pb2.P4Info
    bundle: bytes
    helper: P4InfoHelper


@cache
def compiled_program(path: Path) -> CompiledProgram:
    """P4Info and source bundle of a program (its includes in ``include/`` beside it,
    the layout of ``p4src/``); compiled once per process."""
    includes = [path.parent / "include"] if (path.parent / "include").is_dir() else []
    p4info = generate_p4info(load_program(path, includes).checked)
    return CompiledProgram(p4info, make_bundle(path, includes), P4InfoHelper(p4info))


def to_update(helper: P4InfoHelper, entity: Entity) -> p4runtime_pb2.Update:
    """One INSERT for a planned entity, encoded through P4Info by name."""
    if isinstance(entity, TableEntry):
        match = {name: m.value if isinstance(m, Exact) else (m.value, m.prefix_len)
                 for name, m in entity.match}
        obj = helper.table_entry(entity.table, match, entity.action, dict(entity.params))
    elif isinstance(entity, MulticastGroup):
        obj = helper.multicast_group_entry(
            entity.group_id, [(r.port, r.instance) for r in entity.replicas])
    elif isinstance(entity, DigestConfig):
        obj = helper.digest_entry(entity.digest, entity.max_timeout_ns,
                                  entity.max_list_size, entity.ack_timeout_ns)
    else:
        raise TypeError(f"unknown planned entity {entity!r}")
    return update(p4runtime_pb2.Update.INSERT, obj)


@dataclass
class DeviceEndpoint:
    """Where the controller reaches one device, and what it runs."""

    name: str
    address: str
    device_id: int
    program: Path


@dataclass
class FabricProgrammer:
    """Programs devices over P4Runtime and receives their events."""

    devices: dict[str, DeviceEndpoint]
    entities_of: Callable[[str], Iterable[Entity]]
    events: list[tuple[float, str, DigestMessage]] = field(default_factory=list)
    _sessions: dict[str, P4RuntimeSession] = field(default_factory=dict)

    def _session(self, name: str) -> P4RuntimeSession:
        session = self._sessions.get(name)
        if session is None:
            device = self.devices[name]
            session = P4RuntimeSession(device.address, device.device_id,
                                       election_id=ELECTION_ID)
            session.connect()
            self._sessions[name] = session
        return session

    def program_device(self, name: str) -> int:
        """Load the device's pipeline and write its entities; returns how many."""
        program = compiled_program(self.devices[name].program)
        session = self._session(name)
        session.set_pipeline(program.p4info, program.bundle)
        updates = [to_update(program.helper, e) for e in self.entities_of(name)]
        session.write(updates)
        return len(updates)

    def program_all(self) -> int:
        return sum(self.program_device(name) for name in self.devices)

    def on_digest(self, now_us: float, device: str, message: DigestMessage) -> None:
        self.events.append((now_us, device, message))

    def close(self) -> None:
        for session in self._sessions.values():
            session.close()
        self._sessions.clear()
