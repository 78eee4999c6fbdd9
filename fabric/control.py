"""The controller's side of a simulated run, done by the controller itself
(``controller.apply`` and ``controller.react``), over P4Runtime, exactly as it programs
real switches; nothing is written into a device behind its back.

* Before traffic: ``apply_fabric`` pushes every device's pipeline and writes its
  planned entities (the plan as a scenario changes it, ``fabric.plan_overrides``).
* During the run: the simulator hands each NIC digest, at the virtual time it happens,
  to the controller's ``Reactor.handle_digest`` (top-ups of backup EVs), on the
  simulation thread. Its P4Runtime writes are blocking calls, so virtual time stands
  still while it works and a run stays deterministic.
* Probes: the reactor's probe schedule (``ProbeSchedule``) reads the simulator's
  virtual clock, and the simulator asks for the probes due as its time advances
  (``send_due_probes``); they go out as packet-outs over P4Runtime, like the
  controller's on real switches, and the simulator waits until the devices have them
  before time moves on, so they enter the NICs at a definite virtual time.
* After a switch reboot: the controller's ``program`` (pipeline, then reconcile) brings
  the device back, top-ups included.

Each device is served on a Unix socket of its own (``topology_for_simulation``), so
the addresses in the plan are the simulator's and runs never compete for TCP ports.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from p4.v1 import p4data_pb2, p4runtime_pb2

from behavioral_model.runtime.digests import DigestMessage
from controller.apply import apply_fabric, program
from controller.device import PipelineCache
from controller.events import EventLog
from controller.plan import FabricPlan
from controller.react import ProbeSchedule
from controller.react.reactor import Reactor
from p4rt_client import encode_value

# The simulated controller is the only one: any election id makes it the primary.
ELECTION_ID = (0, 10)
# Pipelines (P4Info and source bundle of each program) built once per process: a
# report makes a dozen runs, and building one costs about half a second.
PIPELINES = PipelineCache()


def _reactor(plan: FabricPlan, log: EventLog, probes: ProbeSchedule | None) -> Reactor:
    """The controller's reactor, on the shared pipelines."""
    return Reactor(plan, log, election_id=ELECTION_ID, pipelines=PIPELINES, probes=probes)


class ProgrammingError(Exception):
    """A device the controller could not program; ``str()`` is one line per device."""


def topology_for_simulation(data: dict[str, Any], sockets: Path,
                            resolve: Any) -> dict[str, Any]:
    """A topology (parsed YAML) with every device's P4Runtime address on a Unix
    socket in ``sockets`` and every program path made absolute by ``resolve``."""
    out = dict(data)
    address = f"unix:{sockets}/{{name}}.sock"
    if isinstance(out.get("clos"), dict):
        out["clos"] = {**out["clos"], "p4runtime": address}
    for plane in out.get("planes") or []:
        for role in ("t1", "t0"):
            for device in (plane or {}).get(role) or []:
                _relocate(device, address, resolve)
    for nic in out.get("nics") or []:
        _relocate(nic, address, resolve)
    if isinstance(out.get("defaults"), dict):
        defaults = dict(out["defaults"])
        for key in ("switch_program", "nic_program"):
            if isinstance(defaults.get(key), str):
                defaults[key] = str(resolve(defaults[key]))
        out["defaults"] = defaults
    return out


def _relocate(device: Any, address: str, resolve: Any) -> None:
    if isinstance(device, dict) and isinstance(device.get("name"), str):
        device["address"] = address.format(name=device["name"])
        if isinstance(device.get("program"), str):
            device["program"] = str(resolve(device["program"]))


class FabricController:
    """The controller of one simulated run."""

    def __init__(self, plan: FabricPlan, probes: ProbeSchedule | None = None) -> None:
        """``probes``: the reactor's probe schedule, on the simulator's clock."""
        self.plan = plan
        self.log = EventLog(out=None, keep=100_000)
        self.probes = probes
        self.reactor: Reactor | None = None

    def program_all(self) -> None:
        failed = [o for o in apply_fabric(self.plan, self.log, election_id=ELECTION_ID,
                                          pipelines=PIPELINES) if not o.ok]
        if failed:
            raise ProgrammingError("\n".join(f"{o.device}: {o.problem}: {o.message}"
                                             for o in failed))
        self.reactor = _reactor(self.plan, self.log, self.probes)
        for link in self.reactor.links.values():
            link.connect()

    def on_digest(self, device: str, messages: list[DigestMessage]) -> None:
        if self.reactor is None or not messages:
            return
        digest = p4runtime_pb2.DigestList(list_id=len(self.log.recent),
                                          timestamp=messages[0].timestamp_us * 1000)
        for message in messages:
            digest.data.append(p4data_pb2.P4Data(struct=p4data_pb2.P4StructLike(members=[
                p4data_pb2.P4Data(bitstring=encode_value(v, 64)) for v in message.values])))
        self.reactor.handle_digest(device, digest)

    def send_due_probes(self) -> dict[str, int]:
        """Send the probes due now on the schedule's clock; how many went to each NIC."""
        if self.reactor is None:
            return {}
        return dict(Counter(task.key.nic for task in self.reactor.send_due_probes()))

    def probing(self) -> bool:
        """Whether retired EVs are still being probed (neither restored nor given up)."""
        return self.reactor is not None and bool(self.reactor.probes.tasks)

    def program_device(self, device: str) -> None:
        """Bring a device back after a reboot (its pipeline and entries, top-ups too)."""
        assert self.reactor is not None
        program(self.reactor.links[device], self.plan, self.reactor.book, self.log)

    def events(self, name: str) -> int:
        return self.log.count(name)

    def close(self) -> None:
        if self.reactor is not None:
            for link in self.reactor.links.values():
                link.close()
