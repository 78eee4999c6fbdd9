"""One simulation on two processes: the NICs (with their hosts and the controller) in
the first, every switch in the second.

Every cable between them is a NIC's cable to its T0, and a frame put on it at virtual
time t arrives at t + its serialisation + the cable's delay, never before
t + ``lookahead`` (the cable's delay). So each process may run the window
[T, T + lookahead) alone, T being the earliest call due anywhere: what it sends to the
other in that window arrives at or after the window's end. After each window the
processes swap what crossed (``Channel.outbox``) and the first picks the next window;
a window with nothing due anywhere is skipped.

The result is the one-process run's, call for call: every process builds the whole
network (the same cables and channel indices), a frame on a NIC's cable takes its
place among the calls due with it from what its sending side did
(``EventLoop.call_at``, in one process too), loss draws on those cables are per
direction, and a run's end is cut at a virtual time, never at a call
(``fabric.runner``). Over several machines the same windows would go over sockets
instead of a socket pair; see docs/simulator-performance.md, "Several processes", for
that and its limits.
"""

from __future__ import annotations

import argparse
import atexit
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.plan import FabricPlan
from host import TransportConfig

from .events import Signal
from .link import Remote
from .network import Network, NetworkConfig
from .spin import Spinner, spin_budget
from .wire import Wire

__all__ = ["OneProcess", "Setup", "Workers", "add_procs_option", "counters", "default_procs",
           "partition_devices", "remote_channels"]

_ROOT = Path(__file__).resolve().parents[2]  # where ``fabric`` imports from
WORKER_MODULE = "fabric.sim.partition_worker"  # what a switch process runs

# How long a simulation process may take to start (spawn, imports, its P4Runtime
# servers) and to answer a window, before it counts as lost (wall clock; generous,
# a loaded machine stretches both).
START_TIMEOUT_S = 300.0
WINDOW_TIMEOUT_S = 600.0


def default_procs() -> int:
    """The machine's cores (what ``--procs`` defaults to)."""
    return os.cpu_count() or 1


def add_procs_option(parser: argparse.ArgumentParser) -> None:
    """``--procs N`` of the commands that run scenarios."""
    def procs(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a number of processes (1 or more)")
        return value

    parser.add_argument("--procs", type=procs, default=default_procs(), metavar="N",
                        help="processes per run: 1, or 2 or more for two (the NICs and "
                             "controller in one, the switches in the other); the report "
                             "is the same either way (default: the machine's cores, "
                             f"{default_procs()})")


def partition_devices(plan: FabricPlan, procs: int) -> list[frozenset[str]]:
    """The devices of each process: the NICs (with their hosts and the controller),
    then every switch, when ``procs`` is 2 or more; everything in one when it is 1.
    Two at most: the order of the frames that meet at a device is taken from the
    calls that sent them, which must all be one process's (``EventLoop.call_at``)."""
    if procs < 2:
        return [frozenset(plan.device_names())]
    fabric = plan.fabric
    return [frozenset(nic.name for nic in fabric.nics()),
            frozenset(switch.name for switch in fabric.switches())]


@dataclass
class Setup:
    """What a switch process needs to build its part of the network."""

    plan: FabricPlan
    config: NetworkConfig
    transport: TransportConfig
    owned: frozenset[str]
    # schedules the run's own calls on the network before its first window (the
    # scenario's failures); a module-level function, or a partial of one, to pickle
    prepare: Callable[[Network], object]
    spin_s: float = 0.0  # how long it may spin before blocking (spin.spin_budget)


def remote_channels(network: Network, outbox: list[Remote]) -> None:
    """Channels toward devices this process does not run send into ``outbox``."""
    for channel in network.channels:
        far = channel.far
        if far is not None and far.name not in network.owned:  # type: ignore[attr-defined]
            channel.outbox = outbox


def counters(network: Network) -> dict[str, Any]:
    """What this process counted, for the first process's report."""
    return {
        "cables": {name: (c.frames, c.bytes, c.dropped_down, c.dropped_loss)
                   for name, cable in network.cables.items()
                   for c in (cable.counters,) if c.frames or c.dropped},
        "hops": {name: network.devices[name].counters.hops for name in network.owned},
        "pfc": {name: device.pfc.counters for name, device in network.devices.items()
                if name in network.owned and device.pfc is not None},
    }


class OneProcess:
    """A run in this process alone, driven as a partitioned one is."""

    count = 1

    def __init__(self, network: Network) -> None:
        self.network = network

    def prepare(self) -> None:
        """As ``Workers.prepare``: nothing to do here."""

    def run(self, until: float, signal: Signal | None = None) -> bool:
        """As ``Workers.run``."""
        return self.network.env.run_window(until, signal)

    def finish(self) -> list[dict[str, Any]]:
        return []

    def close(self) -> None:
        pass


class Workers:
    """The switch processes of a partitioned run, driven from the first process."""

    def __init__(self, network: Network, parts: list[frozenset[str]],
                 transport: TransportConfig, prepare: Callable[[Network], object]) -> None:
        self.network = network
        self.lookahead = network.config.link_delay_us
        owner = {name: k for k, part in enumerate(parts) for name in part}
        # per channel index: the process whose device it delivers to
        self._owner = [owner[channel.far.name] if channel.far is not None  # type: ignore[attr-defined]
                       else 0 for channel in network.channels]
        self._outbox: list[Remote] = []
        remote_channels(network, self._outbox)
        self._inbox: list[list[Remote]] = [[] for _ in parts]
        self._next: list[float | None] = [None for _ in parts]
        self.count = len(parts)  # processes in the run, this one included
        spin_s = spin_budget(self.count, default_procs())
        self._spinners = [Spinner(spin_s) for _ in parts[1:]]
        self._procs: list[subprocess.Popen[bytes]] = []
        self._conns: list[Wire] = []
        self._finished = False
        try:
            for owned in parts[1:]:
                proc, conn = _idle_process()
                self._procs.append(proc)
                self._conns.append(conn)
                self._send(len(self._conns),
                           Setup(network.plan, network.config, transport, owned, prepare,
                                 spin_s))
            for k in range(1, len(parts)):
                self._receive(k, "ready", START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    def _died(self, k: int) -> RuntimeError:
        try:
            code: object = self._procs[k - 1].wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = "none yet"
        return RuntimeError(f"simulation process {k} died (exit code {code})")

    def _send(self, k: int, message: object) -> None:
        try:
            self._conns[k - 1].send(message)
        except OSError:
            raise self._died(k) from None

    def _receive(self, k: int, expected: str, timeout_s: float) -> Any:
        conn = self._conns[k - 1]
        if not conn.poll(timeout_s):
            raise RuntimeError(f"simulation process {k} did not answer in {timeout_s:.0f} s")
        try:
            kind, body = conn.recv()
        except (EOFError, OSError):
            raise self._died(k) from None
        if kind == "error":
            raise RuntimeError(f"simulation process {k} failed:\n{body}")
        assert kind == expected, (kind, expected)
        return body

    def prepare(self) -> None:
        """Have the other processes schedule the run's own calls and put what they
        built out of the garbage collector's sight (a full collection: 70-150 ms on
        the small fabric), before the caller starts its clock: otherwise the first
        window waits for it and a timed run counts it."""
        for k in range(1, self.count):
            self._send(k, ("prepare", None))
        for k in range(1, self.count):
            self._receive(k, "prepared", START_TIMEOUT_S)

    def run(self, until: float, signal: Signal | None = None) -> bool:
        """Run every process's calls due before ``until``, window by window; or stop
        this process once ``signal`` has been processed (True then: the others are at
        the end of that window, which nothing this process sends can reach before)."""
        env = self.network.env
        lookahead = self.lookahead
        while True:
            start = self._earliest(until)
            if start >= until:
                return env.run_window(until, signal)
            window_end = min(start + lookahead, until)
            for k in range(1, self.count):
                self._send(k, ("run", window_end, self._inbox[k]))
                self._inbox[k] = []
            stopped = env.run_window(window_end, signal)
            self._route(self._outbox)
            self._outbox.clear()
            for k in range(1, self.count):
                self._spinners[k - 1].wait(self._conns[k - 1])
                sent, self._next[k] = self._receive(k, "ran", WINDOW_TIMEOUT_S)
                self._route(sent)
            if stopped:
                return True

    def _earliest(self, until: float) -> float:
        """When the next call is due in any process (``until`` if none is before it):
        this process's next call, the others' as they last told, and the frames this
        process has for them. Plain loops: it runs once a window, thousands of times a
        run, where comprehensions cost a frame each."""
        start = until
        first = self.network.env.next_time()
        if first is not None and first < start:
            start = first
        for k in range(1, self.count):
            then = self._next[k]
            if then is not None and then < start:
                start = then
            for remote in self._inbox[k]:
                if remote[0] < start:
                    start = remote[0]
        return start

    def _route(self, sent: list[Remote]) -> None:
        channels = self.network.channels
        for remote in sent:
            k = self._owner[remote[3]]
            if k == 0:
                at, sent, key, index, kind, payload = remote
                channels[index].deliver(at, sent, key, kind, payload)
            else:
                self._inbox[k].append(remote)

    def finish(self) -> list[dict[str, Any]]:
        """What each other process counted (``counters``); they run no more windows."""
        for k in range(1, self.count):
            self._send(k, ("finish", None))
        counted = [self._receive(k, "counters", WINDOW_TIMEOUT_S)
                   for k in range(1, self.count)]
        self._finished = True
        return counted

    def close(self) -> None:
        """Let the other processes go: they stop their P4Runtime servers (after the
        controller has closed its connections to them, so that nobody's calls are cut)
        and wait for this process's next partitioned run; after a run that did not
        finish they are ended."""
        for k, (proc, conn) in enumerate(zip(self._procs, self._conns, strict=True), 1):
            if self._finished:
                try:
                    self._send(k, ("release", None))
                    self._receive(k, "released", START_TIMEOUT_S)
                    _IDLE.append((proc, conn))
                    continue
                except RuntimeError:
                    pass
            _end(proc, conn)
        self._conns.clear()
        self._procs.clear()


# Switch processes between runs: starting one (an interpreter, its imports) costs
# about a second, a run of the demo fabric less.
_IDLE: list[tuple[subprocess.Popen[bytes], Wire]] = []


def _idle_process() -> tuple[subprocess.Popen[bytes], Wire]:
    """A switch process waiting for a run: one left from an earlier run, or a new one
    (a fresh interpreter, not a fork of this one and its gRPC threads, nor
    multiprocessing's spawn, which would run the caller's main module again), talking
    over a socket pair."""
    while _IDLE:
        proc, conn = _IDLE.pop()
        if proc.poll() is None:
            return proc, conn
        conn.close()
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE, str(theirs.fileno())],
                            pass_fds=(theirs.fileno(),), cwd=_ROOT)
    theirs.close()
    return proc, Wire(ours)


def _end(proc: subprocess.Popen[bytes], conn: Wire) -> None:
    """Close the process's end (it exits on that); kill it if it does not."""
    conn.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@atexit.register
def _end_idle() -> None:
    while _IDLE:
        _end(*_IDLE.pop())
