"""Scenario files (YAML, ``fabric/scenarios/``): a topology in the controller's format,
the physical settings, the workloads, the failures, the sweeps and the checks that
decide pass/fail. Unknown keys are errors; every problem is reported as one
``FILE: PLACE: PROBLEM`` line. ``docs/experiments.md`` is the full reference.

    name: link-failure
    topology: ../topologies/small.yaml
    network: {link_rate_gbps: 10, link_delay_us: 1, queue_depth: 64}
    transport: {rto_us: 300, gap_threshold: 3}
    workloads:
      - {qp: qp-a, bytes: 2MiB, messages: 4}                 # a write stream
      - {type: all-reduce, ranks: [nic0, nic1, nic2, nic3], bytes: 1MiB}
    failures:
      - {at_us: 300, link: "p0-t0-0:4", action: down}
    sweep:
      - {parameter: failures.0.at_us, values: [200, 400]}
    checks:
      - {metric: ev_retired_after_us, compare: "<=", bound: 100}
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from host.nscc import NsccConfig
from protocol.constants import NIC_RX_WINDOW

from .workloads.specs import WORKLOAD_TYPES, Workload, WorkloadSpec, parse_size

# Workload (a write stream) and parse_size are part of a scenario's vocabulary: scripts
# build scenarios from them (scripts/bench_fabric.py).
__all__ = ["Check", "Scenario", "ScenarioError", "Sweep", "Workload", "load_scenario",
           "load_scenarios", "parse_size"]

_TIME_METRIC = re.compile(r"_us$")


class ScenarioError(Exception):
    """A scenario that cannot be run; ``str()`` is one line per problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PfcSpec(_Strict):
    """PFC on the RoCE baseline's lossless class (``fabric.sim.pfc``): a device pauses
    a port's sender when ``xoff_packets`` data packets that came in on that port wait
    in its queues, and resumes it at ``xon_packets``. MRC runs lossy: no PFC."""

    xoff_packets: int = Field(ge=1)
    xon_packets: int = Field(ge=0)

    @field_validator("xon_packets")
    @classmethod
    def _below_xoff(cls, xon: int, info: Any) -> int:
        xoff = info.data.get("xoff_packets")
        if xoff is not None and xon >= xoff:
            raise ValueError(f"must be below xoff_packets ({xoff})")
        return xon


class NetworkSpec(_Strict):
    link_rate_gbps: float = Field(10.0, gt=0)
    link_delay_us: float = Field(1.0, ge=0)
    host_delay_us: float = Field(0.5, ge=0)
    queue_depth: int = Field(64, ge=1, le=4096)
    pfc: PfcSpec | None = None  # the RoCE baseline's PFC; None: lossless queues only


class TransportSpec(_Strict):
    mtu: int = Field(1024, ge=64, le=4096)
    window: int = Field(64, ge=1, le=NIC_RX_WINDOW)
    rto_us: float = Field(1000.0, gt=0)
    max_rto_us: float = Field(8000.0, gt=0)
    fixed_retries: int = Field(3, ge=0)
    max_retries: int = Field(30, ge=0)
    gap_threshold: int = Field(3, ge=1)
    tail_ack_req: int = Field(8, ge=1)
    # RoCE's local ACK timeout (RC's, fixed per QP; NCCL_IB_TIMEOUT sets it): the RoCE
    # baseline's RTO. None: rto_us.
    roce_rto_us: float | None = Field(None, gt=0)
    # DCQCN's rate-increase timer T (host/roce/dcqcn.py; the paper's 55 us): a scenario
    # whose transfers are scaled down may scale it, and says why
    dcqcn_timer_us: float = Field(55.0, gt=0)
    reorder_allowance_us: float = Field(2.0, ge=0)  # loss detection's jitter allowance
    cc: Literal["none", "nscc"] = "none"  # congestion control (docs/congestion-and-loss.md)
    nscc: NsccConfig = NsccConfig()


class Failure(_Strict):
    """A fault at ``at_us`` (docs/experiments.md, "Failures"):

    * ``down`` / ``up``: the cable at ``link`` (device:port, either end; a NIC's port
      too), or each of ``links``, ``every_us`` apart (0: together);
    * ``flap``: those cables down for ``down_us``, then up, ``times`` times, every
      ``period_us``;
    * ``loss``: ``rate`` of the frames on the cable(s) dropped (both ways);
    * ``nic-loss``: ``rate`` of the frames arriving at ``nics`` (default: every NIC)
      dropped, on every plane (the paper's inline dropper at NIC ingress);
    * ``switch-down`` / ``switch-up``: every cable of ``device`` down / up again;
    * ``reboot``: ``device`` loses its pipeline and is programmed again ``down_us``
      later by the controller.
    """

    at_us: float = Field(ge=0)
    action: Literal["down", "up", "flap", "loss", "nic-loss", "switch-down", "switch-up",
                    "reboot"]
    link: str | None = None
    links: list[str] = []
    every_us: float = Field(0.0, ge=0)
    device: str | None = None
    nics: list[str] | None = None
    rate: float = Field(0.0, ge=0, le=1)
    down_us: float = Field(100.0, ge=0)
    times: int = Field(1, ge=1, le=1000)
    period_us: float = Field(200.0, gt=0)

    def cables(self) -> list[str]:
        """The cable ends it acts on (``link`` and ``links``)."""
        return ([self.link] if self.link is not None else []) + self.links

    def needs(self) -> str | None:
        """What the action lacks, if anything."""
        if self.action in ("reboot", "switch-down", "switch-up"):
            return None if self.device is not None else "a device"
        if self.action == "nic-loss":
            return None
        return None if self.cables() else "a link (or links)"


class Check(_Strict):
    """Pass when ``metric`` (of ``qp``, in run ``run``) ``compare`` ``bound``."""

    metric: str  # a name of fabric.checks.METRICS
    compare: Literal["<=", ">=", "<", ">", "=="]
    bound: float
    qp: str | None = None
    workload: str | None = None  # a workload's name (default names: w0, w1, ...)
    run: str = "mrc"  # mrc, baseline or solo:QP
    name: str = ""  # what the summary calls it; default: the metric's own title

    def holds(self, value: float | None) -> bool:
        if value is None:
            return False
        return {"<=": value <= self.bound, ">=": value >= self.bound,
                "<": value < self.bound, ">": value > self.bound,
                "==": value == self.bound}[self.compare]

    def time_scaled(self, factor: float, slack_us: float = 0.0) -> Check:
        """The check with a time bound (a metric in microseconds) times ``factor``; an
        upper bound (``<=``, ``<``) also gets ``slack_us`` more (a delay the run adds to
        every such time, as a process fabric's scheduling allowance)."""
        if not _TIME_METRIC.search(self.metric):
            return self
        slack = slack_us if self.compare in ("<=", "<") else 0.0
        return self.model_copy(update={"bound": self.bound * factor + slack})


class Sweep(_Strict):
    """One run of the scenario per value, with ``parameter`` (a dotted path into the
    file, e.g. ``failures.0.rate`` or ``network.link_rate_gbps``) set to it."""

    parameter: str = Field(min_length=1)
    values: list[Any] = Field(min_length=1)


class Scenario(_Strict):
    name: str
    description: str = ""
    topology: str
    seed: int = 1
    network: NetworkSpec = NetworkSpec()
    transport: TransportSpec = TransportSpec()
    workloads: list[Annotated[WorkloadSpec, Field(discriminator="type")]] = Field(
        min_length=1)
    failures: list[Failure] = []
    pin: dict[str, list[int]] = {}  # QP -> T1 index of each slot (see plan_overrides)
    baseline: Literal["none", "single-path", "roce"] = "single-path"
    checks: list[Check] = []
    sweep: list[Sweep] = []
    bin_us: float = Field(20.0, gt=0)
    max_time_us: float = Field(200_000.0, gt=0)
    quick_scale: float = Field(0.25, gt=0, le=1)  # --quick: bytes x this

    path: str = ""  # the file it was read from
    point: dict[str, Any] = {}  # the sweep values this scenario was made with

    @field_validator("baseline", mode="before")
    @classmethod
    def _baseline_flag(cls, value: Any) -> Any:
        """``true`` / ``false`` (the older form): single-path / none."""
        if isinstance(value, bool):
            return "single-path" if value else "none"
        return value

    @field_validator("workloads", mode="before")
    @classmethod
    def _default_type(cls, value: Any) -> Any:
        """A workload without ``type`` is a write stream."""
        if isinstance(value, list):
            return [{"type": "stream", **w} if isinstance(w, dict) and "type" not in w
                    else w for w in value]
        return value

    def topology_path(self) -> Path:
        path = Path(self.topology)
        return path if path.is_absolute() else Path(self.path).parent / path

    def scaled(self, factor: float) -> Scenario:
        """The same scenario with every workload's bytes times ``factor``."""
        return self.model_copy(update={"workloads": [w.scaled(factor)
                                                     for w in self.workloads]})

    def solo_qps(self) -> list[str]:
        """QPs the checks compare with their goodput alone (a ``solo:QP`` run each)."""
        seen: dict[str, None] = {}
        for check in self.checks:
            if check.run.startswith("solo:"):
                seen[check.run.removeprefix("solo:")] = None
            elif check.metric == "goodput_ratio_to_solo" and check.qp:
                seen[check.qp] = None
        return list(seen)


def _read(path: str | Path) -> dict[str, Any]:
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
    return data


def _validate(data: dict[str, Any], source: str, prefix: str = "") -> Scenario:
    try:
        scenario = Scenario.model_validate({**data, "path": source})
    except ValidationError as err:
        lines = []
        for e in err.errors():
            # a workload's type is the union's tag, not a place in the file
            loc = [p for i, p in enumerate(e["loc"])
                   if not (i == 2 and e["loc"][0] == "workloads" and p in WORKLOAD_TYPES)]
            where = ".".join(str(p) for p in loc) or "(top)"
            message = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                message = "unknown key"
            elif e["type"] == "union_tag_invalid":
                message = f"unknown workload type (known: {', '.join(WORKLOAD_TYPES)})"
            lines.append(f"{source}: {prefix}{where}: {message}")
        raise ScenarioError("\n".join(lines)) from None
    problems = []
    for i, failure in enumerate(scenario.failures):
        lacks = failure.needs()
        if lacks is not None:
            problems.append(f"{source}: {prefix}failures[{i}]: {failure.action} needs "
                            f"{lacks}")
    if problems:
        raise ScenarioError("\n".join(problems))
    return scenario


def load_scenario(path: str | Path) -> Scenario:
    """The scenario of a file, as written (its sweeps not expanded)."""
    return _validate(_read(path), str(path))


def load_scenarios(path: str | Path) -> list[Scenario]:
    """The scenario of a file, one per point of its sweeps (every combination of their
    values), each named ``NAME[PARAM=VALUE,...]``; the file's own scenario when it
    has no sweep."""
    data = _read(path)
    base = _validate(data, str(path))
    if not base.sweep:
        return [base]
    out = []
    for values in itertools.product(*(s.values for s in base.sweep)):
        point = dict(zip((s.parameter for s in base.sweep), values, strict=True))
        variant = {k: v for k, v in data.items() if k != "sweep"}
        for parameter, value in point.items():
            try:
                variant = _set(variant, parameter.split("."), value)
            except (KeyError, IndexError, TypeError):
                raise ScenarioError(f"{path}: sweep: {parameter!r} is not a place in the "
                                    "file (e.g. failures.0.rate)") from None
        label = ",".join(f"{k}={v}" for k, v in point.items())
        variant["name"] = f"{base.name}[{label}]"
        out.append(_validate({**variant, "point": point}, str(path), f"[{label}] "))
    return out


def _set(data: Any, keys: list[str], value: Any) -> Any:
    """A copy of ``data`` with the value at ``keys`` (mapping keys, list indexes)
    replaced; a missing mapping key is added (a list index must exist)."""
    key, rest = keys[0], keys[1:]
    if isinstance(data, list):
        index = int(key)
        copy = list(data)
        copy[index] = _set(copy[index], rest, value) if rest else value
        return copy
    if not isinstance(data, dict) or key.isdigit():
        raise TypeError(key)
    copy = dict(data)
    if rest:
        copy[key] = _set(copy.get(key, {}), rest, value)
    else:
        copy[key] = value
    return copy
