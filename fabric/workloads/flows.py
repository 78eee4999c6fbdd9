"""A scenario's workloads as flows: writes on one QP in one direction, each starting at
a time or when the flows it waits for are done (a collective's steps), and the QPs the
workloads open for themselves (added to the topology's before the plan is made).

A flow has what ``fabric.workload`` needs of a load (``qp``, ``bytes``, ``messages``,
``reverse``), so the same code opens its QPs and posts its writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .specs import AllReduce, AllToAll, Bidirectional, Incast, Permutation, Workload

__all__ = ["Flow", "Group", "expand", "BUS_FACTOR"]


@dataclass
class Flow:
    qp: str
    bytes: int
    messages: int
    reverse: bool
    start_us: float
    group: str  # the workload it belongs to
    after: tuple[int, ...] = ()  # indexes of the flows that must be done first


@dataclass
class Group:
    """One workload of the file: its flows and what NCCL-tests reports of it."""

    name: str
    type: str
    ranks: int  # NICs taking part (a stream: 2)
    bytes: int  # NCCL-tests' size: per rank for collectives, in all for the others
    flows: list[int] = field(default_factory=list)


def _bus_all_reduce(n: int) -> float:
    return 2 * (n - 1) / n


def _bus_all_to_all(n: int) -> float:
    return (n - 1) / n


# busbw = algbw x this (NCCL-tests' doc/PERFORMANCE.md): the bandwidth a rank's links
# need, comparable with the line rate whatever the number of ranks.
BUS_FACTOR = {"all-reduce": _bus_all_reduce, "all-to-all": _bus_all_to_all}


@dataclass
class Expansion:
    flows: list[Flow]
    groups: list[Group]
    qps: list[dict[str, Any]]  # topology QP declarations to add


def expand(workloads: list[Any]) -> Expansion:
    """Every workload of a scenario as flows, groups and the QPs they open."""
    out = Expansion([], [], [])
    for index, spec in enumerate(workloads):
        name = getattr(spec, "name", "") or f"w{index}"
        if isinstance(spec, Workload):
            group = _group(out, name, spec.type, 2, spec.bytes)
            _add(out, group, Flow(spec.qp, spec.bytes, spec.messages, spec.reverse,
                                  spec.start_us, name))
        elif isinstance(spec, Bidirectional):
            group = _group(out, name, spec.type, 2, spec.bytes)
            for reverse in (False, True):
                _add(out, group, Flow(spec.qp, spec.bytes, spec.messages, reverse,
                                      spec.start_us, name))
        elif isinstance(spec, AllReduce):
            _all_reduce(out, name, spec)
        elif isinstance(spec, AllToAll):
            _all_to_all(out, name, spec)
        elif isinstance(spec, Permutation):
            n = len(spec.ranks)
            shift = spec.shift if spec.shift is not None else max(1, n // 2)
            group = _group(out, name, spec.type, n, spec.bytes * n)
            for i, src in enumerate(spec.ranks):
                dst = spec.ranks[(i + shift) % n]
                if dst != src:
                    _pair(out, group, spec, src, dst, spec.bytes)
        elif isinstance(spec, Incast):
            group = _group(out, name, spec.type, len(spec.senders) + 1,
                           spec.bytes * len(spec.senders))
            for src in spec.senders:
                _pair(out, group, spec, src, spec.receiver, spec.bytes)
    return out


def _group(out: Expansion, name: str, kind: str, ranks: int, size: int) -> Group:
    group = Group(name, kind, ranks, size)
    out.groups.append(group)
    return group


def _add(out: Expansion, group: Group, flow: Flow) -> int:
    out.flows.append(flow)
    group.flows.append(len(out.flows) - 1)
    return len(out.flows) - 1


def qp_name(group: str, src: str, dst: str, part: int) -> str:
    return f"{group}:{src}>{dst}" + (f"#{part}" if part else "")


def _open(out: Expansion, spec: Any, group: str, src: str, dst: str) -> list[str]:
    """The QPs of a pair (one per ``qps_per_peer``), declared once."""
    names = [qp_name(group, src, dst, part) for part in range(spec.qps_per_peer)]
    known = {q["name"] for q in out.qps}
    for qp in names:
        if qp not in known:
            decl: dict[str, Any] = {"name": qp, "endpoints": [src, dst]}
            for key in ("evs_per_plane", "sack_every"):
                if getattr(spec, key) is not None:
                    decl[key] = getattr(spec, key)
            out.qps.append(decl)
    return names


def _pair(out: Expansion, group: Group, spec: Any, src: str, dst: str, size: int,
          after: tuple[int, ...] = ()) -> list[int]:
    """``size`` bytes from ``src`` to ``dst``, an equal part on each of the pair's QPs
    (``spec.messages`` writes each); the indexes of the flows."""
    qps = _open(out, spec, group.name, src, dst)
    parts = [size // len(qps)] * len(qps)
    parts[-1] += size - sum(parts)
    return [_add(out, group, Flow(qp, max(part, spec.messages), spec.messages, False,
                                  spec.start_us, group.name, after))
            for qp, part in zip(qps, parts, strict=True)]


def _all_reduce(out: Expansion, name: str, spec: AllReduce) -> None:
    """NCCL's ring: reduce-scatter then all-gather, 2(n-1) steps of bytes/n. Rank i's
    step k waits for rank i-1's step k-1 (the chunk it reduces or forwards) and for
    its own step k-1 (a QP sends in order)."""
    n = len(spec.ranks)
    group = _group(out, name, spec.type, n, spec.bytes)
    chunk = max(1, spec.bytes // n)
    previous: list[list[int]] = [[] for _ in range(n)]
    for _step in range(2 * (n - 1)):
        current = []
        for i, src in enumerate(spec.ranks):
            after = tuple(previous[(i - 1) % n] + previous[i])
            current.append(_pair(out, group, spec, src, spec.ranks[(i + 1) % n], chunk,
                                 after))
        previous = current


def p2p_deltas(n: int) -> list[int]:
    """The order in which NCCL's p2p schedule visits a rank's peers, one rank per node
    (``ncclP2pSchedule``, init.cc): in round r, rank i sends to rank i + delta_r and
    receives from i - delta_r, delta_r = r(r+1)/2 modulo the power of two at or above
    n (a permutation of its residues), those under n kept. Every round is a
    permutation: each rank has one sender and one receiver at a time."""
    size = 1
    while size < n:
        size *= 2
    deltas = [r * (r + 1) // 2 % size for r in range(size)]
    return [d for d in deltas if 0 < d < n]


def _all_to_all(out: Expansion, name: str, spec: AllToAll) -> None:
    """Every rank writes bytes/n to every other, all posted at once, each rank's in
    NCCL's p2p order (``p2p_deltas``): a NIC sends its QPs' first windows in the order
    they were posted, so the same peer order on every rank (rank 0 first) would make
    the first windows a 7 -> 1 incast into one rank after another."""
    n = len(spec.ranks)
    group = _group(out, name, spec.type, n, spec.bytes)
    for i, src in enumerate(spec.ranks):
        for delta in p2p_deltas(n):
            _pair(out, group, spec, src, spec.ranks[(i + delta) % n], spec.bytes // n)
