"""The running controller: a supervisor per device keeps it programmed, and one loop
reacts to the NICs' EV events.

- ``ALWAYS_SKIP`` / ``HOST_LOSS`` (an EV retired): the next backup id of that plane is
  configured (a top-up: the NIC took a backup, or found none and waits at that id),
  and the retired EV is probed (``probes``) until the NIC restores it.
- ``FLOOR`` (the NIC kept the EV: no backup was found and the floor held): logged only.
  Every retirement already added one backup id, so a NIC finds none only while the
  top-up of an earlier retirement is on its way; topping up on floors too would spend
  the plane's range on bursts of loss reports.
- ``RESTORED``: probing stops and the recovery is recorded.

A NIC port (or its link) that goes down or comes back is reported by whoever sees it
(the simulator's link-down detection, an operator) through ``set_planes_down``: the
NIC's ``nic_planes`` entry and a port-status update to every peer of its QPs
(docs/mrc-nic.md 3.1). While a plane is down at either end of a QP, an EV of that plane
the QP's NIC retires (a loss in the moments before the NICs knew) is *held*: no backup
is topped up on the dead plane and the EV is not probed; EVs already being probed on
it are held too. When the plane is back at both ends, the held retirements get their
top-ups and probes at once, so the plane's EVs are restored in a few probe round trips.
"""

from __future__ import annotations

import ipaddress
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from p4.v1 import p4runtime_pb2

from controller.apply import DEFAULT_ELECTION_ID, device_targets, prepare_pipelines, program
from controller.device import DeviceLink, PipelineCache
from controller.events import EventLog
from controller.plan import (
    FabricPlan,
    nic_planes_entry,
    planes_mask,
    port_status_frames,
    qp_ev_entry,
)
from controller.topups import TopUpBook
from p4rt_client import (
    P4InfoHelper,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
    TlsConfig,
    update,
)
from protocol import constants as c

from .probes import ProbeKey, ProbeSchedule, ProbeTask
from .supervisor import DeviceSupervisor

_REASONS = {c.EV_EVENT_ALWAYS_SKIP: "always-skip", c.EV_EVENT_HOST_LOSS: "host-loss",
            c.EV_EVENT_RESTORED: "restored", c.EV_EVENT_FLOOR: "floor"}
_RETIRED = (c.EV_EVENT_ALWAYS_SKIP, c.EV_EVENT_HOST_LOSS)
KEPT_RECOVERIES = 1000


class EvEvent(NamedTuple):
    """One ``ev_event_t`` digest (docs/mrc-nic.md 5), fields in declaration order."""

    local_qpn: int
    qp_index: int
    slot: int
    old_ev: int
    new_ev: int
    reason: int


@dataclass
class Recovery:
    """A retired EV and what became of it, for ``watch``."""

    nic: str
    qp_index: int
    ev: int
    retired_at: float
    probes: int = 0
    restored_at: float | None = None


class Reactor:
    """``start`` the supervisors, then ``run(stop)`` in one thread (it returns when
    ``stop`` is set); ``on_tick`` is called about every ``tick_s``."""

    def __init__(self, plan: FabricPlan, log: EventLog, *,
                 election_id: tuple[int, int] = DEFAULT_ELECTION_ID,
                 tls: TlsConfig | None = None, probes: ProbeSchedule | None = None,
                 connect_timeout: float = 2.0,
                 pipelines: PipelineCache | None = None) -> None:
        self.plan = plan
        self.log = log
        self.book = TopUpBook()
        self.probes = probes or ProbeSchedule()
        self.stop = threading.Event()
        # the latest retirements, for watch's table (a long run must not grow without end)
        self.recoveries: deque[Recovery] = deque(maxlen=KEPT_RECOVERIES)
        # NIC -> its planes-down mask, as last written to its nic_planes table
        self.planes_down: dict[str, int] = {}
        # Retirements and probes on a plane down at either end of their QP, until it
        # is back (in the order they came).
        self.held: list[tuple[str, EvEvent]] = []
        self.held_probes: list[ProbeTask] = []
        self._digests: queue.Queue[tuple[str, p4runtime_pb2.DigestList]] = queue.Queue()
        # A caller that runs many reactors (the simulator) shares one cache of built
        # pipelines, as it does with apply_fabric.
        cache = pipelines if pipelines is not None else PipelineCache()
        targets = device_targets(plan)
        prepare_pipelines(targets, cache)
        self.links = {t.name: DeviceLink(t, cache, election_id, tls) for t in targets}
        self.supervisors = {
            name: DeviceSupervisor(link, self._program, self._on_digest, log, self.stop,
                                   connect_timeout)
            for name, link in self.links.items()}

    def _program(self, link: DeviceLink) -> None:
        program(link, self.plan, self.book, self.log)

    def _on_digest(self, device: str, digest: p4runtime_pb2.DigestList) -> None:
        self._digests.put((device, digest))

    def start(self) -> None:
        for supervisor in self.supervisors.values():
            supervisor.start()

    def close(self) -> None:
        self.stop.set()
        for supervisor in self.supervisors.values():
            supervisor.join(timeout=5)

    def run(self, on_tick: Callable[[], None] | None = None, tick_s: float = 1.0) -> None:
        next_tick = time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            if on_tick is not None and now >= next_tick:
                on_tick()
                next_tick = now + tick_s
            deadlines = [next_tick if on_tick is not None else now + tick_s]
            due = self.probes.next_due()
            if due is not None:
                deadlines.append(due)
            try:
                device, digest = self._digests.get(timeout=max(0.0, min(deadlines) - now))
            except queue.Empty:
                pass
            else:
                self.handle_digest(device, digest)
            self.send_due_probes()

    # -- events -------------------------------------------------------------------------
    def handle_digest(self, nic: str, digest: p4runtime_pb2.DigestList) -> None:
        for data in digest.data:
            event = EvEvent(*P4InfoHelper.decode_p4data(data))
            self.log.emit("digest", device=nic, reason=_REASONS.get(event.reason,
                                                                    event.reason),
                          qp_index=event.qp_index, slot=event.slot,
                          old_ev=f"{event.old_ev:#010x}", new_ev=f"{event.new_ev:#010x}")
            if event.reason in _RETIRED:
                if self.plane_down(nic, event.qp_index, c.ev_plane(event.old_ev)):
                    self.held.append((nic, event))
                    self.log.emit("retired-on-down-plane", device=nic,
                                  qp_index=event.qp_index, ev=f"{event.old_ev:#010x}")
                    continue
                self.top_up(nic, event)
                self.start_probes(nic, event)
            elif event.reason == c.EV_EVENT_RESTORED:
                self.restored(nic, event)

    def top_up(self, nic: str, event: EvEvent) -> None:
        plane = c.ev_plane(event.old_ev)
        path = self.book.take_next(self.plan, nic, event.qp_index, plane)
        if path is None:
            self.log.emit("no-backup-left", device=nic, qp_index=event.qp_index,
                          plane=plane)
            return
        link = self.links[nic]
        entry = link.desired([qp_ev_entry(event.qp_index, path)])
        (_, (_, entity)), = entry.items()
        written = True
        try:
            link.write([update(p4runtime_pb2.Update.INSERT, entity)])
        # ValueError: gRPC's answer on a channel the device's supervisor just closed.
        except (P4RuntimeWriteError, P4RuntimeSessionError, ConnectionError,
                ValueError) as error:
            # The book has it: the next reconcile of this NIC writes it.
            written = False
            self.log.emit("top-up-deferred", device=nic, message=str(error))
        self.log.emit("top-up", device=nic, qp_index=event.qp_index, plane=plane,
                      ev_id=path.ev_id, t1=path.t1, ev=f"{path.ev:#010x}",
                      backup_taken=event.new_ev != 0, written=written)

    def start_probes(self, nic: str, event: EvEvent) -> None:
        found = self.plan.qp_at(nic, event.qp_index)
        if found is None:
            return
        qp, side = found
        local, remote = qp.ends[side], qp.ends[1 - side]
        fabric = self.plan.fabric
        here, peer = fabric.nic(nic), fabric.nic(remote.nic)
        assert here is not None and peer is not None
        plane = min(c.ev_plane(event.old_ev), len(here.macs) - 1)
        key = ProbeKey(nic, event.qp_index, event.old_ev)
        if key not in self.probes.tasks:
            self.recoveries.append(Recovery(nic, event.qp_index, event.old_ev, time.time()))
        self.probes.start(ProbeTask(
            key, local_qpn=local.qpn, remote_qpn=remote.qpn,
            src=ipaddress.IPv6Address(here.ipv6).packed,
            dst=ipaddress.IPv6Address(peer.ipv6).packed,
            nic_mac=here.macs[plane].to_bytes(6, "big")))

    def restored(self, nic: str, event: EvEvent) -> None:
        task = self.probes.restored(ProbeKey(nic, event.qp_index, event.new_ev))
        recovery = self._recovery(nic, event.qp_index, event.new_ev)
        if recovery is not None:
            recovery.restored_at = time.time()
        self.log.emit("restored", device=nic, qp_index=event.qp_index,
                      ev=f"{event.new_ev:#010x}", probes=task.sent if task else 0,
                      back_in_slot=event.slot != c.NIC_EV_SLOTS)

    def set_planes_down(self, nic: str, planes: Iterable[int]) -> int:
        """NIC ``nic``'s ports on ``planes`` are down (empty: all up again): write its
        ``nic_planes`` entry (delete it when all are up) and send the port-status
        updates to its QPs' peers on the surviving planes (docs/mrc-nic.md 3.1).
        Returns the updates sent. KeyError for an unknown NIC, ValueError for a bad
        plane; a write the NIC refuses is logged, not raised."""
        mask = planes_mask(planes)
        link = self.links[nic]
        old = self.planes_down.get(nic, 0)
        if mask != old:
            entity = next(iter(link.desired(
                [nic_planes_entry(self.plan.fabric, nic, mask or old)]).values()))[1]
            kind = (p4runtime_pb2.Update.DELETE if not mask else
                    p4runtime_pb2.Update.INSERT if not old else p4runtime_pb2.Update.MODIFY)
            try:
                link.write([update(kind, entity)])
            except (P4RuntimeWriteError, P4RuntimeSessionError, ConnectionError,
                    ValueError) as error:
                self.log.emit("planes-down-failed", device=nic, message=str(error))
                return 0
            self.planes_down[nic] = mask
            self._hold_probes()
            self._release_held()
        sent = 0
        for frame in port_status_frames(self.plan, nic, mask):
            try:
                link.packet_out(frame, c.PACKET_OUT_TRANSMIT)
            except (P4RuntimeSessionError, ConnectionError, ValueError) as error:
                self.log.emit("port-status-failed", device=nic, message=str(error))
                continue
            sent += 1
        self.log.emit("planes-down", device=nic, mask=f"{mask:#04x}", updates=sent)
        return sent

    def plane_down(self, nic: str, qp_index: int, plane: int) -> bool:
        """Whether ``plane`` is down at either end of the QP NIC ``nic`` holds at
        ``qp_index`` (as last written to the NICs' ``nic_planes``)."""
        down = self.planes_down.get(nic, 0)
        found = self.plan.qp_at(nic, qp_index)
        if found is not None:
            qp, side = found
            down |= self.planes_down.get(qp.ends[1 - side].nic, 0)
        return bool(down >> plane & 1)

    def _hold_probes(self) -> None:
        """Stop probing EVs whose plane is down at either end (their probes could only
        be lost); ``_release_held`` starts them again."""
        for key in list(self.probes.tasks):
            if self.plane_down(key.nic, key.qp_index, c.ev_plane(key.ev)):
                self.held_probes.append(self.probes.tasks.pop(key))

    def _release_held(self) -> None:
        """Top-ups and probes held for planes that are up at both ends again."""
        held, self.held = self.held, []
        for nic, event in held:
            if self.plane_down(nic, event.qp_index, c.ev_plane(event.old_ev)):
                self.held.append((nic, event))
                continue
            self.top_up(nic, event)
            self.start_probes(nic, event)
        tasks, self.held_probes = self.held_probes, []
        for task in tasks:
            key = task.key
            if self.plane_down(key.nic, key.qp_index, c.ev_plane(key.ev)):
                self.held_probes.append(task)
            else:
                self.probes.start(task)

    def _recovery(self, nic: str, qp_index: int, ev: int) -> Recovery | None:
        return next((r for r in reversed(self.recoveries) if r.nic == nic
                     and r.qp_index == qp_index and r.ev == ev and r.restored_at is None),
                    None)

    def send_due_probes(self) -> list[ProbeTask]:
        """Send the probes due by the schedule's clock (``run`` calls this on the wall
        clock; a simulator that gave the schedule its virtual clock calls it as its
        time advances); the probes sent, for a caller that must see them arrive."""
        send, given_up = self.probes.take_due()
        sent: list[ProbeTask] = []
        for task in send:
            nic = task.key.nic
            try:
                self.links[nic].packet_out(task.frame(), c.PACKET_OUT_TRANSMIT)
            except (P4RuntimeSessionError, ConnectionError, ValueError) as error:
                self.log.emit("probe-failed", device=nic, message=str(error))
                continue
            sent.append(task)
            recovery = self._recovery(nic, task.key.qp_index, task.key.ev)
            if recovery is not None:
                recovery.probes = task.sent
            self.log.emit("probe-sent", device=nic, qp_index=task.key.qp_index,
                          ev=f"{task.key.ev:#010x}", probe=task.sent)
        for task in given_up:
            self.log.emit("probes-given-up", device=task.key.nic,
                          qp_index=task.key.qp_index, ev=f"{task.key.ev:#010x}",
                          probes=task.sent)
        return sent

    # -- views --------------------------------------------------------------------------
    def device_states(self) -> dict[str, str]:
        return {name: str(s.state) for name, s in self.supervisors.items()}
