"""Topology documents for the controller tests: a Clos shape, written compactly (``clos``)
or listed device by device with the same names, ports and MACs (its twin)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from controller.topology.fabric import usable_ports


@dataclass(frozen=True)
class Shape:
    planes: int
    t1: int
    t0: int
    nics_per_t0: int

    @property
    def nics(self) -> int:
        return self.t0 * self.nics_per_t0


def clos_document(shape: Shape, qps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "generated",
        "clos": {"planes": shape.planes, "t1_per_plane": shape.t1, "t0_per_plane": shape.t0,
                 "nics_per_t0": shape.nics_per_t0},
        "qps": qps,
    }


def listed_document(shape: Shape, qps: list[dict[str, Any]],
                    fixed_usids: dict[str, int] | None = None,
                    port_numbers: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """The same fabric as ``clos_document``, every device and link written out;
    ``fixed_usids`` gives some switches their uSID, ``port_numbers[device][k]`` renumbers
    the device's k-th port (a NIC's k-th port is plane k's)."""
    k = shape.nics_per_t0
    canonical = list(islice(usable_ports(9), max(k + shape.t1, shape.t0)))
    address = iter(range(40000, 60000))

    def port(device: str, index: int) -> int:
        if port_numbers and device in port_numbers:
            return port_numbers[device][index]
        return canonical[index] if not device.startswith("nic") else index + 1

    def device(name: str) -> dict[str, Any]:
        spec = {"name": name, "address": f"127.0.0.1:{next(address)}"}
        if fixed_usids and name in fixed_usids:
            spec["usid"] = fixed_usids[name]
        return spec

    planes, links = [], []
    for p in range(shape.planes):
        planes.append({"t1": [device(f"p{p}-t1-{i}") for i in range(shape.t1)],
                       "t0": [device(f"p{p}-t0-{j}") for j in range(shape.t0)]})
        for j in range(shape.t0):
            t0 = f"p{p}-t0-{j}"
            for d in range(k):
                nic = f"nic{j * k + d}"
                links.append([f"{nic}:{port(nic, p)}", f"{t0}:{port(t0, d)}"])
            for i in range(shape.t1):
                t1 = f"p{p}-t1-{i}"
                links.append([f"{t0}:{port(t0, k + i)}", f"{t1}:{port(t1, j)}"])
    nics = [{**device(f"nic{n}"), "ports": [port(f"nic{n}", p) for p in range(shape.planes)]}
            for n in range(shape.nics)]
    return {"name": "generated", "planes": planes, "nics": nics, "links": links, "qps": qps}
