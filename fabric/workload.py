"""How a scenario's workloads become open QPs, receive regions and posted writes on
the hosts' endpoints: the same for the simulated fabric (``fabric.runner``) and the
process fabric (``fabric.procs.scenario_run``), which differ only in where the
endpoints live and how time runs.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from zlib import crc32

from controller.plan import FabricPlan
from host import Endpoint, MemoryRegion
from host.completions import WriteHandle

from .payload import random_bytes


@dataclass
class WriteRecord:
    qp: str
    sender: str
    bytes: int
    posted_us: float
    completed_us: float | None = None
    ok: bool = False


def open_qps(plan: FabricPlan, loads: list[Any],
             endpoints: Mapping[str, Endpoint]) -> dict[tuple[str, str], int]:
    """Open every QP end on its host; each receiver gets one region per QP, as large as
    ``loads`` write to it. Returns those sizes by (QP, receiving NIC)."""
    received: dict[tuple[str, str], int] = {}
    for load in loads:
        qp = plan.qp(load.qp)
        assert qp is not None
        dst = qp.ends[0 if load.reverse else 1]
        received[(load.qp, dst.nic)] = received.get((load.qp, dst.nic), 0) + load.bytes
    for qp in plan.fabric.qps:
        for side in (0, 1):
            local, remote = qp.ends[side], qp.ends[1 - side]
            peer = plan.fabric.nic(remote.nic)
            assert peer is not None
            endpoint = endpoints[local.nic]
            endpoint.open_qp(local.qpn, ipv6_text(peer.ipv6), remote_qpn=remote.qpn)
            size = received.get((qp.name, local.nic))
            if size:
                endpoint.register(MemoryRegion(0, size, rkey=rkey(qp.name)))
    return received


def post_writes(plan: FabricPlan, load: Any, endpoints: Mapping[str, Endpoint],
                rng: random.Random, expected: dict[tuple[str, str], bytearray],
                offsets: dict[tuple[str, str], int], now_us: float,
                completed: Callable[[WriteRecord, WriteHandle], None]) -> list[WriteRecord]:
    """Post ``load``'s messages (random bytes, the last one taking the remainder) one
    after the other into its receiver's region; ``expected`` gathers what each region
    should hold in the end, ``offsets`` where the next write goes."""
    qp = plan.qp(load.qp)
    assert qp is not None
    src, dst = (qp.ends[1], qp.ends[0]) if load.reverse else qp.ends
    key = (load.qp, dst.nic)
    sizes = [load.bytes // load.messages] * load.messages
    sizes[-1] += load.bytes - sum(sizes)
    records = []
    for size in sizes:
        data = random_bytes(rng, size)
        offset = offsets.get(key, 0)
        offsets[key] = offset + size
        expected.setdefault(key, bytearray()).extend(data)
        record = WriteRecord(load.qp, src.nic, size, now_us)
        records.append(record)
        handle = endpoints[src.nic].write(src.qpn, data, offset, rkey=rkey(load.qp))
        handle.add_done_callback(lambda h, r=record: completed(r, h))
    return records


def region(endpoint: Endpoint, qp: str) -> MemoryRegion:
    """The receive region ``open_qps`` registered for ``qp`` on ``endpoint``."""
    found = endpoint.memory.region(rkey(qp))
    assert found is not None
    return found


def rkey(qp: str) -> int:
    """The rkey of a QP's receive region on its hosts: any 32-bit value will do."""
    return crc32(qp.encode())


def ipv6_text(value: int) -> str:
    return str(ipaddress.IPv6Address(value))
