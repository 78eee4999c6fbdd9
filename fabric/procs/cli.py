"""``python -m fabric.procs``: bring a fabric of bm processes up from a topology file,
look at it, inject link failures, bring it down. Exit codes: 0 ok, 1 a process failed
(or no fabric runs), 2 bad input."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from controller.metrics import MetricsError, add_metrics_options, metrics_url, serve_metrics

from . import run_cmd
from .control import ControlError, request
from .layout import Endpoint
from .metrics import fabric_collector
from .netns import NetnsError
from .pcaps import add_pcap_option, with_pcaps
from .process_fabric import READY_TIMEOUT_S, DeviceFailure, ProcessFabric
from .state import (
    FAILED,
    STARTING,
    STOPPED,
    UP,
    FabricState,
    process_alive,
    read_state,
    state_path,
    write_state,
)
from .targets import TARGETS
from .veth_wiring import remove_wiring
from .wiring import WIRINGS, WiringError, fabric_setup

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SUPERVISOR_OUTPUT = "fabric.out"
DOWN_TIMEOUT_S = 30.0  # the supervisor stops devices within their grace period
SUPERVISION_PERIOD_S = 0.2  # how late a stop request or a device's exit is seen at most


class UsageError(Exception):
    """Bad input: printed as it is, exit code 2."""


def default_workdir() -> Path:
    return Path(tempfile.gettempdir()) / f"mrc-fabric-{os.getuid()}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m fabric.procs",
        description="A fabric of processes: one switch process per device of a "
                    "topology file (switches and NICs, started with --no-p4: the "
                    "controller pushes the programs), wired on loopback without root by "
                    "a patch panel between their nn sockets (with host sockets for host "
                    "software on every NIC), or by veth pairs (root). Exit codes: 0 ok, "
                    "1 a process failed or no fabric runs, 2 bad input.")
    workdir = argparse.ArgumentParser(add_help=False)
    workdir.add_argument("--workdir", type=Path, default=default_workdir(),
                         help="state file, sockets and logs (default: %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    up = commands.add_parser(
        "up", parents=[workdir], help="start a fabric from a topology file",
        description="Start one bm process per device of TOPO, wait until each answers "
                    "on gRPC, cable them with the patch panel, write WORKDIR/fabric.json "
                    "and print the devices. Without --foreground the fabric keeps "
                    "running in the background (stop it with 'down'); with it, until "
                    "Ctrl-C or SIGTERM. If any device process dies, everything stops "
                    "(exit 1). With --metrics-port N the fabric's devices and links are "
                    "served at http://127.0.0.1:N/metrics for Prometheus "
                    "(docs/metrics.md).")
    up.add_argument("topology", metavar="TOPO", help="topology file (controller format)")
    add_fabric_options(up)
    add_pcap_option(up)
    up.add_argument("--foreground", action="store_true",
                    help="run in this process until Ctrl-C or SIGTERM")
    up.add_argument("--seed", type=int, default=0,
                    help="seed of the links' loss streams (default 0)")
    up.add_argument("--log-level", default="info",
                    choices=["trace", "debug", "info", "warn", "error", "off"],
                    help="the devices' log level (default info; debug logs every packet)")
    up.add_argument("--timeout", type=float, default=READY_TIMEOUT_S,
                    help="seconds to wait for the devices to answer (default %(default)s)")
    up.add_argument("--notify-fd", type=int, help=argparse.SUPPRESS)
    add_metrics_options(up, "the fabric's devices and links (state, frames, drops)")

    commands.add_parser("down", parents=[workdir], help="stop the fabric",
                        description="Stop the fabric running in WORKDIR: its devices "
                                    "(SIGTERM, then SIGKILL) and its patch panel.")
    commands.add_parser("status", parents=[workdir], help="devices and links",
                        description="The fabric's devices (running or not) and its "
                                    "links with their state and counters. Exit 1 "
                                    "unless it is up with every device running.")
    link = commands.add_parser(
        "link", parents=[workdir], help="take a link down or up, or make it lossy",
        description="Failure injection on the link at DEV:PORT (a cable, or a NIC's "
                    "host port and its host socket): 'down', 'up', or 'loss P' (drop "
                    "each frame with probability P, 0 to 1, in each direction, from a "
                    "stream seeded by 'up --seed'). Without an action, show the link.")
    link.add_argument("port", metavar="DEV:PORT")
    link.add_argument("action", nargs="?", choices=["down", "up", "loss"])
    link.add_argument("probability", nargs="?", type=float, metavar="P")
    run_cmd.add_parser(commands)
    return parser


def add_fabric_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wiring", choices=WIRINGS, default="nn",
        help="nn: a patch panel between the devices' nn sockets, on loopback, no root "
             "(default); veth: a veth pair per link and per NIC host port, the hosts' "
             "ends in a network namespace mrcfab-ID (root; removed on down)")
    parser.add_argument(
        "--target", choices=TARGETS,
        help="run every device on bm (our switch) or bmv2 (simple_switch_grpc), whatever "
             "the topology says; the controller then pushes that target's pipeline")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = {"up": cmd_up, "down": cmd_down, "status": cmd_status, "link": cmd_link,
               "run": run_cmd.run}
    try:
        return command[args.command](args)
    except UsageError as error:
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_USAGE


# -- up ---------------------------------------------------------------------------------
def cmd_up(args: argparse.Namespace) -> int:
    workdir: Path = args.workdir.resolve()
    try:
        setup = with_pcaps(fabric_setup(args.topology, workdir, args.wiring, args.target),
                           args.pcap)
    except WiringError as error:
        raise UsageError(str(error)) from None
    layout = setup.layout
    state = read_state(workdir)
    if state is not None and state.status in (STARTING, UP) and \
            process_alive(state.supervisor_pid, "fabric.procs"):
        raise UsageError(f"a fabric already runs in {workdir} (pid {state.supervisor_pid});"
                         " stop it with 'down' or use another --workdir")
    workdir.mkdir(parents=True, exist_ok=True)
    if not args.foreground:
        return _up_in_background(args, workdir)

    fabric = ProcessFabric(layout, workdir, seed=args.seed, log_level=args.log_level,
                           topology=str(Path(args.topology).resolve()), veth=setup.veth)
    try:  # before the devices start: a port in use is reported with nothing to undo
        metrics = serve_metrics(args, [fabric_collector(fabric)])
    except MetricsError as error:
        raise UsageError(str(error)) from None
    try:
        return _run_in_foreground(args, fabric)
    finally:
        if metrics is not None:
            metrics.close()


def _run_in_foreground(args: argparse.Namespace, fabric: ProcessFabric) -> int:
    layout, workdir = fabric.layout, fabric.workdir
    # While starting, a stop request interrupts the start (which then stops what it
    # started); once up, it is handled by the supervision loop.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        fabric.start(args.timeout)
    except (DeviceFailure, OSError, NetnsError) as error:  # OSError: the control socket
        print(f"fabric.procs: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("fabric.procs: interrupted while starting; stopped", file=sys.stderr)
        return EXIT_OK
    stop_requested = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        # Only this event, which the main thread never locks (it reads is_set), and
        # not ``fabric.changed``: a handler runs in the main thread between two of its
        # bytecodes, maybe while it holds that event's lock inside ``wait`` or
        # ``clear``, and setting it then deadlocked a Ctrl-C now and then. The
        # supervision loop sees the flag within one wake-up period.
        stop_requested.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    state = read_state(workdir)
    assert state is not None
    print_devices(state)
    print(f"fabric {layout.name!r} is up ({len(layout.devices)} devices); "
          f"state: {state_path(workdir)}", flush=True)
    print_outputs(args)
    if args.notify_fd is not None:
        os.write(args.notify_fd, b"up\n")
        os.close(args.notify_fd)
    return _supervise(fabric, stop_requested)


def _supervise(fabric: ProcessFabric, stop_requested: threading.Event) -> int:
    """Wait for a stop request or a device failure; stop everything either way."""
    while True:
        # a device thread wakes it at once; a stop request or a child's exit (signals,
        # which cannot safely set the event) are seen within the period
        fabric.changed.wait(SUPERVISION_PERIOD_S)
        fabric.changed.clear()
        if stop_requested.is_set():
            fabric.stop()
            print("fabric.procs: stopped", flush=True)
            return EXIT_OK
        failure = fabric.failure
        if failure is not None:
            print(f"fabric.procs: {failure}; stopping the fabric", file=sys.stderr,
                  flush=True)
            fabric.stop(FAILED, failure)
            return EXIT_FAILED


def _up_in_background(args: argparse.Namespace, workdir: Path) -> int:
    """Run ``up --foreground`` as a detached process; return once it is up (0) or has
    failed (its exit code, with what it said)."""
    read_end, write_end = os.pipe()
    command = [sys.executable, "-m", "fabric.procs", "up", str(Path(args.topology).resolve()),
               "--foreground", "--workdir", str(workdir), "--seed", str(args.seed),
               "--log-level", args.log_level, "--timeout", str(args.timeout),
               "--notify-fd", str(write_end), "--wiring", args.wiring]
    if args.target is not None:
        command += ["--target", args.target]
    if args.metrics_port is not None:
        command += ["--metrics-port", str(args.metrics_port),
                    "--metrics-address", args.metrics_address]
    if args.pcap is not None:
        command += ["--pcap", str(args.pcap.resolve())]
    output = workdir / SUPERVISOR_OUTPUT
    with open(output, "wb") as out:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, pass_fds=(write_end,),
                                start_new_session=True)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as ready:
            said = ready.readline()  # "up", or nothing once the supervisor has exited
    except KeyboardInterrupt:
        proc.terminate()  # it stops whatever it has started
        proc.wait()
        print("fabric.procs: interrupted; nothing left running", file=sys.stderr)
        return EXIT_FAILED
    if said.strip() == b"up":
        state = read_state(workdir)
        assert state is not None
        print_devices(state)
        print(f"fabric {state.name!r} is up in the background (pid {proc.pid}); "
              f"stop it with: python -m fabric.procs down --workdir {workdir}")
        print_outputs(args)
        return EXIT_OK
    code = proc.wait()
    sys.stderr.write(output.read_text(errors="replace"))
    return code if code in (EXIT_FAILED, EXIT_USAGE) else EXIT_FAILED


# -- down -------------------------------------------------------------------------------
def cmd_down(args: argparse.Namespace) -> int:
    workdir: Path = args.workdir.resolve()
    state = read_state(workdir)
    if state is None:
        print(f"no fabric in {workdir}")
        return EXIT_OK
    if process_alive(state.supervisor_pid, "fabric.procs"):
        os.kill(state.supervisor_pid, signal.SIGTERM)
        _wait_gone(state.supervisor_pid, "fabric.procs", DOWN_TIMEOUT_S)
    # devices the supervisor could not stop (it was killed, or hung)
    for device in state.devices:
        if process_alive(device.pid, device.grpc_address):
            assert device.pid is not None
            os.kill(device.pid, signal.SIGKILL)
            _wait_gone(device.pid, device.grpc_address, DOWN_TIMEOUT_S)
    if process_alive(state.supervisor_pid, "fabric.procs"):
        os.kill(state.supervisor_pid, signal.SIGKILL)
    sockets = [d.packet_in for d in state.devices] + \
        [d.host_socket for d in state.devices if d.host_socket]
    for path in [p for p in sockets if p.startswith("ipc://")] + [state.control_socket]:
        Path(path.removeprefix("ipc://")).unlink(missing_ok=True)
    if state.wiring == "veth":  # what a killed supervisor left behind
        try:
            remove_wiring(state.namespace, state.interfaces)
        except NetnsError as error:
            print(f"fabric.procs: {error}", file=sys.stderr)
            return EXIT_FAILED
    final = read_state(workdir)
    if final is not None and final.status in (STARTING, UP):  # its supervisor was killed
        final.status = STOPPED
        write_state(workdir, final)
    print(f"fabric {state.name!r} in {workdir} is down")
    return EXIT_OK


def _wait_gone(pid: int, command_part: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while process_alive(pid, command_part) and time.monotonic() < deadline:
        time.sleep(0.05)  # not our child: no wait() for it, so poll /proc


# -- status and link --------------------------------------------------------------------
def cmd_status(args: argparse.Namespace) -> int:
    workdir: Path = args.workdir.resolve()
    state = read_state(workdir)
    if state is None:
        print(f"no fabric in {workdir}")
        return EXIT_FAILED
    running = process_alive(state.supervisor_pid, "fabric.procs")
    status = state.status if running or state.status != UP else "gone (supervisor died)"
    print(f"fabric {state.name!r} ({state.topology}): {status}"
          + (f": {state.message}" if state.message else ""))
    print_devices(state, alive=True)
    healthy = running and state.status == UP and all(
        process_alive(d.pid, d.grpc_address) for d in state.devices)
    if running and state.status == UP:
        try:
            snapshot = request(state.control_socket, {"op": "snapshot"})["snapshot"]
        except ControlError as error:
            print(f"fabric.procs: {error}", file=sys.stderr)
            return EXIT_FAILED
        print()
        print_links(snapshot)
    return EXIT_OK if healthy else EXIT_FAILED


def cmd_link(args: argparse.Namespace) -> int:
    try:
        port = Endpoint.parse(args.port)
    except ValueError as error:
        raise UsageError(str(error)) from None
    req: dict[str, object] = {"op": "link", "port": str(port)}
    if args.action == "loss":
        if args.probability is None or not 0.0 <= args.probability <= 1.0:
            raise UsageError("loss needs a probability P between 0 and 1")
        req["loss"] = args.probability
    elif args.probability is not None:
        raise UsageError(f"{args.action or 'showing a link'} takes no probability")
    elif args.action is not None:
        req["up"] = args.action == "up"
    state = read_state(args.workdir.resolve())
    if state is None or not process_alive(state.supervisor_pid, "fabric.procs"):
        print(f"no fabric runs in {args.workdir.resolve()}", file=sys.stderr)
        return EXIT_FAILED
    if state.devices and not any(d.name == port.device for d in state.devices):
        raise UsageError(f"no device named {port.device!r}")
    try:
        link = request(state.control_socket, req)["link"]
    except ControlError as error:
        if "no patch panel answers" in str(error):
            print(f"fabric.procs: {error}", file=sys.stderr)
            return EXIT_FAILED
        raise UsageError(str(error)) from None
    print_links({"links": [link]})
    return EXIT_OK


def print_outputs(args: argparse.Namespace) -> None:
    """Where the fabric serves its metrics and writes its pcaps, if it does."""
    if args.metrics_port is not None:
        print(f"metrics: {metrics_url(args.metrics_address, args.metrics_port)}", flush=True)
    if args.pcap is not None:
        print(f"pcaps: {args.pcap.resolve()}/<device>/", flush=True)


# -- tables -----------------------------------------------------------------------------
def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [list(header)] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def print_devices(state: FabricState, alive: bool = False) -> None:
    header = ["DEVICE", "ROLE", "ID", "GRPC", "PID"] + (["RUNNING"] if alive else []) + \
        ["HOST SOCKET"]
    rows = [[d.name, d.role, d.device_id, d.grpc_address, d.pid if d.pid else "-"]
            + (["yes" if process_alive(d.pid, d.grpc_address) else "no"] if alive else [])
            + [d.host_socket or "-"] for d in state.devices]
    _table(header, rows)


def print_links(snapshot: dict[str, object]) -> None:
    rows = []
    for link in snapshot["links"]:  # type: ignore[attr-defined]
        a, b = link["counters"]
        rows.append([link["name"], "up" if link["up"] else "DOWN", link["loss"],
                     a["forwarded"], b["forwarded"],
                     sum(a[k] + b[k] for k in ("dropped_down", "dropped_loss"))])
    _table(["LINK", "STATE", "LOSS", "FRAMES A>B", "FRAMES B>A", "DROPPED"], rows)
    unlinked = snapshot.get("unlinked")
    if unlinked:
        print("frames out of ports without a link: " + ", ".join(
            f"{port} {count}" for port, count in sorted(unlinked.items())))  # type: ignore[attr-defined]
