"""``mrc-ctl watch TOPO``: the controller running: every device kept programmed
(restarts noticed and re-programmed), NIC EV events answered with top-ups and probes,
and a live health table."""

from __future__ import annotations

import argparse
import signal
import threading
import time
from types import FrameType

from rich.console import Console, Group
from rich.live import Live

from controller.health import FabricHealth, read_health
from controller.metrics import ControllerCollector, MetricsError, add_metrics_options, serve_metrics
from controller.plan import make_plan
from controller.react import LinkState, Reactor
from controller.topology import load_topology

from .device_options import add_device_options, event_log, tls_of
from .errors import EXIT_DEVICE_FAILURE, EXIT_OK, BadInput
from .health_view import event_lines, health_view, recovery_table
from .render import terminal_console

LATEST_EVENTS = 8
# Short: a device that is down is tried again with backoff, and Ctrl-C waits for it.
RECONNECT_TIMEOUT_S = 2.0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch", help="run the controller: keep devices programmed, react, show health",
        description="Run the controller until Ctrl-C: keep a session with every device "
                    "of TOPO (a device that restarts is reconnected with backoff and "
                    "re-programmed: pipeline, plan and top-ups; a device held by another "
                    "primary is reported, not taken over), answer each NIC EV event (a "
                    "retired EV: top up that QP's backups of its plane and probe the EV "
                    "until the NIC restores it), and show a health table refreshed every "
                    "--interval seconds. Events go to the log (--json-log for JSON "
                    "lines). With --metrics-port N it also serves the fabric's health at "
                    "http://127.0.0.1:N/metrics for Prometheus (docs/metrics.md). With "
                    "--once: wait until every device has been programmed (or --timeout), "
                    "print the table once and exit: 0 if every device is up, else 1.")
    add_device_options(parser, connect_timeout=RECONNECT_TIMEOUT_S)
    parser.add_argument("--interval", type=float, default=1.0, metavar="S",
                        help="seconds between health readings (default %(default)s)")
    parser.add_argument("--once", action="store_true",
                        help="program the fabric, print the health once and exit")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="with --once: how long to wait for the devices "
                             "(default %(default)s)")
    add_metrics_options(parser, "the devices', planes', links' and QP ends' health and "
                                "the controller's events")
    parser.set_defaults(run=run)


def _view(reactor: Reactor, health: FabricHealth) -> Group:
    topped_up = {(nic, q): sum(planes.values())
                 for nic in reactor.links for q, planes in reactor.book.of(nic).items()}
    latest = list(reactor.log.recent)[-LATEST_EVENTS:]
    return health_view(health, reactor.device_states(), topped_up,
                       (recovery_table(list(reactor.recoveries)[-LATEST_EVENTS:]),
                        event_lines(latest)))


def _all_settled(reactor: Reactor) -> bool:
    return all(s.state is not LinkState.CONNECTING for s in reactor.supervisors.values())


def run(args: argparse.Namespace) -> int:
    if args.once and args.metrics_port is not None:
        raise BadInput("--metrics-port: not with --once (nothing would stay to be scraped)")
    plan = make_plan(load_topology(args.topology))
    log = event_log(args)
    reactor = Reactor(plan, log, election_id=args.election_id, tls=tls_of(args),
                      connect_timeout=args.connect_timeout)
    console = terminal_console()
    try:
        metrics = serve_metrics(args, [ControllerCollector(reactor)])
    except MetricsError as error:
        raise BadInput(str(error)) from None
    reactor.start()
    try:
        if args.once:
            return _once(reactor, args.timeout, console)
        _stop_on_sigterm(reactor.stop)
        links = list(reactor.links.values())
        with Live(console=console, auto_refresh=False, transient=False) as live:
            def refresh() -> None:
                live.update(_view(reactor, read_health(plan, links)), refresh=True)
            reactor.run(on_tick=refresh, tick_s=args.interval)
        return EXIT_OK
    finally:
        if metrics is not None:
            metrics.close()
        reactor.close()


def _once(reactor: Reactor, timeout: float, console: Console) -> int:
    deadline = time.monotonic() + timeout
    while not _all_settled(reactor) and time.monotonic() < deadline:
        reactor.stop.wait(0.1)
    health = read_health(reactor.plan, reactor.links.values())
    console.print(_view(reactor, health))
    up = all(s.state is LinkState.UP for s in reactor.supervisors.values())
    return EXIT_OK if up else EXIT_DEVICE_FAILURE


def _stop_on_sigterm(stop: threading.Event) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()
    signal.signal(signal.SIGTERM, handler)
