"""The running controller's metrics, read when Prometheus scrapes: one reading of every
device's counters (``read_health``, as ``watch``'s table), the supervisors' session
states, the top-up book, the EVs being probed and the events counted so far. Nothing is
copied in the background, so the figures of one scrape come from one reading."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from prometheus_client.core import Metric as Family
from prometheus_client.registry import Collector

from controller.health import FabricHealth, read_health
from controller.react import LinkState, Reactor
from controller.topology import Role
from protocol import constants as c

from . import catalog as m
from .event_counts import EventCounts


class ControllerCollector(Collector):
    """Collects ``m.CONTROLLER_METRICS`` from ``reactor`` (started or not)."""

    def __init__(self, reactor: Reactor) -> None:
        self.reactor = reactor
        self.counts = EventCounts(reactor.log)
        self._reading = threading.Lock()  # one scrape reads the devices at a time

    def describe(self) -> Iterator[Family]:
        for metric in m.CONTROLLER_METRICS:
            yield metric.family()

    def collect(self) -> Iterator[Family]:
        reactor = self.reactor
        # The sessions' states are taken before the devices are read, so a device
        # this scrape calls up was up for the whole of its reading: read the other way
        # round, a device that came up during the reading would show up but unread.
        sessions = [(name, supervisor.link.target.role, supervisor.state,
                     supervisor.connections)
                    for name, supervisor in reactor.supervisors.items()]
        with self._reading:
            started = time.perf_counter()
            health = read_health(reactor.plan, list(reactor.links.values()))
            took = time.perf_counter() - started
        yield from self._devices(health, sessions)
        yield from _planes(health)
        yield from _links(health)
        yield from _qps(health)
        yield from self._evs()
        events = m.CONTROLLER_EVENTS.family()
        for (event, device), count in sorted(self.counts.events().items()):
            events.add_metric([event, device], count)
        yield events
        duration = m.HEALTH_READ.family()
        duration.add_metric([], took)
        yield duration

    @staticmethod
    def _devices(health: FabricHealth,
                 sessions: list[tuple[str, Role, LinkState, int]]) -> Iterator[Family]:
        reachable, state, connections, drops, nic_events = (
            metric.family() for metric in (m.DEVICE_REACHABLE, m.DEVICE_STATE,
                                           m.DEVICE_CONNECTIONS, m.DEVICE_DROPS,
                                           m.NIC_EVENTS))
        for d in health.devices:
            labels = [d.device, str(d.role)]
            reachable.add_metric(labels, int(d.reachable))
            for reason, count in sorted(d.drops.items()):
                drops.add_metric([*labels, reason], count)
            for event, count in sorted(d.events.items()):
                nic_events.add_metric([d.device, event], count)
        for name, role, current, count in sessions:
            labels = [name, str(role)]
            for each in LinkState:
                state.add_metric([*labels, str(each)], int(each is current))
            connections.add_metric(labels, count)
        yield from (reachable, state, connections, drops, nic_events)

    def _evs(self) -> Iterator[Family]:
        reactor = self.reactor
        plan = reactor.plan
        probing: dict[tuple[str, int, int], int] = {}
        # tuple(): one step under the GIL while the reactor's thread changes the dict
        for key in tuple(reactor.probes.tasks):
            where = (key.nic, key.qp_index, c.ev_plane(key.ev))
            probing[where] = probing.get(where, 0) + 1
        ids, probed, events = (metric.family() for metric in (
            m.QP_EV_IDS, m.QP_EVS_PROBING, m.QP_EV_EVENTS))
        for nic, ends in plan.qp_sides.items():
            book = reactor.book.of(nic)
            for qp, side in ends:
                index = qp.ends[side].qp_index
                for plane in range(plan.fabric.planes):
                    labels = [qp.name, nic, str(plane)]
                    ids.add_metric([*labels, "slot"], qp.evs_per_plane)
                    ids.add_metric([*labels, "backup"], qp.backups_per_plane)
                    ids.add_metric([*labels, "topped_up"], book.get(index, {}).get(plane, 0))
                    probed.add_metric(labels, probing.get((nic, index, plane), 0))
        for (nic, index, reason), count in sorted(self.counts.digests().items()):
            found = plan.qp_at(nic, index)
            name = found[0].name if found is not None else ""
            events.add_metric([name, nic, str(index), reason], count)
        yield from (ids, probed, events)


def _planes(health: FabricHealth) -> Iterator[Family]:
    fields = ((m.PLANE_SWITCH_TX, "switch_tx_packets"), (m.PLANE_SWITCH_DROPS, "switch_drops"),
              (m.PLANE_TRIMS, "trims"), (m.PLANE_ECN, "ecn_marks"),
              (m.PLANE_NIC_TX, "nic_tx_packets"), (m.PLANE_ECHOES, "ecn_echoes"),
              (m.PLANE_NIC_TRIMS, "nic_trims"), (m.PLANE_RETIREMENTS, "retirements"))
    for metric, field in fields:
        family = metric.family()
        for plane in health.planes:
            family.add_metric([str(plane.plane)], getattr(plane, field))
        yield family


def _links(health: FabricHealth) -> Iterator[Family]:
    fields = ((m.LINK_RX, "rx_packets"), (m.LINK_TX, "tx_packets"), (m.LINK_TRIMS, "trims"),
              (m.LINK_ECN, "ecn_marks"))
    for metric, field in fields:
        family = metric.family()
        for link in health.links:
            family.add_metric([link.device, str(link.port), link.peer, str(link.plane)],
                              getattr(link, field))
        yield family


def _qps(health: FabricHealth) -> Iterator[Family]:
    fields = ((m.QP_TX, "tx_packets"), (m.QP_RX, "rx_packets"), (m.QP_ECHOES, "ecn_echoes"),
              (m.QP_TRIMS, "trims"), (m.QP_RETIREMENTS, "retirements"))
    for metric, field in fields:
        family = metric.family()
        for qp in health.qps:
            family.add_metric([qp.qp, qp.nic, str(qp.qp_index)], getattr(qp, field))
        yield family
