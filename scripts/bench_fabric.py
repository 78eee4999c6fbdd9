#!/usr/bin/env python3
"""Benchmark of the fabric simulator (fabric/sim); figures for issue 17.

1. Packet-hops per second on the small fabric (12 devices): one packet through one
   device's pipeline (its ingress, the traffic manager, its egress) is one hop; the
   spray scenario's QP moves 8 MiB over 4 paths. The simulation phase is timed (not
   the set-up: servers, P4Runtime programming), best of 3 runs; CPU time is the
   simulation thread's. Then the same run split over the default number of
   processes (``--procs``, the machine's cores; fabric.sim.partition), per
   wall-second. Goal (quiet 2-core machine): >= 60,000 hops/s in one process,
   >= 90,000 in the default number of processes.
2. CPU microseconds per hop at 12, 48, 120 and 250 devices (generated 2-plane Clos
   fabrics), every other NIC writing the same number of bytes to a NIC on the next T0
   (the same offered load per NIC). Goal: at 250 devices within 1.25x of 12. As the
   shapes grow, a T0 has more senders per uplink (its uplinks offered 0.5, 1, 1.5
   and 2.2 times their rate), so the larger runs also queue, mark and reorder more.
   Each size therefore runs a second time with fewer senders, as many per T0 as
   half its uplinks (the 12-device run's load), which takes congestion out of the
   comparison; a third time with the 12-device run's two flows only, which takes
   the number of flows out too (what is left is what the devices themselves cost:
   docs/simulator-performance.md, "What grows is the load, not the size"); and once on
   ``--procs`` processes: its wall time and the speed-up. Every figure is the best
   of the same number of runs at every size, as one slow run would skew the ratio.
3. The two programs in-process, per CPU-second: the NIC's transmit and receive paths
   and the switch forwarding (scripts/bench_model.py (d), (d'), (e)). Goal: NIC
   transmit and receive >= 80,000 packets/s each.
4. Machine instructions per hop on the small fabric (the spray scenario at 1 MiB),
   counted by valgrind's callgrind in the simulation only: the same figure on any
   machine under any load (to a fraction of a percent), where the CPU times above move
   by 10-20 % from run to run on a shared machine; so two versions of the code compare
   exactly. About 90 s; not with ``--quick`` unless ``--only instructions`` asks.

CPU time is the measure to trust on a shared machine: other jobs stretch the wall
clock, not the CPU time of the simulation thread. Every figure is printed whatever it
is; nothing fails on a slow machine. ``--profile`` adds a cProfile summary of the
small-fabric run: where its CPU time goes by part (pipelines, traffic manager,
simulator, hosts, controller) and the top functions.

    .venv/bin/python scripts/bench_fabric.py [--quick] [--profile] [--procs N]
                                             [--only small|scaling|pipelines|instructions]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_model  # noqa: E402

from behavioral_model.pipeline import native  # noqa: E402
from fabric.runner import RunResult, run_scenario  # noqa: E402
from fabric.scenario import (  # noqa: E402
    Scenario,
    ScenarioError,
    TransportSpec,
    Workload,
    load_scenario,
)
from fabric.sim.events import EventLoop, uses_c_queue  # noqa: E402
from fabric.sim.partition import default_procs  # noqa: E402

GOAL_HOPS = 60_000
GOAL_HOPS_PARALLEL = 90_000
GOAL_FLATNESS = 1.25  # CPU per hop at the largest fabric over the smallest
REPEAT = 3  # runs per measurement; the best one counts
SET_UP_ATTEMPTS = 3  # tries at programming a large fabric on a loaded machine
# devices: (T1 per plane, T0 per plane, NICs per T0) on 2 planes; devices are
# 2 * (T1 + T0) switches plus T0 * NICs-per-T0 NICs
SHAPES = {12: (2, 2, 2), 48: (4, 4, 8), 120: (4, 8, 12), 250: (5, 10, 22)}
QUICK_SHAPES = (12, 48)
# (4): the spray scenario at 1 MiB, about 6,000 hops (about 90 s under valgrind)
COUNTED_SCALE = 0.5
# what callgrind counts: the C event queue's loop, which makes every call of a run's
# simulation and nothing of its set-up (fabric/sim/_eventq.c)
COUNTED_FUNCTION = "EventQueue_run_until"
COUNTED_RUN = "--counted-run"  # the run under valgrind (this script, called by itself)
COUNT_TIMEOUT_S = 1800.0


def clos_topology(t1: int, t0: int, nics_per_t0: int) -> tuple[str, list[str]]:
    """A generated Clos topology with a QP from every even NIC n to NIC
    n + nics_per_t0 (the same place on the next T0); the QPs' names."""
    nics = t0 * nics_per_t0
    qps = [f"  - {{name: q{n}, endpoints: [nic{n}, nic{(n + nics_per_t0) % nics}]}}"
           for n in range(0, nics, 2)]
    text = "\n".join([
        "name: bench", "defaults:", "  target: bm",
        f"  switch_program: {ROOT / 'p4src/srv6_switch.p4'}",
        f"  nic_program: {ROOT / 'p4src/mrc_nic.p4'}",
        "clos:", "  planes: 2", f"  t1_per_plane: {t1}", f"  t0_per_plane: {t0}",
        f"  nics_per_t0: {nics_per_t0}", '  p4runtime: "127.0.0.1:{port}"',
        "  port_base: 51000", "qp_defaults: {evs_per_plane: 2, backups_per_plane: 1}",
        "qps:", *qps, ""])
    return text, [f"q{n}" for n in range(0, nics, 2)]


def half_load_senders(t1: int, t0: int, nics_per_t0: int, qps: list[str]) -> list[str]:
    """The QPs of ``max(1, t1 // 2)`` senders on every T0 (its first even NICs): each
    T0's uplinks, ``t1`` per plane, are then offered at most half their rate, as in
    the 12-device shape where every other NIC sends."""
    per_t0 = min(max(1, t1 // 2), (nics_per_t0 + 1) // 2)
    chosen = {f"q{t * nics_per_t0 + 2 * j}" for t in range(t0) for j in range(per_t0)}
    return [q for q in qps if q in chosen]


def uplink_load(t1: int, t0: int, senders: int) -> float:
    """Per plane, what one T0's senders offer its uplinks, in uplink rates (a sender
    fills its port to each plane)."""
    return senders / t0 / t1


def rate(run: RunResult) -> tuple[float, float]:
    return run.packet_hops / run.sim_wall_s, run.packet_hops / run.sim_cpu_s


def us_per_hop(run: RunResult) -> float:
    """CPU microseconds per hop of ``run``'s simulation."""
    return run.sim_cpu_s / run.packet_hops * 1e6


def bench_small(quick: bool, profile: bool, procs: int) -> None:
    scenario = load_scenario(ROOT / "fabric/scenarios/spray.yaml")
    scenario = scenario.scaled(0.5 if quick else 4.0)
    run_scenario(scenario.scaled(0.05), "mrc")  # warm up: compile, caches
    # the best of a few runs: the machine's other jobs only ever slow a run down
    run = min((run_scenario(scenario, "mrc") for _ in range(1 if quick else REPEAT)),
              key=lambda r: r.sim_cpu_s)
    per_wall, per_cpu = rate(run)
    met = "met" if per_cpu >= GOAL_HOPS else "NOT met"
    print(f"(1) small fabric (12 devices), spray {scenario.workloads[0].bytes >> 20} MiB, "
          f"one process: {run.packet_hops:,} packet-hops in {run.sim_cpu_s:.2f} CPU-s: "
          f"{per_cpu:,.0f} hops per CPU-second ({per_wall:,.0f} per wall-second)  "
          f"goal >= {GOAL_HOPS:,}: {met}")
    if profile:
        # a run of its own: the profiler slows every call, so it times nothing above
        profiler = cProfile.Profile()
        with _profiling(profiler):
            run_scenario(scenario, "mrc")
        print_profile(profiler)
    split = min((run_scenario(scenario, "mrc", procs=procs)
                 for _ in range(1 if quick else REPEAT)), key=lambda r: r.sim_wall_s)
    per_wall_split, _ = rate(split)
    met = "met" if per_wall_split >= GOAL_HOPS_PARALLEL else "NOT met"
    print(f"    default processes (--procs {procs}, ran on {split.sim_procs}): "
          f"{per_wall_split:,.0f} hops per wall-second, {per_wall_split / per_wall:.2f}x "
          f"one process's ({split.sim_cpu_s:.2f} CPU-s in all its processes, "
          f"{split.sim_wall_s:.2f} s wall)  goal >= {GOAL_HOPS_PARALLEL:,}: {met}")


@contextmanager
def _profiling(profiler: cProfile.Profile) -> Iterator[None]:
    """Profile only the simulation phase of the runs made inside (the discrete-event
    loop, ``EventLoop.run_window``), not their set-up (servers, P4Runtime)."""
    original = EventLoop.run_window

    def run_window(env: EventLoop, *args: Any) -> Any:
        profiler.enable()
        try:
            return original(env, *args)
        finally:
            profiler.disable()

    EventLoop.run_window = run_window  # type: ignore[method-assign]
    try:
        yield
    finally:
        EventLoop.run_window = original  # type: ignore[method-assign]


def bench_scaling(quick: bool, sizes: tuple[int, ...], procs: int) -> None:
    per_nic = 128 << 10 if quick else 256 << 10
    repeat = 1 if quick else REPEAT
    print(f"(2) CPU time per hop against devices, {per_nic >> 10} KiB per sending NIC "
          f"(one process, best of {repeat} at every size; 'half load': again with T1s/2 "
          f"senders per T0, the uplinks at most half loaded; '2 flows': again with the "
          f"12-device run's two senders only; the last two columns on --procs {procs}):")
    print(f"    {'devices':>7} {'senders':>7} {'hops':>9} {'wall s':>7} {'CPU s':>6} "
          f"{'hops/CPU-s':>10} {'CPU us/hop':>10}  intact {'load':>4}  half load: "
          f"{'senders':>7} {'load':>4} {'CPU us/hop':>10}  2 flows: {'CPU us/hop':>10}  "
          f"{'wall s':>7} {'speed-up':>8}")
    per_hop: dict[int, float] = {}
    per_hop_half: dict[int, float] = {}
    per_hop_two: dict[int, float] = {}

    def best(senders: list[str], path: Path, runs: int) -> RunResult:
        return min((_set_up_and_run(_clos_scenario(path, senders, per_nic))
                    for _ in range(runs)), key=lambda r: r.sim_cpu_s)

    with tempfile.TemporaryDirectory(prefix="bench-fabric-") as tmp:
        for devices in sizes:
            shape = SHAPES[devices]
            text, qps = clos_topology(*shape)
            path = Path(tmp) / f"clos{devices}.yaml"
            path.write_text(text)
            half = half_load_senders(*shape, qps)
            two = two_flow_senders(shape[2], qps)
            if devices == sizes[0]:
                # the first run of a process pays for warming up (code objects,
                # caches): one run more, not counted
                best(qps, path, 1)
            try:
                run = best(qps, path, repeat)
            except ScenarioError as err:
                first = str(err).splitlines()[0]
                print(f"    {devices:>7} {len(qps):>7}  not set up: {first[-120:]}")
                continue
            _, per_cpu = rate(run)
            per_hop[devices] = us_per_hop(run)
            line = (f"    {devices:>7} {len(qps):>7} {run.packet_hops:>9,} "
                    f"{run.sim_wall_s:>7.2f} {run.sim_cpu_s:>6.2f} {per_cpu:>10,.0f} "
                    f"{per_hop[devices]:>10.1f}  {'yes' if run.intact else 'NO':<6} "
                    f"{uplink_load(shape[0], shape[1], len(qps)):>4.1f}             ")
            try:
                # where every other NIC already loads the uplinks half, the run is the same
                calm = run if half == qps else best(half, path, repeat)
                per_hop_half[devices] = us_per_hop(calm)
                line += (f"{len(half):>7} {uplink_load(shape[0], shape[1], len(half)):>4.1f} "
                         f"{per_hop_half[devices]:>10.1f}"
                         + ("" if calm.intact else " (not intact)"))
                few = run if two == qps else best(two, path, repeat)
                per_hop_two[devices] = us_per_hop(few)
                line += f"           {per_hop_two[devices]:>10.1f}"
            except ScenarioError as err:
                line += f"not set up: {str(err).splitlines()[0][-60:]}"
            try:
                split = _set_up_and_run(_clos_scenario(path, qps, per_nic), procs)
                line += f"  {split.sim_wall_s:>7.2f} {run.sim_wall_s / split.sim_wall_s:>7.2f}x"
                if split.packet_hops != run.packet_hops:
                    line += " (a different run: a bug)"
            except ScenarioError as err:
                line += f"  not set up: {str(err).splitlines()[0][-80:]}"
            print(line)
    if len(per_hop) < 2:
        return
    largest, smallest = max(per_hop), min(per_hop)
    ratio = per_hop[largest] / per_hop[smallest]
    met = "met" if ratio <= GOAL_FLATNESS else "NOT met"
    print(f"    CPU per hop at {largest} devices / at {smallest}: {ratio:.2f}  "
          f"goal <= {GOAL_FLATNESS}" + (f": {met}" if largest == max(SHAPES) else
                                         " (at 250 devices; not run here)"))
    for name, figures, why in (
            ("at half load", per_hop_half, "congestion apart"),
            ("with 2 flows", per_hop_two, "the same flows in a larger fabric: what the "
                                          "devices alone cost")):
        if largest in figures and smallest in figures:
            print(f"    the same {name}: {figures[largest] / figures[smallest]:.2f} ({why})")


def two_flow_senders(nics_per_t0: int, qps: list[str]) -> list[str]:
    """The 12-device run's flows in any shape: the first NIC of the first two T0s
    sends (each to the same place on the next T0)."""
    return [q for q in ("q0", f"q{nics_per_t0}") if q in qps]


def _clos_scenario(topology: Path, senders: list[str], per_nic: int) -> Scenario:
    """``per_nic`` bytes on each QP of ``senders``; gap_threshold as in the congested
    scenarios: queueing reorders sprayed packets, and false loss reports would make
    this a congestion experiment."""
    return Scenario(name=topology.stem, topology=str(topology),
                    workloads=[Workload(qp=q, bytes=per_nic) for q in senders],
                    transport=TransportSpec(gap_threshold=48), baseline=False)


def _set_up_and_run(scenario: Scenario, procs: int = 1,
                    attempts: int = SET_UP_ATTEMPTS) -> RunResult:
    """One run; a loaded machine can keep some of a large fabric's P4Runtime servers
    (one per device, each with its gRPC threads) from answering the controller in
    time, so a run that could not be programmed is tried again, up to ``attempts``
    times (the last ScenarioError then propagates)."""
    for _ in range(attempts - 1):
        try:
            return run_scenario(scenario, "mrc", procs=procs)
        except ScenarioError as err:
            if "could not program" not in str(err):
                raise
    return run_scenario(scenario, "mrc", procs=procs)


def bench_pipelines(quick: bool) -> None:
    args = argparse.Namespace(seconds=1.0 if quick else 3.0,
                              packets=2000 if quick else None,
                              warmup=500 if quick else 2000, quick=quick, profile=False)
    tx, rx = bench_model.nic_rates(args)
    switch = bench_model.switch_rate(args)
    goal = bench_model.GOAL_NIC_PPS

    def met(r: bench_model.Rate) -> str:
        return "met" if r.cpu_pps >= goal else "NOT met"

    print(f"(3) pipelines in-process, packets per CPU-second: NIC transmit "
          f"{tx.cpu_pps:,.0f} ({met(tx)}), NIC receive {rx.cpu_pps:,.0f} ({met(rx)}), "
          f"goal >= {goal:,} each; switch forwarding {switch.cpu_pps:,.0f}")


def bench_instructions() -> None:
    """(4): this script's counted run under callgrind, instrumented from just before
    its simulation (``--instr-atstart=no``: the set-up runs about 4 times slower
    instead of 50)."""
    title = "(4) instructions per hop, small fabric (callgrind)"
    valgrind, control = shutil.which("valgrind"), shutil.which("callgrind_control")
    if valgrind is None or control is None:
        print(f"{title}: not counted: valgrind is not installed (apt-get install valgrind)")
        return
    if not uses_c_queue():
        print(f"{title}: not counted: needs the C event queue (fabric/sim/_eventq.c), "
              "which is not built or switched off here")
        return
    with tempfile.TemporaryDirectory(prefix="bench-fabric-") as tmp:
        out = Path(tmp) / "callgrind.out"
        try:
            done = subprocess.run(
                [valgrind, "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                 f"--toggle-collect={COUNTED_FUNCTION}", f"--callgrind-out-file={out}",
                 sys.executable, __file__, COUNTED_RUN],
                # a fixed string hash: dict and set layouts, and so the count, repeat
                env={**os.environ, "PYTHONHASHSEED": "0"},
                capture_output=True, text=True, timeout=COUNT_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            print(f"{title}: not counted: no answer in {COUNT_TIMEOUT_S:.0f} s")
            return
        hops = next((int(line.split()[1]) for line in done.stdout.splitlines()
                     if line.startswith("hops ")), 0)
        total = _callgrind_total(out) if out.exists() else 0
        if done.returncode != 0 or not hops or not total:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"{title}: not counted: the run under valgrind failed ({last[-160:]})")
            return
    print(f"{title}: {total / hops:,.0f} per hop ({total:,} in {hops:,} hops of the "
          f"spray scenario at {COUNTED_SCALE * 2:g} MiB)")


def _callgrind_total(path: Path) -> int:
    """The event total of a callgrind output file (its ``totals:`` or ``summary:``
    line: instructions, the only event collected)."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    return 0


def counted_run() -> int:
    """What (4) counts, run under callgrind: a warm-up, then instrumentation on for
    the counted run (``callgrind_control`` answers once it is on)."""
    scenario = load_scenario(ROOT / "fabric/scenarios/spray.yaml").scaled(COUNTED_SCALE)
    run_scenario(scenario.scaled(0.1), "mrc")
    control = shutil.which("callgrind_control")
    assert control is not None
    subprocess.run([control, "--instr=on", str(os.getpid())], capture_output=True,
                   check=True, timeout=COUNT_TIMEOUT_S)
    run = run_scenario(scenario, "mrc")
    print(f"hops {run.packet_hops}")
    return 0


# Parts of a run by where a function lives (first match wins).
PARTS = (("pipelines", ("<p4 ", "behavioral_model/pipeline/", "behavioral_model/runtime/")),
         ("traffic manager", ("behavioral_model/tm.py",)),
         ("simulator", ("fabric/sim/",)),
         ("hosts", ("host/",)),
         ("controller, P4Runtime", ("controller/", "p4rt_client/", "behavioral_model/p4runtime/",
                                    "grpc/", "fabric/control.py", "threading.py")),
         ("metrics, scenario", ("fabric/",)))


def print_profile(profiler: cProfile.Profile) -> None:
    """Where the profiled runs' time went, by part, then the top functions."""
    stats = pstats.Stats(profiler)
    parts: dict[str, float] = {}
    total = 0.0
    for (path, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        total += own
        part = next((name for name, marks in PARTS if any(m in path for m in marks)),
                    "other (builtins: struct, int, dict, list)")
        parts[part] = parts.get(part, 0.0) + own
    print("    profile of the simulation (cProfile, own time by part; the profiler "
          "slows every call alike):")
    for part, own in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"      {part:<24} {100 * own / total:5.1f} %")
    stats.sort_stats("tottime").print_stats(20)


def _sizes(text: str) -> tuple[int, ...]:
    """``--sizes``: device counts of SHAPES, comma-separated."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or any(size not in SHAPES for size in sizes):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give device counts from {', '.join(map(str, SHAPES))}, "
            "comma-separated")
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Packet-hops per second and CPU per hop of the fabric simulator, "
                    "and the NIC and switch pipelines in-process (issue 17's figures).")
    parser.add_argument("--quick", action="store_true",
                        help="smaller runs (a smoke test): one run each, 12 and 48 devices "
                             "unless --sizes says otherwise")
    parser.add_argument("--profile", action="store_true",
                        help="also print a cProfile summary of the small-fabric run")
    parser.add_argument("--sizes", type=_sizes, default=None, metavar="N,N,...",
                        help="fabric sizes (devices) of the CPU-per-hop figure, from "
                             f"{', '.join(map(str, SHAPES))} (default: all of them; "
                             f"{', '.join(map(str, QUICK_SHAPES))} with --quick); 250 "
                             "needs about 5 GB of memory")
    parser.add_argument("--procs", type=int, default=default_procs(), metavar="N",
                        help="processes of the split runs (default: the machine's "
                             f"cores, {default_procs()})")
    parser.add_argument("--only", choices=("small", "scaling", "pipelines", "instructions"),
                        help="print only this figure: (1) small, (2) scaling, "
                             "(3) pipelines or (4) instructions")
    parser.add_argument(COUNTED_RUN, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.counted_run:
        return counted_run()
    sizes = args.sizes or (QUICK_SHAPES if args.quick else tuple(SHAPES))
    print(f"bench_fabric: {bench_model.interpreter()}, {os.cpu_count()} cores, "
          f"{native.describe()}" + (", quick run" if args.quick else ""))
    if args.only in (None, "small"):
        bench_small(args.quick, args.profile, args.procs)
    if args.only in (None, "scaling"):
        bench_scaling(args.quick, sizes, args.procs)
    if args.only in (None, "pipelines"):
        bench_pipelines(args.quick)
    if args.only == "instructions" or (args.only is None and not args.quick):
        bench_instructions()
    return 0


if __name__ == "__main__":
    sys.exit(main())
