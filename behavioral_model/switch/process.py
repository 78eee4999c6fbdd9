"""The ``switch`` process: one :class:`SwitchCore` with its ports, pcap recording,
logging and the P4Runtime server, started and stopped as a unit.

    options = SwitchOptions(program="router.p4", packet_in="ipc:///tmp/bm-0.ipc")
    sys.exit(run_switch(options))     # until SIGINT/SIGTERM, then exit 0
"""

from __future__ import annotations

import importlib
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..ports.pcap import PcapRecorder
from ..tm import DEFAULT_QUEUE_DEPTH, TrafficManager
from .core import SwitchCore

if TYPE_CHECKING:
    from ..p4runtime.tls import ServerTls

__all__ = [
    "DEFAULT_GRPC_ADDR",
    "LOG_LEVELS",
    "TRACE",
    "SwitchOptions",
    "SwitchProcess",
    "SwitchStartError",
    "configure_logging",
    "run_switch",
]

log = logging.getLogger("behavioral_model.switch")

DEFAULT_GRPC_ADDR = "0.0.0.0:9559"  # simple_switch_grpc's default
TRACE = 5  # below DEBUG: BMv2's "trace"
LOG_LEVELS = {"trace": TRACE, "debug": logging.DEBUG, "info": logging.INFO,
              "warn": logging.WARNING, "error": logging.ERROR,
              "off": logging.CRITICAL + 10}


class SwitchStartError(Exception):
    """The switch could not start (bad program, busy socket, missing interface...)."""


@dataclass
class SwitchOptions:
    """Everything ``python -m behavioral_model switch`` can be told."""

    program: str | None = None
    include_dirs: Sequence[str] = ()
    defines: dict[str, str | None] = field(default_factory=dict)
    device_id: int = 0
    interfaces: dict[int, str] = field(default_factory=dict)
    packet_in: str | None = None
    pcap_dir: str | None = None
    cpu_port: int | None = None
    grpc_addr: str | None = DEFAULT_GRPC_ADDR  # None: no P4Runtime server
    priority_queues: int = 1
    queue_depth: int = DEFAULT_QUEUE_DEPTH
    queue_rate_pps: int = 0
    port_queue_depths: dict[int, int] = field(default_factory=dict)
    port_queue_rates: dict[int, int] = field(default_factory=dict)
    dump_packet_data: int = 0
    enforce_ports: bool = False
    grpc_tls: ServerTls | None = None  # None: plain text
    # "v1model" or "pna": the only architecture this switch runs (as simple_switch_grpc
    # and BMv2 pna_nic each run one); None: whichever the program's package is.
    arch: str | None = None


def configure_logging(console: bool, file: str | None, level: str | None,
                      stream: TextIO | None = None) -> None:
    """BMv2's logging options: nothing is logged unless ``--log-console`` or
    ``--log-file`` is given, then at ``level`` (BMv2's default: trace). Warnings and
    errors always reach stderr."""
    logging.addLevelName(TRACE, "TRACE")
    root = logging.getLogger("behavioral_model")
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.propagate = False
    fmt = logging.Formatter("[%(asctime)s.%(msecs)03d] [bm] [%(levelname).1s] "
                            "[%(threadName)s] %(message)s", "%H:%M:%S")
    handler: logging.Handler
    if console or file:
        handler = (logging.StreamHandler(stream or sys.stdout) if console
                   else logging.FileHandler(file))  # type: ignore[arg-type]
        handler.setFormatter(fmt)
        root.addHandler(handler)
        root.setLevel(LOG_LEVELS[level or "trace"])
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(fmt)
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


def _load_program(options: SwitchOptions) -> tuple[Any, Any]:
    from ..frontend.errors import P4Error
    from ..frontend.p4info import generate_p4info
    from ..program import load_program

    path = Path(options.program or "")
    if path.suffix == ".json":
        raise SwitchStartError(f"{path}: this looks like a BMv2 JSON file; bm runs the P4 "
                               "source itself (give PROG.p4)")
    if not path.is_file():
        raise SwitchStartError(f"{path}: no such file")
    try:
        program = load_program(path, options.include_dirs, options.defines)
        if options.arch is not None and program.arch != options.arch:
            raise SwitchStartError(f"{path}: a {program.arch} program, but this switch "
                                   f"runs --arch {options.arch}")
        return program, generate_p4info(program.checked)
    except P4Error as error:
        raise SwitchStartError(str(error)) from None
    except RecursionError:
        raise SwitchStartError(f"{path}: program is nested too deeply") from None


def check_tcp_address_free(addr: str) -> None:
    """SwitchStartError if something already listens on ``HOST:PORT``. (gRPC binds
    with SO_REUSEPORT, so a second switch would otherwise share the port silently.)"""
    host, _, port_text = addr.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        port = int(port_text)
    except ValueError:
        return  # not HOST:PORT; gRPC gives its own error
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            raise SwitchStartError(f"cannot listen on {addr}: "
                                   f"{error.strerror or error}") from None


def _server_class() -> Any | None:
    """``P4RuntimeServer`` if the P4Runtime server is available."""
    try:
        module = importlib.import_module("behavioral_model.p4runtime.server")
    except ModuleNotFoundError as error:
        if error.name and "behavioral_model.p4runtime" in error.name:
            return None
        raise
    return getattr(module, "P4RuntimeServer", None)


class SwitchProcess:
    """Builds and runs the switch described by :class:`SwitchOptions`."""

    def __init__(self, options: SwitchOptions) -> None:
        self.options = options
        self.core: SwitchCore | None = None
        self.server: Any = None
        self.startup_s = 0.0
        self._stopped = False

    def start(self) -> None:
        """Load the program, open ports, start the data plane and the P4Runtime server;
        SwitchStartError (with everything already opened closed again) on failure."""
        t0 = time.monotonic()
        opts = self.options
        try:
            self._start(opts)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - t0

    def _start(self, opts: SwitchOptions) -> None:
        from ..ports.nn import NanomsgPorts
        from ..ports.veth import InterfacePorts

        if opts.grpc_addr:
            check_tcp_address_free(opts.grpc_addr)
        loaded = _load_program(opts) if opts.program else None
        try:
            tm = TrafficManager(opts.priority_queues, opts.queue_depth, opts.queue_rate_pps)
            for port, depth in opts.port_queue_depths.items():
                tm.set_queue_depth(port, depth)
            for port, rate in opts.port_queue_rates.items():
                tm.set_queue_rate(port, rate)
            pcap = None
            if opts.pcap_dir is not None:
                pcap = PcapRecorder(opts.pcap_dir, names=dict(opts.interfaces))
        except (ValueError, OSError) as error:
            raise SwitchStartError(str(error)) from None
        core = self.core = SwitchCore(opts.device_id, cpu_port=opts.cpu_port, tm=tm,
                                      pcap=pcap, dump_packet_data=opts.dump_packet_data,
                                      arch=opts.arch)
        if loaded is not None:
            program, p4info = loaded
            core.set_pipeline(program, p4info, 0)
        try:
            if opts.packet_in:
                if opts.interfaces:
                    log.warning("--packet-in given: the --interface options are ignored "
                                "(as in BMv2)")
                core.add_port_backend(NanomsgPorts(opts.packet_in,
                                                   enforce_ports=opts.enforce_ports))
            elif opts.interfaces:
                core.add_port_backend(InterfacePorts(opts.interfaces))
        except (ValueError, OSError) as error:
            raise SwitchStartError(str(error)) from None
        core.start()
        if opts.grpc_addr:
            server_class = _server_class()
            if server_class is None:
                log.warning("P4Runtime server not available in this build; "
                            "--grpc-server-addr ignored")
            else:
                try:
                    server = server_class(core, opts.grpc_addr, tls=opts.grpc_tls)
                    server.start()
                except Exception as error:
                    raise SwitchStartError(
                        f"cannot start the P4Runtime server on {opts.grpc_addr}: "
                        f"{error}") from None
                self.server = server

    def stop(self) -> None:
        """Stop the server, then the data plane and ports; idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if self.server is not None:
            try:
                self.server.stop()
            except Exception:  # pragma: no cover - best effort on shutdown
                log.exception("error while stopping the P4Runtime server")
        if self.core is not None:
            self.core.stop()

    def describe(self) -> str:
        opts = self.options
        parts = [f"device {opts.device_id}",
                 f"program {opts.program}" if opts.program else "no program (--no-p4)"]
        if self.server is not None:
            tls = "" if opts.grpc_tls is None else (
                " (mutual TLS)" if opts.grpc_tls.client_auth else " (TLS)")
            parts.append(f"P4Runtime on {opts.grpc_addr}{tls}")
        if opts.packet_in:
            parts.append(f"packet-in {opts.packet_in}")
        elif opts.interfaces:
            parts.append("ports " + ", ".join(f"{p}@{i}" for p, i in
                                              sorted(opts.interfaces.items())))
        if opts.cpu_port is not None:
            parts.append(f"CPU port {opts.cpu_port}")
        return ", ".join(parts)


def run_switch(options: SwitchOptions, ready_stream: TextIO | None = None) -> int:
    """Run until SIGINT or SIGTERM; 0 after a clean shutdown. Prints one line when
    the switch is ready (to ``ready_stream``, stdout by default)."""
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        received.append(signum)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    process = SwitchProcess(options)
    try:
        process.start()
        out = ready_stream or sys.stdout
        print(f"bm switch ready in {process.startup_s:.2f} s: {process.describe()}",
              file=out, flush=True)
        while not stop.wait(0.5):
            if process.core is not None and not process.core.running:
                log.error("the data-plane thread ended unexpectedly")
                return 1
        log.info("signal %d received, shutting down", received[0] if received else 0)
    finally:
        process.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
