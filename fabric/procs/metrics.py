"""The process fabric's Prometheus collector (docs/metrics.md), for ``up`` and ``run``
with ``--metrics-port``: its wiring's snapshot and its device processes, read at each
scrape."""

from __future__ import annotations

from controller.metrics import DeviceProcess, FabricCollector

from .process_fabric import ProcessFabric


def fabric_collector(fabric: ProcessFabric) -> FabricCollector:
    def devices() -> list[DeviceProcess]:
        processes = fabric.devices.processes
        return [DeviceProcess(d.name, d.role,
                              d.name in processes and processes[d.name].poll() is None)
                for d in fabric.layout.devices]
    return FabricCollector(fabric.panel.snapshot, devices)
