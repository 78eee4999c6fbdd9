#!/usr/bin/env python3
"""Benchmark of the controller's plan (no devices).

For the production shape (controller/examples/production.yaml: 8 planes, 131,072 NICs):
  1. plan: read the topology, allocate uSIDs, size every device (entries per role and
     table): wall and CPU time, peak traced memory (tracemalloc) and entry counts;
  2. stream: build every entity of every device once, one device at a time, as an
     apply will: wall and CPU time, and the total checked against (1);
and the plan time of the small fabric (controller/examples/small.yaml), every entity
included. Peak RSS (getrusage) of the whole run is printed at the end. Goal for (1):
< 30 s and < 4 GiB.

With --apply, also ``apply`` on the small fabric run as 12 bm processes on loopback
(fabric.procs, free ports): the first apply (pipelines pushed, every entry written),
then reconciling an unchanged fabric (best of APPLY_ROUNDS; nothing written), and
reconciling after one NIC lost every entry (a restart without its pipeline) -- time,
pipelines pushed and entries written of each.

    .venv/bin/python scripts/bench_controller.py            # production shape
    .venv/bin/python scripts/bench_controller.py --quick    # 8 planes, 2,048 NICs
    .venv/bin/python scripts/bench_controller.py --topology FILE [--no-stream] [--json]
    .venv/bin/python scripts/bench_controller.py --quick --apply   # + apply figures
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from controller.apply import DEFAULT_ELECTION_ID, DeviceOutcome, apply_fabric  # noqa: E402
from controller.device import PipelineCache  # noqa: E402
from controller.events import EventLog  # noqa: E402
from controller.plan import FabricPlan, make_plan, summarize  # noqa: E402
from controller.topology import Fabric, load_topology, parse_topology  # noqa: E402
from fabric.procs import ProcessFabric, layout_from_topology  # noqa: E402
from fabric.procs.free_ports import move_to_free_ports  # noqa: E402
from p4rt_client import P4RuntimeSession  # noqa: E402

EXAMPLES = ROOT / "controller" / "examples"
GOAL_SECONDS = 30
GOAL_BYTES = 4 << 30
SMALL_ROUNDS = 20
APPLY_ROUNDS = 5

# --quick: the production file's parameters on a smaller Clos.
QUICK_SHAPE = {"planes": 8, "t1_per_plane": 16, "t0_per_plane": 32, "nics_per_t0": 64}


def quick_fabric() -> Fabric:
    document = yaml.safe_load((EXAMPLES / "production.yaml").read_text())
    document["clos"].update(QUICK_SHAPE)
    document["qps"] = [{"name": "ring-0", "endpoints": ["nic0", "nic64"]},
                       {"name": "ring-1", "endpoints": ["nic64", "nic2047"]}]
    return parse_topology(yaml.safe_dump(document), "production.yaml (--quick shape)")


def bench_plan(load: Any) -> tuple[FabricPlan, dict[str, Any]]:
    """Load, allocate and size: timed once plainly, then once more under tracemalloc for
    the peak memory (tracing slows allocation down several times)."""
    start, cpu = time.perf_counter(), time.process_time()
    plan = make_plan(load())
    summary = summarize(plan)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()
    summarize(make_plan(load()))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return plan, {
        "topology": os.path.relpath(summary.source, ROOT), "devices": summary.devices,
        "planes": summary.planes,
        "seconds": seconds, "cpu_seconds": cpu_seconds, "peak_traced_bytes": peak,
        "entries": summary.total,
        "roles": {str(r.role): {"devices": r.devices, "per_device_min": r.min_per_device,
                                "per_device_max": r.max_per_device, "entries": r.total}
                  for r in summary.roles},
        "goal_met": seconds < GOAL_SECONDS and peak < GOAL_BYTES,
    }


def bench_stream(plan: FabricPlan) -> dict[str, Any]:
    """Every entity of every device, one device at a time (not kept). CPU time is given
    too: on a shared machine the wall time depends on the neighbours."""
    start, cpu = time.perf_counter(), time.process_time()
    entities = 0
    devices = 0
    for device in plan.device_names():
        entities += len(plan.device_entities(device))
        devices += 1
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    return {"devices": devices, "entities": entities, "seconds": seconds,
            "cpu_seconds": cpu_seconds,
            "entities_per_cpu_second": entities / cpu_seconds if cpu_seconds else 0.0}


def bench_small() -> dict[str, Any]:
    """Plan of the small fabric, every entity built, best of SMALL_ROUNDS."""
    best = float("inf")
    entities = 0
    for _ in range(SMALL_ROUNDS):
        start = time.perf_counter()
        plan = make_plan(load_topology(EXAMPLES / "small.yaml"))
        entities = sum(len(plan.device_entities(d)) for d in plan.device_names())
        best = min(best, time.perf_counter() - start)
    return {"entities": entities, "seconds": best}


def _apply_round(plan: FabricPlan, cache: PipelineCache) -> dict[str, Any]:
    start, cpu = time.perf_counter(), time.process_time()
    outcomes: list[DeviceOutcome] = apply_fabric(plan, EventLog(out=None), pipelines=cache)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    failed = [f"{o.device}: {o.message}" for o in outcomes if not o.ok]
    if failed:
        raise RuntimeError("apply failed: " + "; ".join(failed))
    return {"seconds": seconds, "cpu_seconds": cpu_seconds,
            "pushed": sum(o.pushed for o in outcomes),
            "written": sum(o.counts.total for o in outcomes)}


def bench_apply() -> dict[str, Any]:
    """apply on small.yaml run as processes (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="bc-") as tmp:  # short: socket paths
        workdir = Path(tmp)
        text = move_to_free_ports((EXAMPLES / "small.yaml").read_text())
        topology = workdir / "small.yaml"
        topology.write_text(text)
        fabric = load_topology(topology)
        plan = make_plan(fabric)
        cache = PipelineCache()
        with ProcessFabric(layout_from_topology(fabric, workdir), workdir):
            first = _apply_round(plan, cache)  # the pipelines are built in here too
            rounds = [_apply_round(plan, cache) for _ in range(APPLY_ROUNDS)]
            unchanged = min(rounds, key=lambda r: r["seconds"])
            unchanged["written"] = max(r["written"] for r in rounds)
            nic = fabric.nic("nic1")
            assert nic is not None
            _forget_pipeline(nic.access.address, nic.access.device_id, cache, fabric)
            after_loss = _apply_round(plan, cache)
    return {"topology": "small.yaml", "devices": fabric.switch_count + fabric.nic_count,
            "first": first, "unchanged": unchanged, "one_nic_lost": after_loss}


def _forget_pipeline(address: str, device_id: int, cache: PipelineCache,
                     fabric: Fabric) -> None:
    """Push the NIC program again with another cookie: the device drops every entry,
    as after a restart, and the next apply finds a pipeline that is not ours."""
    nic = fabric.nic("nic1")
    assert nic is not None
    pipeline = cache.get(nic.access)
    # The controller's own election id: a higher one would be remembered by the server
    # and leave the next apply a backup.
    with P4RuntimeSession(address, device_id, election_id=DEFAULT_ELECTION_ID) as session:
        session.connect()
        session.set_pipeline(pipeline.p4info, pipeline.device_config, cookie=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"a smaller Clos instead of the production shape: {QUICK_SHAPE}")
    parser.add_argument("--topology", type=Path, help="plan this topology file instead")
    parser.add_argument("--no-stream", action="store_true",
                        help="skip building every entity of every device")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--apply", action="store_true",
                        help="also time apply on the small fabric run as 12 processes")
    args = parser.parse_args(argv)

    if args.topology:
        def load() -> Fabric:
            return load_topology(args.topology)
    elif args.quick:
        load = quick_fabric
    else:
        def load() -> Fabric:
            return load_topology(EXAMPLES / "production.yaml")

    plan, planned = bench_plan(load)
    streamed = None if args.no_stream else bench_stream(plan)
    if streamed is not None and streamed["entities"] != planned["entries"]:
        print(f"bench_controller: the summary counts {planned['entries']:,} entries, "
              f"building every device gives {streamed['entities']:,}", file=sys.stderr)
        return 1
    small = bench_small()
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    applied = bench_apply() if args.apply else None
    figures = {"plan": planned, "stream": streamed, "small": small, "apply": applied,
               "peak_rss_bytes": peak_rss}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_figures(figures)
    return 0


def print_figures(figures: dict[str, Any]) -> None:
    planned, streamed, small = figures["plan"], figures["stream"], figures["small"]
    print(f"plan of {planned['topology']}: {planned['devices']:,} devices on "
          f"{planned['planes']} planes")
    print(f"  time {planned['seconds']:.2f} s (CPU {planned['cpu_seconds']:.2f} s), peak "
          "traced memory "
          f"{planned['peak_traced_bytes'] / 2**20:.1f} MiB "
          f"(goal < {GOAL_SECONDS} s, < 4 GiB: {'met' if planned['goal_met'] else 'NOT met'})")
    for role, size in planned["roles"].items():
        span = (f"{size['per_device_min']:,}" if size["per_device_min"] == size["per_device_max"]
                else f"{size['per_device_min']:,}-{size['per_device_max']:,}")
        print(f"  {role:4} {size['devices']:>9,} devices x {span:>9} entries = "
              f"{size['entries']:>12,}")
    print(f"  total {planned['entries']:,} entries")
    if streamed is not None:
        print(f"every entity built once, device by device: {streamed['entities']:,} in "
              f"{streamed['seconds']:.1f} s (CPU {streamed['cpu_seconds']:.1f} s, "
              f"{streamed['entities_per_cpu_second']:,.0f}/CPU s), same total as the plan")
    print(f"small fabric (small.yaml): plan with all {small['entities']} entities in "
          f"{small['seconds'] * 1000:.1f} ms (best of {SMALL_ROUNDS})")
    applied = figures["apply"]
    if applied is not None:
        print(f"apply on {applied['topology']} as {applied['devices']} bm processes:")
        for key, what in (("first", "first apply"),
                          ("unchanged", f"unchanged (best of {APPLY_ROUNDS})"),
                          ("one_nic_lost", "after one NIC lost its pipeline")):
            r = applied[key]
            print(f"  {what:<34} {r['seconds']:6.2f} s (controller CPU "
                  f"{r['cpu_seconds']:.2f} s), {r['pushed']} pipelines pushed, "
                  f"{r['written']} entries written")
    print(f"peak RSS of the run: {figures['peak_rss_bytes'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
