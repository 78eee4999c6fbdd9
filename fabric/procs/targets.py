"""``--target bm|bmv2``: which switch program every device process runs. The target is
also what the controller pushes (bm's P4 source bundle or p4c's BMv2 JSON), so the
option overrides the topology's targets for both: the fabric is loaded as if the file
said ``defaults: {target: T}`` and no device named a target of its own."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from controller.topology import Fabric, load_topology
from controller.topology.load import parse_topology

from .bmv2 import BMV2_SWITCH

__all__ = ["TARGETS", "TargetError", "check_target", "load_fabric"]

TARGETS = ("bm", "bmv2")


class TargetError(Exception):
    """A target that cannot run here."""


def check_target(fabric: Fabric) -> None:
    """TargetError unless every device's target can be started on this machine."""
    targets = {s.access.target for s in fabric.switches()} | \
        {n.access.target for n in fabric.nics()}
    if "bmv2" in targets and shutil.which(BMV2_SWITCH) is None:
        raise TargetError(f"{BMV2_SWITCH} is not installed (not on PATH): BMv2 devices "
                          "cannot be started; use --target bm")


def load_fabric(path: str | Path, target: str | None = None) -> Fabric:
    """The topology at ``path`` (TopologyError as the controller reports it), every
    device on ``target`` if one is given."""
    if target is None:
        return load_topology(path)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return load_topology(path)  # which reports the problem
    if not isinstance(data, dict):
        return load_topology(path)
    defaults = data.get("defaults")
    data["defaults"] = {**(defaults if isinstance(defaults, dict) else {}), "target": target}
    for device in _listed_devices(data):
        device.pop("target", None)
    return parse_topology(yaml.safe_dump(data, sort_keys=False), str(path))


def _listed_devices(data: dict[str, Any]) -> list[dict[str, Any]]:
    devices = [n for n in data.get("nics") or [] if isinstance(n, dict)]
    for plane in data.get("planes") or []:
        if isinstance(plane, dict):
            for role in ("t1", "t0"):
                devices += [s for s in plane.get(role) or [] if isinstance(s, dict)]
    return devices
