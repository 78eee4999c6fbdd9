"""``python -m fabric.procs run SCENARIO``: a scenario of ``fabric/scenarios`` on a
fabric of processes brought up for it (and removed after), judged by the simulator's
outcome checks; prints the outcome. Exit codes: 0 every check passed, 1 a check failed
or the fabric failed, 2 bad input."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.metrics import (
    ControllerCollector,
    MetricsError,
    MetricsServer,
    add_metrics_options,
    serve_metrics,
)
from controller.react import Reactor
from controller.topology import Role
from fabric.cli import resolve
from fabric.figures import RETIRING, run_figures
from fabric.outcomes import outcome
from fabric.scenario import ScenarioError, load_scenario

from .metrics import fabric_collector
from .pcaps import add_pcap_option, with_pcaps
from .process_fabric import ProcessFabric
from .scenario_run import (
    DEFAULT_SCHEDULING_ALLOWANCE_S,
    DEFAULT_TIME_SCALE,
    OnFabric,
    ProcsRun,
    ProcsRunError,
    run_procs_scenario,
    with_topology,
)
from .targets import TARGETS
from .wiring import WIRINGS, WiringError, fabric_setup

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SHOWN_EV_EVENTS = 8


def add_parser(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser(
        "run", help="run a scenario on a fabric of processes",
        description="Bring a fabric up for SCENARIO (its topology, or --topology), let "
                    "the controller program it over gRPC, write the scenario's workloads "
                    "from host/ endpoints on the NICs' host ports on the wall clock, "
                    "inject its link failures, print the outcome (transfer intact, "
                    "per-path shares, for a link failure the packets lost and the time "
                    "to the EV's retirement) and bring the fabric down. Times in the "
                    "scenario are multiplied by --time-scale. WORKDIR keeps the devices' "
                    "logs and controller.log. With --metrics-port N the controller's and "
                    "the fabric's metrics are served at http://127.0.0.1:N/metrics "
                    "while it runs (docs/metrics.md). Exit 0 if every check passed, 1 if "
                    "one failed or the fabric did, 2 for bad input.")
    run.add_argument("scenario", metavar="SCENARIO",
                     help="scenario file, or the name of one in fabric/scenarios (spray, "
                          "link-failure)")
    run.add_argument("--topology", metavar="FILE", help="run on this topology instead")
    run.add_argument("--wiring", choices=WIRINGS, default="nn",
                     help="nn (patch panel, no root; default) or veth (root)")
    run.add_argument("--target", choices=TARGETS,
                     help="bm or bmv2 for every device (default: the topology's)")
    add_pcap_option(run)
    run.add_argument("--time-scale", type=float, default=DEFAULT_TIME_SCALE, metavar="X",
                     help="wall-clock time per unit of scenario time (default "
                          "%(default)g: 300 us in the file is 0.3 s)")
    run.add_argument("--scheduling-allowance", type=float,
                     default=DEFAULT_SCHEDULING_ALLOWANCE_S, metavar="S",
                     help="how long a device process may wait for a core (default "
                          "%(default)g s): a missing packet is taken for lost only when "
                          "one sent this much later has arrived, and the checks' time "
                          "bounds grow by twice as much (docs/procs.md); more on a "
                          "busier machine")
    run.add_argument("--timeout", type=float, default=300.0, metavar="S",
                     help="give up on the workloads after S seconds (default %(default)g)")
    run.add_argument("--workdir", type=Path,
                     help="the devices' logs and controller.log (default: a new folder "
                          "in $TMPDIR)")
    run.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_metrics_options(run, "the controller's and the fabric's health while it runs")


def run(args: argparse.Namespace) -> int:
    try:
        scenario = with_topology(load_scenario(resolve(args.scenario)), args.topology)
        if args.time_scale <= 0 or args.timeout <= 0:
            raise ScenarioError("--time-scale and --timeout must be above 0")
        if not 0 <= args.scheduling_allowance < args.timeout:
            raise ScenarioError("--scheduling-allowance must be at least 0 and below "
                                "--timeout")
    except ScenarioError as error:
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_USAGE
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="mrc-run-"))).resolve()
    try:
        setup = with_pcaps(fabric_setup(scenario.topology_path(), workdir, args.wiring,
                                        args.target), args.pcap)
    except WiringError as error:
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        metrics = serve_metrics(args, [])
    except MetricsError as error:
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_USAGE
    workdir.mkdir(parents=True, exist_ok=True)
    # SIGTERM stops the run as Ctrl-C does: the fabric is removed on the way out. SIGINT
    # is set too: a run started from a background job (nohup, a CI runner's shell)
    # inherits SIGINT ignored, and `kill -INT` must still remove its fabric.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)
    try:
        done = run_procs_scenario(scenario, setup, workdir, time_scale=args.time_scale,
                                  timeout_s=args.timeout,
                                  scheduling_allowance_s=args.scheduling_allowance,
                                  progress=None if args.json else _progress,
                                  on_fabric=_collected_by(metrics))
    except ScenarioError as error:
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ProcsRunError as error:
        print(f"fabric.procs: {error} (logs in {workdir})", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("fabric.procs: interrupted; the fabric is down", file=sys.stderr)
        return EXIT_FAILED
    finally:
        if metrics is not None:
            metrics.close()
    report = procs_outcome(done, args.wiring, setup_target(setup))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_outcome(report)
    return EXIT_OK if report["passed"] else EXIT_FAILED


def _collected_by(metrics: MetricsServer | None) -> OnFabric | None:
    """The run's hook that has ``metrics`` serve its controller and its fabric."""
    if metrics is None:
        return None
    _progress(f"metrics at {metrics.url}")

    def register(fabric: ProcessFabric, reactor: Reactor) -> None:
        metrics.registry.register(ControllerCollector(reactor))
        metrics.registry.register(fabric_collector(fabric))
    return register


def _progress(text: str) -> None:
    print(f"... {text}", file=sys.stderr, flush=True)


def setup_target(setup: Any) -> str:
    targets = sorted({d.target for d in setup.layout.devices})
    return "+".join(targets)


def procs_outcome(done: ProcsRun, wiring: str, target: str) -> dict[str, Any]:
    """The simulator's outcome of the run, with what the procs mode adds."""
    result = outcome(done.scenario, {"mrc": done.result}, done.plan)
    figures = run_figures(done.result, done.plan)
    if any(f.action == "down" for f in done.scenario.failures):
        result["figures"]["failed_path_retired_after_us"] = failed_path_retirement(done)
    return {"scenario": done.scenario.name, "wiring": wiring,
            "target": target, "workdir": str(done.workdir), "seconds": round(done.seconds, 1),
            "ev_event_count": len(done.result.metrics.ev_events),
            "transfer_seconds": round(done.result.end_us / 1e6, 3),
            "retransmits": figures["retransmits"], "packets_lost": figures["packets_lost"],
            "qp_stats": done.result.qp_stats, "links": done.links.get("links", []),
            "ev_packets": figures["ev_packets"], "ev_events": figures["ev_events"], **result}


def failed_path_retirement(done: ProcsRun) -> float | None:
    """Microseconds from the failure to the first retirement of an EV through the
    failed T0-T1 cable (None: none, or the cable is not one): on a loaded machine the
    OS reorders packets between paths enough that the host also retires EVs of paths
    that work, and the first retirement after the failure may be one of those."""
    down = next((f for f in done.result.failures if f["action"] == "down"), None)
    if down is None:
        return None
    device, _, port = str(down["target"]).rpartition(":")
    plan = done.plan
    if plan.fabric.switch(device) is None:
        return None
    link = next((k for k in plan.fabric.switch_links(device) if k.port == int(port)), None)
    if link is None:
        return None
    t1 = device if plan.role_of(device) is Role.T1 else link.peer
    if plan.role_of(t1) is not Role.T1:
        return None
    usid = plan.usids.node(t1)
    times = [e.time_us for e in done.result.metrics.ev_events
             if e.reason in RETIRING and e.time_us >= down["at_us"] and e.old_ev >> 16 == usid]
    return round(min(times) - down["at_us"], 1) if times else None


def print_outcome(report: dict[str, Any]) -> None:
    print(f"scenario {report['scenario']} on processes: "
          f"{report['wiring']} wiring, {report['target']} target; transfer "
          f"{report['transfer_seconds']} s, {report['seconds']} s in all")
    for qp, paths in report["ev_packets"].items():
        total = sum(paths.values()) or 1
        shares = ", ".join(f"{ev} {count} ({count / total:.1%})"
                           for ev, count in paths.items())
        print(f"  {qp} packets per path: {shares}")
    figures = report["figures"]
    if "failed_link" in figures:
        retired = figures.get("ev_retired_after_us")
        print(f"  link {figures.get('failed_link')} down at "
              f"{figures.get('failure_at_us', 0) / 1e6:.3f} s: packets lost "
              f"{figures.get('packets_lost')}, first EV retired "
              + (f"{retired / 1e3:.1f} ms after" if retired is not None else "never"))
        through = figures.get("failed_path_retired_after_us")
        print("  first EV through the failed link retired "
              + (f"{through / 1e3:.1f} ms after" if through is not None else "never"))
    print(f"  retransmits {report['retransmits']}")
    events = report["ev_events"]
    for event in events[:SHOWN_EV_EVENTS]:
        print(f"  EV event at {event['time_us'] / 1e6:.3f} s: {event['nic']} {event['qp']} "
              f"slot {event['slot']} {event['old']} -> {event['new']} ({event['reason']})")
    if report["ev_event_count"] > len(events[:SHOWN_EV_EVENTS]):
        print(f"  ... {report['ev_event_count']} EV events in all (every one in "
              f"{report['workdir']}/controller.log)")
    for result in report["checks"]:
        print(f"  [{'ok' if result['ok'] else 'FAILED'}] {result['check']}: "
              f"{result['detail']}")
    print("passed" if report["passed"] else "FAILED")
