"""Scenario files (YAML, ``fabric/scenarios/``): a topology in the controller's format,
the physical settings, the workloads, the failures, and what to measure. Unknown keys
are errors; every problem is reported as one ``FILE: PLACE: PROBLEM`` line.

    name: link-failure
    kind: link-failure            # spray | link-failure | ecn-steer | incast
    topology: ../topologies/small.yaml
    network: {link_rate_gbps: 10, link_delay_us: 1, queue_depth: 64}
    transport: {rto_us: 300, gap_threshold: 3}
    workloads:
      - {qp: qp-a, bytes: 2MiB, messages: 4}
    failures:
      - {at_us: 300, link: "p0-t0-0:4", action: down}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["Scenario", "ScenarioError", "load_scenario", "parse_size"]

KINDS = ("spray", "link-failure", "ecn-steer", "incast")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|KB|MB|GB)?\s*$")
_UNITS = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
          "KB": 10**3, "MB": 10**6, "GB": 10**9}


class ScenarioError(Exception):
    """A scenario that cannot be run; ``str()`` is one line per problem."""


def parse_size(value: int | str) -> int:
    """``4096``, ``"64KiB"``, ``"2MiB"`` -> bytes."""
    if isinstance(value, int):
        return value
    match = _SIZE.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a size (e.g. 4096, 64KiB, 2MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NetworkSpec(_Strict):
    link_rate_gbps: float = Field(10.0, gt=0)
    link_delay_us: float = Field(1.0, ge=0)
    host_delay_us: float = Field(0.5, ge=0)
    queue_depth: int = Field(64, ge=1, le=4096)


class TransportSpec(_Strict):
    mtu: int = Field(1024, ge=64, le=4096)
    window: int = Field(64, ge=1, le=64)
    rto_us: float = Field(1000.0, gt=0)
    max_rto_us: float = Field(8000.0, gt=0)
    fixed_retries: int = Field(3, ge=0)
    max_retries: int = Field(30, ge=0)
    gap_threshold: int = Field(3, ge=1)
    tail_ack_req: int = Field(8, ge=1)


class Workload(_Strict):
    qp: str
    bytes: int
    messages: int = Field(1, ge=1, le=4096)
    start_us: float = Field(0.0, ge=0)
    reverse: bool = False  # send from the QP's second endpoint to its first

    @field_validator("bytes", mode="before")
    @classmethod
    def _size(cls, value: int | str) -> int:
        size = parse_size(value)
        if size < 1:
            raise ValueError("must be at least 1 byte")
        return size


class Failure(_Strict):
    at_us: float = Field(ge=0)
    action: Literal["down", "up", "loss", "reboot"]
    link: str | None = None  # device:port, either end of the cable
    device: str | None = None  # for reboot
    rate: float = Field(0.0, ge=0, le=1)  # for loss
    down_us: float = Field(100.0, ge=0)  # reboot: time until it is programmed again


class Scenario(_Strict):
    name: str
    kind: Literal["spray", "link-failure", "ecn-steer", "incast"]
    description: str = ""
    topology: str
    seed: int = 1
    network: NetworkSpec = NetworkSpec()
    transport: TransportSpec = TransportSpec()
    workloads: list[Workload] = Field(min_length=1)
    failures: list[Failure] = []
    pin: dict[str, list[int]] = {}  # QP -> T1 index of each slot (see plan_overrides)
    victim: str | None = None  # incast: the QP whose goodput must not suffer
    solo: list[str] = []  # QPs also run alone, for their undisturbed goodput
    baseline: bool = True  # also run with single-path QPs
    bin_us: float = Field(20.0, gt=0)
    max_time_us: float = Field(200_000.0, gt=0)
    quick_scale: float = Field(0.25, gt=0, le=1)  # --quick: bytes x this
    # pass/fail bounds of the outcome (fabric/outcomes.py)
    share_tolerance: float = Field(0.1, ge=0)
    retire_bound_us: float = Field(200.0, gt=0)
    goodput_tolerance: float = Field(0.15, ge=0)

    path: str = ""  # the file it was read from

    def topology_path(self) -> Path:
        path = Path(self.topology)
        return path if path.is_absolute() else Path(self.path).parent / path

    def scaled(self, factor: float) -> Scenario:
        """The same scenario with every workload's bytes times ``factor``."""
        loads = [w.model_copy(update={"bytes": max(w.messages, int(w.bytes * factor))})
                 for w in self.workloads]
        return self.model_copy(update={"workloads": loads})


def load_scenario(path: str | Path) -> Scenario:
    source = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioError(f"{source}: cannot read the file: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ScenarioError(f"{source}: {where}not valid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: the file must be a YAML mapping (key: value)")
    try:
        scenario = Scenario.model_validate({**data, "path": source})
    except ValidationError as err:
        lines = []
        for e in err.errors():
            where = ".".join(str(p) for p in e["loc"]) or "(top)"
            message = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                message = "unknown key"
            lines.append(f"{source}: {where}: {message}")
        raise ScenarioError("\n".join(lines)) from None
    for i, failure in enumerate(scenario.failures):
        needs = "device" if failure.action == "reboot" else "link"
        if getattr(failure, needs) is None:
            raise ScenarioError(f"{source}: failures[{i}]: {failure.action} needs a {needs}")
    return scenario
