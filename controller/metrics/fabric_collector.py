"""The process fabric's metrics (``python -m fabric.procs``), read when Prometheus
scrapes: one snapshot of the wiring (the patch panel's or the veths' links and
counters, as ``status`` shows them) and whether each device process runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from prometheus_client.core import Metric as Family
from prometheus_client.registry import Collector

from . import catalog as m

_DROPS = (("down", "dropped_down"), ("loss", "dropped_loss"))


class DeviceProcess(NamedTuple):
    name: str
    role: str
    running: bool


class FabricCollector(Collector):
    """Collects ``m.FABRIC_METRICS``: ``snapshot()`` is the wiring's snapshot (links with
    ``name``, ``ends``, ``up``, ``loss`` and per-direction ``counters``; ``unlinked``,
    ``undelivered``, ``devices_lost``), ``devices()`` the device processes."""

    def __init__(self, snapshot: Callable[[], Mapping[str, Any]],
                 devices: Callable[[], Iterable[DeviceProcess]]) -> None:
        self.snapshot = snapshot
        self.devices = devices

    def describe(self) -> Iterator[Family]:
        for metric in m.FABRIC_METRICS:
            yield metric.family()

    def collect(self) -> Iterator[Family]:
        snapshot = self.snapshot()
        lost = set(snapshot.get("devices_lost", ()))
        up = m.FABRIC_DEVICE_UP.family()
        for device in self.devices():
            up.add_metric([device.name, device.role],
                          int(device.running and device.name not in lost))
        yield up
        yield from _links(snapshot.get("links", ()))
        unlinked = m.FABRIC_UNLINKED.family()
        for port, count in sorted(snapshot.get("unlinked", {}).items()):
            unlinked.add_metric([port], count)
        yield unlinked
        undelivered = m.FABRIC_UNDELIVERED.family()
        undelivered.add_metric([], snapshot.get("undelivered", 0) + sum(
            h.get("undelivered", 0) for h in snapshot.get("hosts", ())))
        yield undelivered


def _links(links: Iterable[Mapping[str, Any]]) -> Iterator[Family]:
    state, loss, frames, drops = (metric.family() for metric in (
        m.FABRIC_LINK_UP, m.FABRIC_LINK_LOSS, m.FABRIC_LINK_FRAMES, m.FABRIC_LINK_DROPS))
    for link in links:
        name = link["name"]
        state.add_metric([name], int(link["up"]))
        loss.add_metric([name], link["loss"])
        for source, counters in zip(link["ends"], link["counters"], strict=True):
            frames.add_metric([name, source], counters["forwarded"])
            for reason, key in _DROPS:
                drops.add_metric([name, source, reason], counters[key])
    yield from (state, loss, frames, drops)
