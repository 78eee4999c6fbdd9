#!/usr/bin/env python3
"""Benchmarks of bm as a switch process (``python -m behavioral_model switch``), measured
from outside, as a controller and a traffic generator see it.

    python scripts/bench_switch.py             # full run
    python scripts/bench_switch.py --quick     # short runs (CI smoke test)

(a) P4Runtime write throughput: 10,000 LPM entries (distinct IPv6 /48 .. /64 prefixes)
    written in WriteRequests of 500 updates into a switch started with ``--no-p4`` that
    was given the router pipeline over SetForwardingPipelineConfig. The clock covers
    the Write RPCs only (requests are built beforehand): one after the other through
    the Python client (pure-Python protobuf 3.20 serializes each request), then with
    4 RPCs in flight (the client serializes while the switch applies), then with the
    requests serialized beforehand (the switch's own cost); wildcard Reads check that
    every entry is there after each pass. The program is ``examples/ipv6_router.p4`` with
    the LPM table's ``size`` raised to fit (4096 there; our target enforces sizes, as
    BMv2 does). Goal: >= 10,000 entries/s.
(b) End-to-end packets/s through the nanomsg socket (``--packet-in``, BMv2's framing,
    what PTF's nn platform uses) for ``examples/ipv6_router.p4`` with 1,000 /48 routes,
    100 nexthops and 100 ternary ACL rules (all NoAction, so every packet should come
    back), written over P4Runtime. N frames (1,000 distinct ones, replayed) are sent
    into port 1 as fast as the socket accepts them (back-pressure, no pacing) by one
    thread while another checks each frame that comes back against the expected
    output and counts it; a warm-up precedes the timed run. Printed: sent, received,
    lost (never hidden: a dropped frame is counted as lost) and received/s from the
    first send to the last frame received, plus the switch process's CPU time (from
    /proc) per received frame and this client's own CPU time (to show which side was
    the bottleneck). The traffic generator is ``--client sp`` (default): our SP
    dialer (``behavioral_model/ports/sp_dialer.py``), 50 frames per write, as a
    hardware or C traffic generator would offer load; ``--client pynng`` sends one
    message per pynng call as PTF does, and on a 2-core machine that client, not
    the switch, is the limit.
    Goal: >= 80,000 pps (BMv2 simple_switch, optimised build).

Exit status 0 unless something is broken (a failed write, a missing entry, no frame
forwarded, a frame forwarded wrongly); missing a goal is reported, not an error.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# gRPC core logs an INFO line when a server it was connected to shuts down.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc  # noqa: E402
import pynng  # noqa: E402
from p4.v1 import p4runtime_pb2  # noqa: E402

from behavioral_model.frontend.p4info import generate_p4info  # noqa: E402
from behavioral_model.p4runtime.device_config import make_bundle  # noqa: E402
from behavioral_model.ports.sp_dialer import SPPairDialer  # noqa: E402
from behavioral_model.ports.sp_frames import frame_messages  # noqa: E402
from behavioral_model.program import load_program  # noqa: E402
from fabric.procs.free_ports import free_tcp_port  # noqa: E402
from p4rt_client import (  # noqa: E402
    P4InfoHelper,
    P4RuntimeSession,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
    update,
)

ROUTER_P4 = ROOT / "examples" / "ipv6_router.p4"
GOAL_WRITES = 10_000
GOAL_PPS = 80_000
CPU_PORT = 255

NN_HEADER = struct.Struct("<iii")  # type, port, more: BMv2's packet-in framing
NN_PACKET_IN, NN_PACKET_OUT = 3, 4

ROUTE_BASE = 0x2001_0DB8 << 96        # route i: 2001:db8:i::/48
ACL_BASE = 0x2001_0DB8_FFFF << 80     # ACL rule k: sources 2001:db8:ffff:k::/64
CLIENT_BASE = 0x2001_0DB8_AAAA << 80
N_ROUTES, N_NEXTHOPS, N_ACL, N_DISTINCT = 1000, 100, 100, 1000
IPV6_HLIM = 21
IPV6_SRC = slice(22, 38)
IPV6_DST = slice(38, 54)


# -- the switch process ------------------------------------------------------------------
@dataclass
class Switch:
    proc: subprocess.Popen[bytes]
    grpc_addr: str
    ipc: str

    def cpu_seconds(self) -> float | None:
        """utime + stime of the switch process, or None without /proc."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def switch_process(workdir: Path, *args: str) -> Iterator[Switch]:
    grpc_addr = f"127.0.0.1:{free_tcp_port()}"
    ipc = f"ipc://{workdir}/bench-{len(list(workdir.iterdir()))}.ipc"
    log = open(workdir / "switch.log", "ab")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-m", "behavioral_model", "switch", *args, "--packet-in", ipc,
         "--grpc-server-addr", grpc_addr, "--cpu-port", str(CPU_PORT)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    switch = Switch(proc, grpc_addr, ipc)
    try:
        wait_grpc(switch)
        yield switch
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def wait_grpc(switch: Switch, timeout: float = 60.0) -> None:
    from p4rt_client.channel import wait_for_grpc

    try:
        wait_for_grpc(switch.grpc_addr, timeout, alive=lambda: switch.proc.poll() is None)
    except TimeoutError:
        if switch.proc.poll() is not None:
            raise SystemExit("bench_switch: the switch exited at start-up "
                             "(see its log)") from None
        raise SystemExit("bench_switch: the switch does not answer") from None


def connect(switch: Switch, program: Path, helper_out: list[P4InfoHelper]
            ) -> P4RuntimeSession:
    """A primary session that pushed ``program`` (P4Info + source bundle)."""
    p4info = generate_p4info(load_program(program).checked)
    session = P4RuntimeSession(switch.grpc_addr, 0, (0, 1))
    session.connect()
    session.set_pipeline(p4info, make_bundle(program))
    helper_out.append(P4InfoHelper(p4info))
    return session


# -- (a) write throughput ------------------------------------------------------------------
def _lpm_updates(helper: P4InfoHelper, entries: int, kind: int) -> list[p4runtime_pb2.Update]:
    ups = []
    for i in range(entries):
        # /48 .. /64: i in bits 80..95 keeps them distinct; a longer prefix also gets
        # some bits of its own below bit 80.
        plen = 48 + (i % 17)
        extra = (i * 7919) % (1 << (plen - 48))
        prefix = ROUTE_BASE | (i << 80) | (extra << (128 - plen))
        entry = helper.table_entry("ipv6_lpm", {"dst_addr": (prefix, plen)},
                                   None if kind == p4runtime_pb2.Update.DELETE
                                   else "set_nexthop", {"nexthop": i % 1000})
        ups.append(update(kind, entry))
    return ups


def _requests(session: P4RuntimeSession, ups: list[p4runtime_pb2.Update], batch: int
              ) -> list[p4runtime_pb2.WriteRequest]:
    out = []
    for start in range(0, len(ups), batch):
        request = p4runtime_pb2.WriteRequest(device_id=session.device_id)
        request.election_id.high, request.election_id.low = session.election_id
        request.updates.extend(ups[start:start + batch])
        out.append(request)
    return out


IN_FLIGHT = 4  # Write RPCs a pipelining client keeps outstanding


def pipelined_write(session: P4RuntimeSession, requests: list[p4runtime_pb2.WriteRequest],
                    in_flight: int) -> None:
    """Send ``requests`` keeping up to ``in_flight`` Write RPCs outstanding, so this
    client serializes the next request while the switch applies the previous ones
    (the requests touch distinct entries, so their order does not matter); raises
    P4RuntimeWriteError for the first that failed."""
    assert session.stub is not None
    pending: deque = deque()
    for request in requests:
        if len(pending) >= in_flight:
            _wait(pending.popleft())
        pending.append(session.stub.Write.future(request))
    while pending:
        _wait(pending.popleft())


def _wait(future: grpc.Future) -> None:
    try:
        future.result()
    except grpc.RpcError as error:
        raise P4RuntimeWriteError(error) from None


def bench_writes(workdir: Path, entries: int, batch: int) -> bool:
    """Three timed passes over the same entries: INSERT through the Python client
    (its protobuf serialization inside the clock), DELETE and INSERT again with the
    requests serialized beforehand (the server's own cost: parsing, checks, tables)."""
    text = ROUTER_P4.read_text()
    bigger, n = re.subn(r"(table ipv6_lpm \{.*?size = )\d+;",
                        rf"\g<1>{max(entries, 4096)};", text, flags=re.DOTALL)
    assert n == 1, "examples/ipv6_router.p4: ipv6_lpm size not found"
    program = workdir / "ipv6_router_big.p4"
    program.write_text(bigger)
    with switch_process(workdir, "--no-p4") as switch:
        helpers: list[P4InfoHelper] = []
        session = connect(switch, program, helpers)
        helper = helpers[0]
        probe = p4runtime_pb2.TableEntry(table_id=helper.get_id("tables", "ipv6_lpm"))
        try:
            inserts = _requests(session, _lpm_updates(helper, entries,
                                                      p4runtime_pb2.Update.INSERT), batch)
            deletes = _requests(session, _lpm_updates(helper, entries,
                                                      p4runtime_pb2.Update.DELETE), batch)
            t0 = time.perf_counter()
            for request in inserts:
                session.write_request(request)
            client_s = time.perf_counter() - t0
            r0 = time.perf_counter()
            count = len(session.read([probe]))
            read_s = time.perf_counter() - r0
            for request in deletes:
                session.write_request(request)
            t0 = time.perf_counter()
            pipelined_write(session, inserts, IN_FLIGHT)
            pipelined_s = time.perf_counter() - t0
            count_pipelined = len(session.read([probe]))
            assert session.channel is not None
            raw_write = session.channel.unary_unary(
                "/p4.v1.P4Runtime/Write", request_serializer=None,
                response_deserializer=p4runtime_pb2.WriteResponse.FromString)
            raw_deletes = [r.SerializeToString() for r in deletes]
            raw_inserts = [r.SerializeToString() for r in inserts]
            t0 = time.perf_counter()
            for data in raw_deletes:
                raw_write(data)
            delete_s = time.perf_counter() - t0
            left = len(session.read([probe]))
            t0 = time.perf_counter()
            for data in raw_inserts:
                raw_write(data)
            server_s = time.perf_counter() - t0
            count2 = len(session.read([probe]))
            raw_read = session.channel.unary_stream(
                "/p4.v1.P4Runtime/Read", request_serializer=None, response_deserializer=None)
            read_request = p4runtime_pb2.ReadRequest(device_id=session.device_id)
            read_request.entities.add().table_entry.CopyFrom(probe)
            r0 = time.perf_counter()
            read_bytes = sum(len(chunk) for chunk in raw_read(read_request.SerializeToString()))
            raw_read_s = time.perf_counter() - r0
        except P4RuntimeWriteError as error:
            print(f"(a) FAILED: {error}")
            return False
        except Exception as error:  # a raw RPC failed: grpc.RpcError
            print(f"(a) FAILED: {type(error).__name__}: {error}")
            return False
        finally:
            session.close()

    def verdict(rate: float) -> str:
        return f"goal >= {GOAL_WRITES:,}: {'met' if rate >= GOAL_WRITES else 'NOT met'}"

    print(f"(a) P4Runtime Write, {entries:,} LPM entries in {len(inserts)} WriteRequests of "
          f"{batch}:")
    rate = entries / client_s
    print(f"    INSERT, Python client (its serialization in the clock): {client_s:.2f} s = "
          f"{rate:,.0f} entries/s  {verdict(rate)}")
    rate = entries / pipelined_s
    label = f"INSERT, Python client, {IN_FLIGHT} requests in flight:"
    print(f"    {label:<56} {pipelined_s:.2f} s = {rate:,.0f} entries/s  {verdict(rate)}")
    rate = entries / server_s
    print(f"    INSERT, requests serialized beforehand (server side):    {server_s:.2f} s = "
          f"{rate:,.0f} entries/s  {verdict(rate)}")
    print(f"    DELETE, requests serialized beforehand:                  {delete_s:.2f} s = "
          f"{entries / delete_s:,.0f} entries/s")
    print(f"    wildcard Read of the table: {count:,} entries in {read_s:.2f} s "
          f"({count / read_s:,.0f} entries/s); the switch's own cost (replies not "
          f"parsed, {read_bytes:,} bytes): {raw_read_s:.2f} s ({count / raw_read_s:,.0f} "
          f"entries/s)")
    if (count, count_pipelined, left, count2) != (entries, entries, 0, entries):
        print(f"(a) FAILED: read back {count} / {count_pipelined} / {left} / {count2} "
              f"entries after insert / pipelined insert / delete / insert, expected "
              f"{entries} / {entries} / 0 / {entries}")
        return False
    return True


# -- (b) packets through the nanomsg socket ----------------------------------------------------
def route_prefix(i: int) -> int:
    return ROUTE_BASE | (i << 80)


def program_router(session: P4RuntimeSession, helper: P4InfoHelper) -> None:
    ups = []
    for i in range(N_ROUTES):
        ups.append(update(p4runtime_pb2.Update.INSERT, helper.table_entry(
            "ipv6_lpm", {"dst_addr": (route_prefix(i), 48)}, "set_nexthop",
            {"nexthop": i % N_NEXTHOPS})))
    for n in range(N_NEXTHOPS):
        ups.append(update(p4runtime_pb2.Update.INSERT, helper.table_entry(
            "nexthop", {"nexthop": n}, "forward",
            {"port": 2 + n % 8, "dmac": 0x0200_0000_0000 | n, "smac": 0x0200_0000_FF00})))
    mask64 = ((1 << 64) - 1) << 64
    for k in range(N_ACL):
        match: dict[str, object] = {"src_addr": (ACL_BASE | (k << 64), mask64)}
        if k % 3 == 0:
            match["next_hdr"] = (17, 0xFF)
        ups.append(update(p4runtime_pb2.Update.INSERT, helper.table_entry(
            "acl", match, "NoAction", priority=N_ACL - k + 10)))
    for start in range(0, len(ups), 500):
        session.write(ups[start:start + 500])


def traffic() -> list[tuple[bytes, int, bytes]]:
    """(frame, egress port, expected output) for N_DISTINCT distinct packets."""
    from scapy.layers.inet import UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether

    template = bytes(Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
                     / IPv6(src="2001:db8:aaaa::1", dst="2001:db8::1", hlim=64)
                     / UDP(sport=4791, dport=4791) / (b"\x00" * 20))
    out = []
    for i in range(N_DISTINCT):
        frame = bytearray(template)
        src = (ACL_BASE | (((i // 5) % N_ACL) << 64) if i % 5 == 0 else CLIENT_BASE) | (i + 1)
        frame[IPV6_SRC] = src.to_bytes(16, "big")
        route = i % N_ROUTES
        frame[IPV6_DST] = (route_prefix(route) | (i + 1)).to_bytes(16, "big")
        n = route % N_NEXTHOPS
        expected = bytearray(frame)
        expected[0:6] = (0x0200_0000_0000 | n).to_bytes(6, "big")
        expected[6:12] = (0x0200_0000_FF00).to_bytes(6, "big")
        expected[IPV6_HLIM] = 63
        out.append((bytes(frame), 2 + n % 8, bytes(expected)))
    return out


@dataclass
class Run:
    sent: int
    received: int
    seconds: float
    wrong: int
    cpu: float | None
    client_cpu: float

    @property
    def lost(self) -> int:
        return self.sent - self.received

    @property
    def pps(self) -> float:
        return self.received / self.seconds if self.seconds > 0 else 0.0


SEND_CHUNK = 50  # frames per write (divides N_DISTINCT)


class SPClient:
    """The traffic generator's end of the packet-in socket: our SP dialer, frames
    framed once and sent ``SEND_CHUNK`` per write."""

    name = "SP dialer (plain sockets)"

    def __init__(self, addr: str) -> None:
        self.peer = SPPairDialer(addr)

    def prepare(self, messages: list[bytes]) -> list[bytes]:
        return [frame_messages([m], self.peer.ipc) for m in messages]

    def send(self, prepared: list[bytes]) -> None:
        self.peer.send_framed(b"".join(prepared))

    def recv(self, timeout_s: float) -> list[bytes]:
        return self.peer.recv_batch(timeout_s)

    def close(self) -> None:
        self.peer.close()


class PynngClient:
    """The same through pynng, as PTF's nn platform sends (one message per call)."""

    name = "pynng Pair0 (as PTF)"

    def __init__(self, addr: str) -> None:
        self.sock = pynng.Pair0(send_timeout=10_000, recv_timeout=1000,
                                send_buffer_size=1024, recv_buffer_size=1024)
        self.sock.dial(addr, block=True)

    def prepare(self, messages: list[bytes]) -> list[bytes]:
        return messages

    def send(self, prepared: list[bytes]) -> None:
        send = self.sock.send
        for msg in prepared:
            send(msg)

    def recv(self, timeout_s: float) -> list[bytes]:
        self.sock.recv_timeout = int(timeout_s * 1000)
        try:
            return [self.sock.recv()]
        except pynng.Timeout:
            return []

    def close(self) -> None:
        self.sock.close()


Client = SPClient | PynngClient


def blast(client: Client, packets: list[tuple[bytes, int, bytes]], count: int,
          switch: Switch, idle_s: float = 1.0) -> Run:
    """Send ``count`` frames into port 1 from this thread while a receiver thread
    checks and counts what comes back; the receiver stops ``idle_s`` after the last
    frame (that idle time is not part of the measured interval)."""
    messages = [NN_HEADER.pack(NN_PACKET_IN, 1, len(f)) + f for f, _, _ in packets]
    expected = {NN_HEADER.pack(NN_PACKET_OUT, port, len(exp)) + exp
                for _, port, exp in packets}
    prepared = client.prepare(messages)
    n = len(prepared)
    cycle = prepared + prepared[:SEND_CHUNK]  # a chunk may wrap around the list
    received = 0
    wrong = 0
    last_rx = 0.0
    sending_done = threading.Event()

    def receive() -> None:
        nonlocal received, wrong, last_rx
        while received + wrong < count:
            msgs = client.recv(idle_s)
            if not msgs:
                if sending_done.is_set():
                    return
                continue
            last_rx = time.perf_counter()
            for msg in msgs:
                if msg in expected:
                    received += 1
                else:
                    wrong += 1

    receiver = threading.Thread(target=receive, name="bench-rx")
    cpu0 = switch.cpu_seconds()
    client0 = time.process_time()
    receiver.start()
    t0 = time.perf_counter()
    send = client.send
    for start in range(0, count, SEND_CHUNK):
        first = start % n
        send(cycle[first:first + min(SEND_CHUNK, count - start)])
    sending_done.set()
    receiver.join()
    cpu1 = switch.cpu_seconds()
    client_cpu = time.process_time() - client0
    cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    return Run(count, received, (last_rx or time.perf_counter()) - t0, wrong, cpu,
               client_cpu)


def bench_packets(workdir: Path, packets: int, warmup: int, client_kind: str) -> bool:
    with switch_process(workdir, "--no-p4") as switch:
        helpers: list[P4InfoHelper] = []
        session = connect(switch, ROUTER_P4, helpers)
        try:
            program_router(session, helpers[0])
        except P4RuntimeWriteError as error:
            print(f"(b) FAILED to program the router: {error}")
            return False
        finally:
            session.close()
        client: Client = (PynngClient if client_kind == "pynng" else SPClient)(switch.ipc)
        try:
            frames = traffic()
            warm = blast(client, frames, warmup, switch)
            run = blast(client, frames, packets, switch)
        finally:
            client.close()
    cpu = (f"; switch CPU {run.cpu:.2f} s = {1e6 * run.cpu / max(1, run.received):.1f} "
           f"us/frame, {run.received / run.cpu:,.0f} frames per CPU-second"
           if run.cpu else "")
    cpu += (f"; this client's CPU {run.client_cpu:.2f} s of {run.seconds:.2f} s, on "
            f"{os.cpu_count()} CPUs")
    print(f"(b) nn socket, examples/ipv6_router.p4 (1,000 routes, 100 nexthops, 100 ACL "
          f"rules), client {client.name}: sent {run.sent:,}, received {run.received:,}, "
          f"lost {run.lost:,}"
          f"{f', WRONG {run.wrong:,}' if run.wrong else ''} in {run.seconds:.2f} s = "
          f"{run.pps:,.0f} pps  goal >= {GOAL_PPS:,}: "
          f"{'met' if run.pps >= GOAL_PPS and not run.lost else 'NOT met'}")
    print(f"    (warm-up: {warm.sent:,} sent, {warm.received:,} received, {warm.pps:,.0f} "
          f"pps{cpu})")
    if run.wrong or warm.wrong:
        print("(b) FAILED: frames came back that the router should not have produced")
        return False
    if run.received == 0:
        print("(b) FAILED: no frame came back")
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="short runs: 2,000 entries, 3,000 packets (CI smoke test)")
    parser.add_argument("--entries", type=int, help="LPM entries to write (10,000)")
    parser.add_argument("--batch", type=int, default=500,
                        help="updates per WriteRequest (500)")
    parser.add_argument("--packets", type=int, help="frames in the timed run (200,000)")
    parser.add_argument("--client", choices=("sp", "pynng"), default="sp",
                        help="traffic generator of (b): our SP dialer (default) or pynng")
    parser.add_argument("--only", choices=("writes", "packets"),
                        help="run only one of the two benchmarks")
    args = parser.parse_args(argv)
    entries = args.entries or (2_000 if args.quick else 10_000)
    packets = args.packets or (3_000 if args.quick else 200_000)
    warmup = 1_000 if args.quick else 10_000
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench_switch-") as tmp:
        workdir = Path(tmp)
        benches = [("a", lambda: bench_writes(workdir, entries, args.batch)),
                   ("b", lambda: bench_packets(workdir, packets, warmup, args.client))]
        for label, bench in benches:
            if args.only not in (None, {"a": "writes", "b": "packets"}[label]):
                continue
            try:
                ok &= bench()
            except (P4RuntimeWriteError, P4RuntimeSessionError) as error:
                print(f"({label}) FAILED: {error}")
                ok = False
        if not ok:
            log = (workdir / "switch.log")
            if log.exists():
                print("---- switch log (last lines) ----")
                print("\n".join(log.read_text(errors="replace").splitlines()[-30:]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
