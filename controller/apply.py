"""``apply``: every device of a fabric programmed at once, each with only the difference
between what it holds and what the plan (plus the top-ups) wants."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from controller.device import (
    DeviceLink,
    DeviceTarget,
    PipelineCache,
    ReconcileError,
    WriteCounts,
)
from controller.device.encoding import State
from controller.device.link import CONNECT_TIMEOUT_S
from controller.events import EventLog
from controller.plan import FabricPlan
from controller.topology import Role
from controller.topups import TopUpBook, found_top_ups
from p4rt_client import (
    ElectionIdInUseError,
    NotPrimaryError,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
    TlsConfig,
)

# Below the election ids a person would pick for a second controller by hand, above
# p4runtime-shell's default (0, 1), so that `bm cli` sessions do not take over.
DEFAULT_ELECTION_ID = (0, 10)
MAX_WORKERS = 32  # devices programmed at once (each is mostly waiting on the network)


@dataclass
class DeviceOutcome:
    device: str
    ok: bool
    pushed: bool = False
    counts: WriteCounts = field(default_factory=WriteCounts)
    problem: str = ""  # "unreachable", "another-primary", "pipeline", "write"
    message: str = ""
    seconds: float = 0.0


def device_targets(plan: FabricPlan) -> list[DeviceTarget]:
    fabric = plan.fabric
    targets = [DeviceTarget(s.name, s.role, s.access) for s in fabric.switches()]
    targets += [DeviceTarget(n.name, Role.NIC, n.access) for n in fabric.nics()]
    return targets


def prepare_pipelines(targets: list[DeviceTarget], cache: PipelineCache) -> None:
    """Build every distinct pipeline now (PipelineError for a program that cannot be
    built), before any device is touched."""
    for target in targets:
        cache.get(target.access)


def desired_of(plan: FabricPlan, book: TopUpBook, link: DeviceLink
               ) -> Callable[[State], State]:
    """What the device must hold, given what it holds: the plan, and for a NIC the
    top-ups this controller made or found on it (``controller.topups``)."""
    name = link.name

    def desired(current: State) -> State:
        if link.target.role is not Role.NIC:
            return link.desired(plan.device_entities(name))
        book.merge(name, found_top_ups(plan, name, link.helper, current))
        return link.desired(plan.device_entities(name, book.of(name)))
    return desired


def program(link: DeviceLink, plan: FabricPlan, book: TopUpBook, log: EventLog
            ) -> tuple[bool, WriteCounts]:
    """Push the pipeline if needed, then reconcile; logs ``pushed`` and ``wrote`` or
    ``in-sync``. Raises what the device refused."""
    pushed = link.ensure_pipeline()
    if pushed:
        log.emit("pushed", device=link.name, pipeline=link.pipeline.origin)
    counts = link.reconcile(desired_of(plan, book, link))
    if counts.total:
        log.emit("wrote", device=link.name, entries=counts.total, inserted=counts.inserted,
                 modified=counts.modified, deleted=counts.deleted)
    else:
        log.emit("in-sync", device=link.name)
    return pushed, counts


def apply_device(link: DeviceLink, plan: FabricPlan, book: TopUpBook, log: EventLog,
                 connect_timeout: float = CONNECT_TIMEOUT_S) -> DeviceOutcome:
    """Connect, program, close; every failure becomes the outcome, never an exception."""
    start = time.monotonic()
    outcome = DeviceOutcome(link.name, ok=False)
    try:
        link.connect(connect_timeout)
        log.emit("connected", device=link.name, address=link.target.access.address)
        outcome.pushed, outcome.counts = program(link, plan, book, log)
        outcome.ok = True
    except NotPrimaryError as error:
        outcome.problem, outcome.message = "another-primary", str(error)
        log.emit("another-primary", device=link.name,
                 election_id=list(error.primary_election_id or ()), message=str(error))
    except ElectionIdInUseError as error:
        outcome.problem = "another-primary"
        outcome.message = f"{error} (is another mrc-ctl apply or watch running?)"
        log.emit("another-primary", device=link.name, message=outcome.message)
    except P4RuntimeSessionError as error:
        outcome.problem, outcome.message = "unreachable", str(error)
        log.emit("unreachable", device=link.name, message=str(error))
    except P4RuntimeWriteError as error:
        outcome.problem, outcome.message = "pipeline", error.summary()
        log.emit("apply-failed", device=link.name, message=error.summary())
    except ReconcileError as error:
        outcome.problem, outcome.message = "write", str(error)
        log.emit("apply-failed", device=link.name, message=str(error))
    finally:
        link.close()
        outcome.seconds = time.monotonic() - start
    return outcome


def apply_fabric(plan: FabricPlan, log: EventLog, *, book: TopUpBook | None = None,
                 election_id: tuple[int, int] = DEFAULT_ELECTION_ID,
                 tls: TlsConfig | None = None, pipelines: PipelineCache | None = None,
                 connect_timeout: float = CONNECT_TIMEOUT_S) -> list[DeviceOutcome]:
    """Program every device of ``plan`` concurrently; one outcome per device, in the
    plan's device order. PipelineError (before any device is touched) if a program
    cannot be built."""
    cache = pipelines or PipelineCache()
    targets = device_targets(plan)
    prepare_pipelines(targets, cache)
    book = book or TopUpBook()
    links = [DeviceLink(t, cache, election_id, tls) for t in targets]
    with ThreadPoolExecutor(max_workers=min(MAX_WORKERS, len(links) or 1)) as pool:
        return list(pool.map(
            lambda link: apply_device(link, plan, book, log, connect_timeout), links))
