"""``mrc-ctl status TOPO``: one reading of every device, without taking part in the
election (reads need no arbitration, so a running ``watch`` stays primary)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor

from controller.apply import MAX_WORKERS, desired_of, device_targets, prepare_pipelines
from controller.device import DeviceLink, PipelineCache, ReconcileError
from controller.device.reconcile import mismatches
from controller.health import DeviceHealth, FabricHealth, read_health
from controller.plan import FabricPlan, make_plan
from controller.topology import load_topology
from controller.topups import TopUpBook
from p4rt_client import P4RuntimeSessionError, P4RuntimeWriteError

from .device_options import add_device_options, tls_of
from .errors import EXIT_DEVICE_FAILURE, EXIT_OK
from .health_view import health_view
from .render import terminal_console

IN_SYNC = "in sync"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "status", help="one reading of every device: pipeline, entries, counters",
        description="Read every device of TOPO once, as an observer (no stream, no "
                    "election: a running controller stays primary): whether it answers, "
                    "runs the planned pipeline and holds the planned entries (top-ups "
                    "found on NICs included), and its counters as per-device, per-plane, "
                    "per-QP and per-link health. Exit 0 when every device is in sync, 1 "
                    "otherwise, 2 for bad input.")
    add_device_options(parser, elects=False)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def verdict(link: DeviceLink, plan: FabricPlan, book: TopUpBook, timeout: float) -> str:
    """``in sync``, or what is wrong with the device."""
    try:
        link.open_observer(timeout)
        if not link.pipeline_current():
            return "not our pipeline"
        current, digest_readable = link.read_owned()
        desired = desired_of(plan, book, link)(current)
        if not digest_readable:
            desired = {key: held for key, held in desired.items() if key[0] != "digest"}
        problems = mismatches(link.helper, desired, current)
    except P4RuntimeSessionError:
        return "unreachable"
    except P4RuntimeWriteError as error:
        return f"read failed: {error.summary()}"
    except ReconcileError as error:
        return str(error)
    return IN_SYNC if not problems else f"{len(problems)} entries differ ({problems[0]})"


def run(args: argparse.Namespace) -> int:
    plan = make_plan(load_topology(args.topology))
    cache = PipelineCache()
    targets = device_targets(plan)
    prepare_pipelines(targets, cache)
    book = TopUpBook()
    links = [DeviceLink(t, cache, (0, 1), tls_of(args)) for t in targets]
    try:
        with ThreadPoolExecutor(max_workers=min(MAX_WORKERS, len(links) or 1)) as pool:
            verdicts = dict(zip((lk.name for lk in links),
                                pool.map(lambda lk: verdict(lk, plan, book, args.connect_timeout),
                                         links),
                                strict=True))
        readable = [lk for lk in links if verdicts[lk.name] != "unreachable"
                    and verdicts[lk.name] != "not our pipeline"]
        health = read_health(plan, readable)
    finally:
        for link in links:
            link.close()
    add_unread(health, links, verdicts)
    topped_up = {(nic, q): sum(planes.values())
                 for nic in verdicts for q, planes in book.of(nic).items()}
    if args.json:
        print(json.dumps({"devices": verdicts, "health": dataclasses.asdict(health)},
                         indent=2))
    else:
        terminal_console().print(health_view(health, verdicts, topped_up))
    return EXIT_OK if all(v == IN_SYNC for v in verdicts.values()) else EXIT_DEVICE_FAILURE


def add_unread(health: FabricHealth, links: list[DeviceLink], verdicts: dict[str, str]
               ) -> None:
    """Devices whose counters could not be read, in the plan's device order."""
    read = {d.device: d for d in health.devices}
    health.devices = [read.get(lk.name) or DeviceHealth(
        lk.name, lk.target.role, reachable=verdicts[lk.name] != "unreachable",
        error=verdicts[lk.name]) for lk in links]
