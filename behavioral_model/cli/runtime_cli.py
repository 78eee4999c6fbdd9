"""``cli [--grpc-addr HOST:PORT] [--device-id N] [--p4info FILE] [FILE]``: BMv2's
simple_switch_CLI command language, carried out over P4Runtime so that it works with
bm and with simple_switch_grpc alike. Commands come from FILE, from standard input, or
from a prompt when standard input is a terminal."""

from __future__ import annotations

import argparse
import sys

from behavioral_model.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Subcommand,
    require_file,
)

__all__ = ["SUBCOMMAND"]

CONNECT_TIMEOUT_S = 5.0


def _election_id(text: str) -> tuple[int, int]:
    high, comma, low = text.partition(",")
    try:
        return (int(high, 0), int(low, 0)) if comma else (0, int(high, 0))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LOW or HIGH,LOW") from None


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?",
                        help="commands, one per line ('#' starts a comment); default: "
                        "standard input, with a prompt if it is a terminal")
    parser.add_argument("--grpc-addr", default="127.0.0.1:9559", metavar="HOST:PORT",
                        help="the switch's P4Runtime server (default 127.0.0.1:9559)")
    parser.add_argument("--device-id", type=int, default=0, metavar="N",
                        help="P4Runtime device id (default 0)")
    parser.add_argument("--p4info", metavar="FILE",
                        help="P4Info of the running pipeline (text, JSON or binary); "
                        "default: asked from the device")
    parser.add_argument("--election-id", type=_election_id, default=(0, 1),
                        metavar="[HIGH,]LOW",
                        help="arbitration election id (default 1); if another controller "
                        "is primary the CLI says so, reads work and writes are refused")
    tls = parser.add_argument_group("TLS")
    tls.add_argument("--grpc-ssl", action="store_true",
                     help="connect over TLS (implied by the options below)")
    tls.add_argument("--grpc-cacert", metavar="FILE",
                     help="PEM file of the CA that signed the server's certificate")
    tls.add_argument("--grpc-cert", metavar="FILE",
                     help="PEM file of this client's certificate (mutual TLS)")
    tls.add_argument("--grpc-key", metavar="FILE",
                     help="PEM file of this client's private key (mutual TLS)")


def _run(args: argparse.Namespace) -> int:
    from behavioral_model.cli.runtime_shell import RuntimeShell
    from behavioral_model.cli.runtime_shell.context import ShellContext
    from p4rt_client import (
        P4InfoHelper,
        P4RuntimeSession,
        P4RuntimeSessionError,
        P4RuntimeWriteError,
        TlsConfig,
        load_p4info,
    )

    commands = require_file(args.file, "command file") if args.file else None
    p4info = None
    if args.p4info:
        try:
            p4info = load_p4info(require_file(args.p4info, "P4Info file"))
        except (ValueError, UnicodeDecodeError) as error:
            raise CliError(f"--p4info {args.p4info}: not a P4Info file ({error})",
                           EXIT_USAGE) from None
    tls = None
    if args.grpc_ssl or args.grpc_cacert or args.grpc_cert or args.grpc_key:
        for path in (args.grpc_cacert, args.grpc_cert, args.grpc_key):
            if path:
                require_file(path, "file")
        tls = TlsConfig(args.grpc_cacert, args.grpc_cert, args.grpc_key)
    session = P4RuntimeSession(args.grpc_addr, args.device_id, args.election_id, tls=tls)
    try:
        session.connect(timeout=CONNECT_TIMEOUT_S, require_primary=False)
    except P4RuntimeSessionError as error:
        raise CliError(f"Error: {error}", EXIT_FAILURE) from None
    try:
        if not session.primary:
            holder = session.stream.primary_election_id if session.stream else None
            print(f"warning: another controller is the primary (election id {holder}); "
                  "reads work, writes will be refused (see --election-id)", file=sys.stderr)
        if p4info is None:
            try:
                p4info = session.get_p4info()
            except P4RuntimeWriteError as error:
                raise CliError(f"Error: cannot get the device's pipeline ({error.summary()});"
                               " load one first or give --p4info", EXIT_FAILURE) from None
        if not p4info.tables and not p4info.actions:
            raise CliError("Error: the device has no pipeline; load one first",
                           EXIT_FAILURE)
        shell = RuntimeShell(ShellContext(session, P4InfoHelper(p4info)))
        if commands is not None:
            with commands.open(encoding="utf-8") as lines:
                shell.run_lines(lines, str(commands))
        elif sys.stdin.isatty():
            shell.cmdloop("P4Runtime control of device "
                          f"{args.device_id} at {args.grpc_addr}; 'help' lists the commands")
            print()  # after Ctrl-D, so that the shell's prompt starts a new line
            return EXIT_OK  # a typed mistake was already answered; it fails nothing
        else:
            shell.run_lines(sys.stdin, "<stdin>")
    finally:
        session.close()
    return EXIT_FAILURE if shell.failures else EXIT_OK


SUBCOMMAND = Subcommand(
    name="cli",
    help="simple_switch_CLI commands over P4Runtime (tables, profiles, counters, "
    "meters, registers, multicast, mirroring)",
    description="Run simple_switch_CLI commands (table_add, table_dump, counter_read, "
    "mc_node_create, mirroring_add, ...) against a running switch over P4Runtime: bm or "
    "BMv2 simple_switch_grpc. The pipeline must be loaded already; its P4Info is read "
    "from the device unless --p4info is given. Entry, member, group and node handles "
    "are numbered by this CLI as BMv2 numbers them. A failing command prints one "
    "'Error:' line and the next one runs; the exit code is 1 if any command failed, "
    "2 for bad arguments. Priorities: the smallest wins, as in BMv2's CLI.",
    configure=_configure,
    run=_run,
)
