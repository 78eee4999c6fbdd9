"""Probes of retired EVs [ours]: the controller probes every EV a NIC retired, through
that NIC's transmit path (packet-out to ``PACKET_OUT_TRANSMIT``), until the NIC
reports it restored (digest ``EV_EVENT_RESTORED``, after ``probe_threshold``
answered probes) or a bounded number of probes went unanswered.

The first probe goes at once, the next after ``first_interval_s``, each interval
doubling up to ``max_interval_s``: a path that failed for a moment is back in a few
round trips, one that stays down costs little.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from controller.plan import CONTROLLER_MAC
from host.codec import Route, encode_probe

FIRST_INTERVAL_S = 0.05
MAX_INTERVAL_S = 2.0
MAX_PROBES = 20
_CONN_ID_MASK = 0xFFFF


class ProbeKey(NamedTuple):
    nic: str
    qp_index: int
    ev: int


@dataclass
class ProbeTask:
    key: ProbeKey
    local_qpn: int
    remote_qpn: int
    src: bytes  # this NIC's IPv6 address
    dst: bytes  # the peer NIC's
    nic_mac: bytes
    sent: int = 0
    due: float = 0.0
    interval: float = FIRST_INTERVAL_S

    def frame(self) -> bytes:
        """The probe as the host would post it (docs/mrc-nic.md 3): the EV in the UDP
        source port (EV[31:16]) and the flow label (EV[15:0])."""
        ev = self.key.ev
        route = Route(eth_dst=self.nic_mac, eth_src=CONTROLLER_MAC, src=self.src,
                      dst=self.dst, sport=ev >> 16 & 0xFFFF, flow_label=ev & 0xFFFF)
        return encode_probe(route, dest_qp=self.local_qpn, psn=0, probe_id=self.sent,
                            src_conn_id=self.local_qpn & _CONN_ID_MASK,
                            dst_conn_id=self.remote_qpn & _CONN_ID_MASK)


class ProbeSchedule:
    """Retired EVs being probed, by (NIC, QP index, EV). Used from one thread."""

    def __init__(self, first_interval_s: float = FIRST_INTERVAL_S,
                 max_interval_s: float = MAX_INTERVAL_S, max_probes: int = MAX_PROBES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.first_interval_s = first_interval_s
        self.max_interval_s = max_interval_s
        self.max_probes = max_probes
        self.clock = clock
        self.tasks: dict[ProbeKey, ProbeTask] = {}

    def start(self, task: ProbeTask) -> None:
        """Probe ``task.key`` from now on (a retired EV already probed keeps its
        schedule)."""
        if task.key not in self.tasks:
            task.due, task.interval = self.clock(), self.first_interval_s
            self.tasks[task.key] = task

    def restored(self, key: ProbeKey) -> ProbeTask | None:
        """Stop probing ``key``; the task, if it was being probed."""
        return self.tasks.pop(key, None)

    def next_due(self) -> float | None:
        return min((t.due for t in self.tasks.values()), default=None)

    def take_due(self) -> tuple[list[ProbeTask], list[ProbeTask]]:
        """(tasks to probe now, tasks given up: ``max_probes`` sent, no restore). The
        first are rescheduled as if their probe was sent."""
        now = self.clock()
        send, given_up = [], []
        for key, task in list(self.tasks.items()):
            if task.due > now:
                continue
            if task.sent >= self.max_probes:
                given_up.append(self.tasks.pop(key))
                continue
            send.append(task)
            task.sent += 1
            task.due = now + task.interval
            task.interval = min(task.interval * 2, self.max_interval_s)
        return send, given_up

