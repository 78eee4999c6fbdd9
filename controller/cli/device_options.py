"""Options shared by the subcommands that talk to devices: election id, TLS, the log."""

from __future__ import annotations

import argparse
import sys

from controller.apply import DEFAULT_ELECTION_ID
from controller.device.link import CONNECT_TIMEOUT_S
from controller.events import EventLog
from p4rt_client import TlsConfig
from p4rt_client.values import parse_int


def election_id(text: str) -> tuple[int, int]:
    """``N`` (the low 64 bits) or ``HIGH:LOW``."""
    high, _, low = text.rpartition(":")
    try:
        value = (parse_int(high) if high else 0, parse_int(low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not N or HIGH:LOW") from None
    if not all(0 <= v < 1 << 64 for v in value) or value == (0, 0):
        raise argparse.ArgumentTypeError(f"{text!r}: 64-bit halves, not both zero")
    return value


def add_device_options(parser: argparse.ArgumentParser, *, elects: bool = True,
                       connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
    parser.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
    if elects:
        parser.add_argument(
            "--election-id", type=election_id, default=DEFAULT_ELECTION_ID,
            metavar="N|HIGH:LOW",
            help="this controller's election id (default %(default)s); a device whose "
                 "primary holds a higher one is reported, not taken over")
    parser.add_argument("--connect-timeout", type=float, default=connect_timeout,
                        metavar="S", help="seconds to wait for a device to answer "
                                          "(default %(default)s)")
    parser.add_argument("--json-log", action="store_true",
                        help="log events as JSON lines (default: text lines)")
    parser.add_argument("--log-file", metavar="FILE",
                        help="write the event log here (default: standard error)")
    add_tls_options(parser)


def add_tls_options(parser: argparse.ArgumentParser) -> None:
    tls = parser.add_argument_group("TLS (P4Runtime over TLS, as the devices serve it)")
    tls.add_argument("--grpc-cacert", metavar="PEM", help="CA of the devices' certificates")
    tls.add_argument("--grpc-cert", metavar="PEM", help="client certificate (mutual TLS)")
    tls.add_argument("--grpc-key", metavar="PEM", help="client key (mutual TLS)")


def tls_of(args: argparse.Namespace) -> TlsConfig | None:
    if not (args.grpc_cacert or args.grpc_cert or args.grpc_key):
        return None
    return TlsConfig(root_ca=args.grpc_cacert, cert=args.grpc_cert, key=args.grpc_key)


def event_log(args: argparse.Namespace) -> EventLog:
    # The file stays open for the process's life: the log is written to the end.
    out = open(args.log_file, "a", encoding="utf-8") if args.log_file else sys.stderr  # noqa: SIM115
    return EventLog(out, json_lines=args.json_log)
