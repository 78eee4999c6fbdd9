"""``mrc-host`` (``python -m host``): write a message through a NIC, or serve memory
regions and print the messages that arrive.

Exit codes: 0 done, 1 the transfer failed or timed out (or the port could not be
opened), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import sys
from collections.abc import Callable, Sequence

from behavioral_model.ports.sp_frames import parse_address
from protocol.constants import NIC_HOST_PORT

from .clock import MonotonicClock
from .completions import Completion
from .config import TransportConfig
from .driver import run_until
from .endpoint import Endpoint
from .memory import MemoryRegion
from .ports import PacketPort
from .ports.nanomsg import NanomsgPort
from .ports.raw import RawSocketPort

__all__ = ["main", "parse_size"]

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
          "g": 1 << 30, "gib": 1 << 30}
_SIZE = re.compile(r"\s*(\d+)\s*([a-zA-Z]*)\s*")


def parse_size(text: str) -> int:
    """``"1MiB"`` -> 1048576; plain numbers are bytes; K/M/G are binary units."""
    match = _SIZE.fullmatch(text)
    unit = _UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size (e.g. 4096, 64KiB, 1MiB, 1G)")
    return int(match.group(1)) * unit


def _number(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number (e.g. 7, 0x1000)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _bounded(bits: int, low: int = 0) -> Callable[[str], int]:
    """An argparse type: a number in ``low .. 2**bits - 1``."""
    def parse(text: str) -> int:
        value = _number(text)
        if not low <= value < 1 << bits:
            raise argparse.ArgumentTypeError(f"{text!r} must be {low}..{(1 << bits) - 1}")
        return value
    return parse


def _socket(text: str) -> str:
    try:
        parse_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _address(text: str) -> str:
    try:
        return str(ipaddress.IPv6Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv6 address") from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def _region(text: str) -> MemoryRegion:
    parts = text.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"region {text!r}: expected BASE:SIZE:RKEY")
    base, size, rkey = _number(parts[0]), parse_size(parts[1]), _number(parts[2])
    try:
        return MemoryRegion(base, size, rkey)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"region {text!r}: {error}") from None


_QPN = _bounded(24)  # BTH DestQP


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mrc-host", description="Host software of the MRC NIC: RDMA writes over "
        "the NIC's host port (docs/mrc-nic.md section 7).")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sub: argparse.ArgumentParser) -> None:
        where = sub.add_mutually_exclusive_group(required=True)
        where.add_argument("--socket", metavar="ADDR", type=_socket,
                           help="the NIC switch's --packet-in socket (ipc://PATH or "
                           "tcp://HOST:PORT)")
        where.add_argument("--interface", metavar="IFACE",
                           help="a network interface wired to the NIC's host port "
                           "(raw socket; needs root)")
        sub.add_argument("--port", type=_number, default=NIC_HOST_PORT,
                         help="the NIC's host port on the socket (default %(default)s)")
        sub.add_argument("--local", type=_address, required=True,
                         help="this host's NIC address (IPv6)")
        sub.add_argument("--timeout", type=_seconds, default=None,
                         help="give up after this many seconds")
        sub.add_argument("--connect-timeout", type=_seconds, default=10.0,
                         help="how long to wait for the switch's socket (default "
                         "%(default)s s)")

    write = commands.add_parser("write", help="write a message to a peer and wait for "
                                "its acknowledgement",
                                description="Write BYTES of test data (byte i is i mod "
                                "256) to the peer and wait until all of it is SACKed.")
    common(write)
    write.add_argument("--peer", type=_address, required=True,
                       help="the peer NIC's address (IPv6)")
    write.add_argument("--qp", type=_QPN, required=True, help="local QP number")
    write.add_argument("--remote-qp", type=_QPN, default=None,
                       help="the peer's QP number (default: same as --qp)")
    write.add_argument("--bytes", type=parse_size, required=True, dest="size",
                       help="message size, e.g. 4096, 64KiB, 1MiB")
    write.add_argument("--remote-addr", type=_bounded(64), default=0,
                       help="address in the peer's region (default 0)")
    write.add_argument("--rkey", type=_bounded(32), default=0, help="the peer region's rkey")
    write.add_argument("--mtu", type=_bounded(16, low=1), default=TransportConfig.mtu,
                       help="payload bytes per packet (default %(default)s)")
    write.add_argument("--rto", type=_seconds, default=TransportConfig.rto,
                       help="retransmission timeout in seconds (default %(default)s)")

    serve = commands.add_parser("serve", help="receive writes into memory regions",
                                description="Register memory regions, open QPs and "
                                "print every message that arrives.")
    common(serve)
    serve.add_argument("--qp", type=_QPN, action="append", required=True,
                       help="a local QP to receive on (repeatable)")
    serve.add_argument("--region", type=_region, action="append", required=True,
                       help="a memory region BASE:SIZE:RKEY, e.g. 0:1MiB:7 (repeatable)")
    serve.add_argument("--count", type=_number, default=0,
                       help="exit after this many messages (default 0: run until "
                       "interrupted)")
    return parser


def _open_port(args: argparse.Namespace) -> PacketPort:
    if args.socket is not None:
        return NanomsgPort(args.socket, port=args.port,
                           connect_timeout_s=args.connect_timeout)
    return RawSocketPort(args.interface)


def _write(args: argparse.Namespace, port: PacketPort) -> int:
    config = TransportConfig(mtu=args.mtu, rto=args.rto, max_rto=max(args.rto, 1.0))
    clock = MonotonicClock()
    endpoint = Endpoint(port, args.local, clock=clock, config=config)
    endpoint.open_qp(args.qp, args.peer, remote_qpn=args.remote_qp)
    data = bytes(range(256)) * (args.size // 256) + bytes(range(args.size % 256))
    start = clock.now()
    handle = endpoint.write(args.qp, data, args.remote_addr, rkey=args.rkey)
    finished = run_until(endpoint, lambda: handle.done, args.timeout)
    elapsed = clock.now() - start
    stats = endpoint.qp_stats(args.qp)
    summary = (f"packets {stats.packets_sent}, retransmits {stats.retransmits}, "
               f"loss reports {stats.loss_reports}")
    if not finished:
        print(f"mrc-host: timed out after {elapsed:.3f} s ({summary})", file=sys.stderr)
        return 1
    if not handle.ok:
        print(f"mrc-host: write failed: {handle.error} ({summary})", file=sys.stderr)
        return 1
    rate = args.size / elapsed / 1e6 if elapsed > 0 else 0.0
    print(f"wrote {args.size} bytes to {args.peer} QP {args.qp} in {elapsed:.3f} s "
          f"({rate:.2f} MB/s; {summary})")
    return 0


def _serve(args: argparse.Namespace, port: PacketPort) -> int:
    received: list[Completion] = []

    def show(completion: Completion) -> None:
        received.append(completion)
        status = "ok" if completion.ok else f"error: {completion.error}"
        imm = "" if completion.imm is None else f" imm {completion.imm:#x}"
        print(f"QP {completion.qp} message {completion.msg_seq}: {completion.length} "
              f"bytes at {completion.addr:#x} rkey {completion.rkey:#x}{imm} ({status})",
              flush=True)

    endpoint = Endpoint(port, args.local, on_complete=show)
    for qp in dict.fromkeys(args.qp):
        endpoint.open_qp(qp)
    for region in args.region:
        endpoint.register(region)
    try:
        finished = run_until(endpoint, lambda: 0 < args.count <= len(received),
                             args.timeout)
    except KeyboardInterrupt:
        finished = args.count == 0
    print(f"{len(received)} messages; dropped frames: {endpoint.stats.as_dict()}",
          file=sys.stderr)
    return 0 if finished or args.count == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        rkeys = [region.rkey for region in args.region]
        if len(set(rkeys)) != len(rkeys):
            parser.error("--region: each region needs its own rkey")
    try:
        port = _open_port(args)
    except OSError as error:
        where = args.socket or args.interface
        print(f"mrc-host: cannot open {where}: {error}", file=sys.stderr)
        return 1
    try:
        return _write(args, port) if args.command == "write" else _serve(args, port)
    except ConnectionError as error:
        print(f"mrc-host: {error}", file=sys.stderr)
        return 1
    finally:
        port.close()
