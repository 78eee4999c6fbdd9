"""``switch [PROG.p4 | --no-p4] [options]``: run bm as a switch, a drop-in for BMv2's
``simple_switch_grpc`` (same option names; BMv2's ``--`` between the generic and the
target options is accepted too)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from behavioral_model.cli.common import (
    EXIT_FAILURE,
    EXIT_USAGE,
    CliError,
    Subcommand,
    add_macro_arguments,
)

if TYPE_CHECKING:
    from behavioral_model.p4runtime.tls import ServerTls

__all__ = ["SUBCOMMAND", "options_from_args"]

_LEVELS = ("trace", "debug", "info", "warn", "error", "off")



def _interface(text: str) -> tuple[int, str]:
    from behavioral_model.ports.veth import parse_interface_option

    try:
        return parse_interface_option(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _nonneg(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _port_value(text: str) -> tuple[int, int]:
    port, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: expected PORT=VALUE")
    return _nonneg(port), _nonneg(value)


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="PROG.p4", nargs="?",
                        help="the P4_16 program to load at start-up (its P4Info is "
                        "generated); omit with --no-p4 and push one over P4Runtime")
    parser.add_argument("target_options", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    prog = parser.add_argument_group("program")
    prog.add_argument("--no-p4", action="store_true",
                      help="start without a program (a controller sets the pipeline "
                      "with SetForwardingPipelineConfig)")
    prog.add_argument("--arch", choices=("v1model", "pna"),
                      help="run only programs of this architecture (v1model: BMv2 "
                      "simple_switch; pna: BMv2 pna_nic), at start-up and over P4Runtime; "
                      "default: whichever the program's package is")
    prog.add_argument("-I", dest="include_dirs", metavar="DIR", action="append", default=[],
                      help="add DIR to the #include search path; repeatable")
    add_macro_arguments(prog)
    ports = parser.add_argument_group("ports")
    ports.add_argument("--device-id", type=_nonneg, default=0, metavar="N",
                       help="device id, for P4Runtime and the nanomsg socket (default 0)")
    ports.add_argument("-i", "--interface", dest="interfaces", action="append", default=[],
                       type=_interface, metavar="PORT@IFACE",
                       help="attach network interface IFACE as port PORT (raw AF_PACKET; "
                       "needs root); repeatable")
    ports.add_argument("--packet-in", metavar="ADDR",
                       help="send and receive packets of all ports on this nanomsg PAIR "
                       "socket (ipc://PATH or tcp://HOST:PORT), BMv2's framing, as PTF's "
                       "'nn' platform expects; the --interface options are then ignored")
    ports.add_argument("--enforce-ports", action="store_true",
                       help="with --packet-in, accept frames only on ports the peer added "
                       "and brought up (bm extension; BMv2's default is not to enforce)")
    ports.add_argument("--pcap", nargs="?", const=".", metavar="DIR",
                       help="write NAME_in.pcap / NAME_out.pcap per port into DIR (default: "
                       "the current directory); NAME is the interface or 'portN'")
    ports.add_argument("--cpu-port", type=_nonneg, metavar="N",
                       help="the CPU port, for P4Runtime packet-in / packet-out; 0 is not "
                       "valid; without it there is no packet I/O with the controller")
    ports.add_argument("--drop-port", type=_nonneg, default=511, metavar="N",
                       help="the drop port; only 511 (v1model's) is supported")
    tm = parser.add_argument_group("traffic manager")
    tm.add_argument("--priority-queues", type=_nonneg, default=1, metavar="N",
                    help="priority queues per egress port, served by "
                    "standard_metadata.priority, highest first (default 1: packets with a "
                    "non-zero priority are dropped, as in BMv2)")
    tm.add_argument("--queue-depth", type=_nonneg, default=64, metavar="N",
                    help="capacity of every egress queue in packets (default 64)")
    tm.add_argument("--queue-rate", type=_nonneg, default=0, metavar="PPS",
                    help="rate of every egress queue in packets/s (default 0: unlimited)")
    tm.add_argument("--port-queue-depth", type=_port_value, action="append", default=[],
                    metavar="PORT=N", help="capacity of the queues of one port; "
                    "repeatable (bm extension; BMv2 sets this at run time)")
    tm.add_argument("--port-queue-rate", type=_port_value, action="append", default=[],
                    metavar="PORT=PPS", help="rate of the queues of one port; repeatable "
                    "(bm extension)")
    ctl = parser.add_argument_group("control")
    ctl.add_argument("--grpc-server-addr", default="0.0.0.0:9559", metavar="HOST:PORT",
                     help="P4Runtime server address (default 0.0.0.0:9559)")
    ctl.add_argument("--grpc-server-ssl", action="store_true",
                     help="serve P4Runtime over TLS (needs --grpc-server-cert and "
                     "--grpc-server-key)")
    ctl.add_argument("--grpc-server-cacert", metavar="FILE",
                     help="PEM file of the CA that client certificates are verified "
                     "against (with --grpc-server-with-client-auth)")
    ctl.add_argument("--grpc-server-cert", metavar="FILE",
                     help="PEM file of the server's certificate")
    ctl.add_argument("--grpc-server-key", metavar="FILE",
                     help="PEM file of the server's private key")
    ctl.add_argument("--grpc-server-with-client-auth", action="store_true",
                     help="mutual TLS: require a client certificate signed by "
                     "--grpc-server-cacert and refuse clients without one")
    ctl.add_argument("--no-grpc", action="store_true",
                     help="do not start the P4Runtime server (bm extension)")
    ctl.add_argument("--thrift-port", type=_nonneg, metavar="N",
                     help="accepted for compatibility; bm has no Thrift server")
    ctl.add_argument("--notifications-addr", metavar="ADDR",
                     help="accepted for compatibility; bm publishes no nanomsg notifications")
    ctl.add_argument("--disable-swap", action="store_true",
                     help="accepted for compatibility (pipelines are always swapped "
                     "atomically)")
    logs = parser.add_argument_group("logging")
    logs.add_argument("--log-console", action="store_true", help="log to stdout")
    logs.add_argument("--log-file", metavar="FILE", help="log to FILE")
    logs.add_argument("--log-flush", action="store_true",
                      help="accepted for compatibility (log files are always flushed)")
    logs.add_argument("-L", "--log-level", choices=_LEVELS, metavar="LEVEL",
                      help="trace, debug, info, warn, error or off (default trace, as "
                      "BMv2); debug and trace log each packet: headers parsed, tables hit, "
                      "actions run, queueing, drops with their reason")
    logs.add_argument("--dump-packet-data", type=_nonneg, default=0, metavar="N",
                      help="log the first N bytes of every packet received and sent "
                      "(at info level)")


def _merge_target_options(parser: argparse.ArgumentParser,
                          args: argparse.Namespace) -> None:
    """Options after the program, or after BMv2's ``--``, land unparsed in
    ``target_options`` (and, after ``--``, the first one in ``program``): parse them
    into ``args`` until nothing is left."""
    program = args.program
    pending = list(args.target_options or [])
    while True:
        if program is not None and program.startswith("-"):
            pending.insert(0, program)
            program = None
        while pending and pending[0] == "--":
            pending.pop(0)
        if not pending:
            break
        namespace = argparse.Namespace(**vars(args))
        namespace.program = None
        namespace.target_options = []
        parsed = parser.parse_args(pending, namespace=namespace)
        found = parsed.program
        pending = list(parsed.target_options)
        if found is not None and found.startswith("-"):
            pending.insert(0, found)
        elif found is not None:
            if program is not None:
                raise CliError(f"more than one program given: {program}, {found}",
                               EXIT_USAGE)
            program = found
        vars(args).update(vars(parsed))
    args.program = program
    args.target_options = []


def _tls_from_args(args: argparse.Namespace) -> ServerTls | None:
    """The server's TLS settings (None: plain text); the files are read once here so
    that a missing or unreadable one is a one-line usage error."""
    from behavioral_model.p4runtime.tls import ServerTls, TlsConfigError

    given = [flag for flag, value in (
        ("--grpc-server-cacert", args.grpc_server_cacert),
        ("--grpc-server-cert", args.grpc_server_cert),
        ("--grpc-server-key", args.grpc_server_key),
        ("--grpc-server-with-client-auth", args.grpc_server_with_client_auth)) if value]
    if not args.grpc_server_ssl:
        if given:  # simple_switch_grpc ignores them too; say so
            print(f"warning: {', '.join(given)} ignored without --grpc-server-ssl")
        return None
    if not args.grpc_server_cert or not args.grpc_server_key:
        raise CliError("--grpc-server-ssl needs --grpc-server-cert and --grpc-server-key",
                       EXIT_USAGE)
    tls = ServerTls(cert=Path(args.grpc_server_cert), key=Path(args.grpc_server_key),
                    cacert=Path(args.grpc_server_cacert) if args.grpc_server_cacert else None,
                    client_auth=args.grpc_server_with_client_auth)
    try:
        tls.credentials()
    except TlsConfigError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    return tls


def options_from_args(args: argparse.Namespace) -> object:
    from behavioral_model.switch.process import SwitchOptions

    if args.drop_port != 511:
        raise CliError("--drop-port: only 511 is supported", EXIT_USAGE)
    if args.cpu_port == 0:
        raise CliError("--cpu-port: 0 is not a valid CPU port", EXIT_USAGE)
    if args.log_console and args.log_file:
        raise CliError("--log-console and --log-file are exclusive", EXIT_USAGE)
    if not 1 <= args.priority_queues <= 32:
        raise CliError("--priority-queues must be in 1..32", EXIT_USAGE)
    if args.no_p4 and args.program:
        print(f"warning: ignoring {args.program} as --no-p4 was used")
        args.program = None
    if not args.no_p4 and not args.program:
        raise CliError("please give a P4 program (PROG.p4) or --no-p4", EXIT_USAGE)
    interfaces: dict[int, str] = {}
    for port, iface in args.interfaces:
        if port in interfaces:
            raise CliError(f"port {port} is given twice with --interface", EXIT_USAGE)
        interfaces[port] = iface
    if args.cpu_port is not None and args.cpu_port in interfaces:
        raise CliError(f"CPU port {args.cpu_port} is used as a data port", EXIT_USAGE)
    return SwitchOptions(
        program=args.program, include_dirs=list(args.include_dirs),
        defines=dict(args.defines), device_id=args.device_id, interfaces=interfaces,
        packet_in=args.packet_in, pcap_dir=args.pcap, cpu_port=args.cpu_port,
        grpc_addr=None if args.no_grpc else args.grpc_server_addr,
        priority_queues=args.priority_queues, queue_depth=args.queue_depth,
        queue_rate_pps=args.queue_rate, dump_packet_data=args.dump_packet_data,
        port_queue_depths=dict(args.port_queue_depth),
        port_queue_rates=dict(args.port_queue_rate),
        enforce_ports=args.enforce_ports, grpc_tls=_tls_from_args(args), arch=args.arch,
    )


_PARSER: list[argparse.ArgumentParser] = []


def _configure_and_remember(parser: argparse.ArgumentParser) -> None:
    _configure(parser)
    _PARSER.append(parser)


def _run(args: argparse.Namespace) -> int:
    from behavioral_model.switch.process import (
        SwitchStartError,
        configure_logging,
        run_switch,
    )

    if _PARSER:
        _merge_target_options(_PARSER[-1], args)
    options = options_from_args(args)
    for flag, value in (("--thrift-port", args.thrift_port),
                        ("--notifications-addr", args.notifications_addr)):
        if value is not None:
            print(f"warning: {flag} ignored (not supported by bm)")
    configure_logging(args.log_console, args.log_file, args.log_level)
    try:
        return run_switch(options)  # type: ignore[arg-type]
    except SwitchStartError as error:
        raise CliError(str(error), EXIT_FAILURE) from None


SUBCOMMAND = Subcommand(
    name="switch",
    help="run a switch (like simple_switch_grpc): ports, traffic manager, P4Runtime",
    description="Run bm as a switch device, a drop-in for BMv2's simple_switch_grpc: "
    "load PROG.p4 (or start with --no-p4 and receive the pipeline over P4Runtime), "
    "exchange packets on a nanomsg socket (--packet-in, PTF's 'nn' platform, no root "
    "needed) or on network interfaces (-i), queue them per egress port (priority "
    "queues, depth, rate) and serve P4Runtime on --grpc-server-addr. Prints one line "
    "when ready; SIGINT or SIGTERM shuts it down cleanly (exit 0). BMv2's '--' between "
    "generic and target options is accepted.",
    configure=_configure_and_remember,
    run=_run,
)
