"""A scenario (``fabric/scenarios/*.yaml``, the simulator's format) on real processes:
the fabric comes up on the chosen wiring and target, the controller's reactor (the code
behind ``mrc-ctl watch``) programs every device over gRPC and answers the NICs' EV
events, host/ endpoints write through the NICs' host ports on the wall clock, and the
scenario's link failures are injected into the wiring at their times.

Wall-clock time: a Python switch forwards thousands of packets a second where the
simulator's links carry a million, so every time in the scenario (failures, the
transport's timeouts, the outcome's bounds) is multiplied by ``time_scale``. What is
measured fills the simulator's ``RunResult`` so that ``fabric.outcomes`` judges both
alike: per-path packets from the sending NIC's per-slot counters, EV events from the
controller's digests, packets lost from the switches' port counters (sent on one end
of a cable, never received at the other), all read over P4Runtime, so the same on bm
and on BMv2.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.device import PipelineError
from controller.events import EventLog
from controller.health import read_health
from controller.plan import FabricPlan, make_plan
from controller.plan import p4names as n
from controller.react import LinkState, Reactor
from fabric.metrics import EvEvent, Metrics
from fabric.runner import RunResult, check_names, transport_config
from fabric.scenario import Scenario, ScenarioError
from fabric.workload import WriteRecord, ipv6_text, open_qps, post_writes, region
from host import Endpoint, MonotonicClock
from host.completions import WriteHandle
from host.ports import PacketPort
from protocol import constants as c

from .host_ports import PacedPort, open_host_port
from .netns import NetnsError
from .process_fabric import ProcessFabric
from .wiring import FabricSetup

__all__ = ["DEFAULT_SCHEDULING_ALLOWANCE_S", "DEFAULT_TIME_SCALE", "ProcsRun",
           "ProcsRunError", "run_procs_scenario", "scaled_for_procs", "with_topology"]

DEFAULT_TIME_SCALE = 1000.0
# How long a device process may wait for a core on a busy machine [ours, measured]: on
# 2 cores at a load of 10-20, round trips through 12 BMv2 processes spread by more than
# 50 ms between paths. A host on the wall clock cannot tell a dead path from a device
# the OS has not run yet, so it takes a missing packet for lost only when a packet sent
# this much later (on top of the scaled reordering window) has arrived. A bound on how
# soon a loss is seen grows by twice as much: the window, and the round trip of that
# later packet, which the same busy machine stretches.
DEFAULT_SCHEDULING_ALLOWANCE_S = 0.1
PROGRAM_TIMEOUT_S = 180.0  # every device compiles its program when it is pushed
POLL_S = 0.002
DELIVERY_GRACE_S = 10.0  # after the last write completed, for the receivers to catch up
FRAME_OVERHEAD = 128  # bytes of headers around a data packet's payload, roughly
_REASONS = {"always-skip": c.EV_EVENT_ALWAYS_SKIP, "host-loss": c.EV_EVENT_HOST_LOSS,
            "restored": c.EV_EVENT_RESTORED, "floor": c.EV_EVENT_FLOOR}

Progress = Callable[[str], None]
# called with the fabric and the controller before either starts (metrics: their collectors)
OnFabric = Callable[[ProcessFabric, Reactor], None]


class ProcsRunError(RuntimeError):
    """The fabric or the controller failed (not the scenario's checks)."""


@dataclass
class ProcsRun:
    result: RunResult
    plan: FabricPlan
    scenario: Scenario  # as run: times scaled
    seconds: float
    workdir: Path  # the devices' logs and controller.log
    links: dict[str, Any] = field(default_factory=dict)  # the wiring's view


def scaled_for_procs(scenario: Scenario, factor: float,
                     allowance_s: float = DEFAULT_SCHEDULING_ALLOWANCE_S) -> Scenario:
    """``scenario`` with its times multiplied by ``factor`` (wall clock), its loss
    detection's jitter allowance at least ``allowance_s`` and its checks' upper time
    bounds twice ``allowance_s`` later."""
    t = scenario.transport
    allowance_us = allowance_s * 1e6
    transport = t.model_copy(update={
        "rto_us": t.rto_us * factor, "max_rto_us": t.max_rto_us * factor,
        "reorder_allowance_us": max(t.reorder_allowance_us * factor, allowance_us)})
    failures = [f.model_copy(update={"at_us": f.at_us * factor, "down_us": f.down_us * factor})
                for f in scenario.failures]
    loads = [w.model_copy(update={"start_us": w.start_us * factor})
             for w in scenario.workloads]
    return scenario.model_copy(update={
        "transport": transport, "failures": failures, "workloads": loads,
        "checks": [check.time_scaled(factor, 2 * allowance_us) for check in scenario.checks],
        "bin_us": scenario.bin_us * factor, "max_time_us": scenario.max_time_us * factor})


def run_procs_scenario(scenario: Scenario, setup: FabricSetup, workdir: Path, *,
                       time_scale: float = DEFAULT_TIME_SCALE, timeout_s: float = 300.0,
                       scheduling_allowance_s: float = DEFAULT_SCHEDULING_ALLOWANCE_S,
                       progress: Progress | None = None,
                       on_fabric: OnFabric | None = None) -> ProcsRun:
    """Run ``scenario`` once (MRC as planned; no baseline) on a fabric brought up for
    it and removed again. ScenarioError for a scenario this mode cannot run,
    ProcsRunError if the fabric or the controller fails."""
    say = progress or (lambda _text: None)
    plan = make_plan(setup.fabric)
    check_names(scenario, plan)
    if any(f.action == "reboot" for f in scenario.failures):
        raise ScenarioError(f"{scenario.path}: reboot failures are not supported in procs "
                            "mode (only down, up and loss)")
    _check_failure_links(scenario, setup)
    scaled = scaled_for_procs(scenario, time_scale, scheduling_allowance_s)
    workdir.mkdir(parents=True, exist_ok=True)
    log = EventLog(out=(workdir / "controller.log").open("w", encoding="utf-8"))
    try:
        return _run_on_processes(scaled, plan, setup, workdir, log,
                                 host_frames_per_s(scenario, time_scale), timeout_s, say,
                                 on_fabric)
    finally:
        if log.out is not None:
            log.out.close()


def _check_failure_links(scenario: Scenario, setup: FabricSetup) -> None:
    """ScenarioError unless every failure names a port that has a link."""
    layout = setup.layout
    ports = {str(end) for cable in layout.cables for end in (cable.a, cable.b)}
    ports |= {str(host.port) for host in layout.host_sockets}
    if setup.veth is not None:
        ports |= {link.ends[0] for link in setup.veth.links if link.to_host}
    for i, failure in enumerate(scenario.failures):
        if failure.link is not None and failure.link not in ports:
            raise ScenarioError(f"{scenario.path}: failures[{i}].link: {failure.link} has "
                                "no link")


def _run_on_processes(scenario: Scenario, plan: FabricPlan, setup: FabricSetup,
                      workdir: Path, log: EventLog, frames_per_s: float, timeout_s: float,
                      say: Progress, on_fabric: OnFabric | None) -> ProcsRun:
    started = time.monotonic()
    try:
        # builds every pipeline before any process starts: a program that cannot be
        # built (e.g. BMv2 without p4c) is reported at once
        reactor = Reactor(plan, log)
    except PipelineError as error:
        raise ProcsRunError(str(error)) from None
    fabric = ProcessFabric(setup.layout, workdir, seed=scenario.seed,
                           topology=str(scenario.topology_path()), veth=setup.veth)
    if on_fabric is not None:
        on_fabric(fabric, reactor)
    say(f"starting {len(setup.layout.devices)} device processes")
    try:
        fabric.start()
    except Exception as error:  # DeviceFailure, NetnsError, OSError: already stopped
        raise ProcsRunError(str(error)) from None
    ports: list[PacketPort] = []
    try:
        reactor.start()
        say("programming every device over P4Runtime")
        _wait_programmed(reactor, fabric, PROGRAM_TIMEOUT_S)
        threading.Thread(target=reactor.run, name="reactor", daemon=True).start()
        run = _Run(scenario, plan, fabric, reactor, log, setup, frames_per_s, ports)
        say("running the workloads")
        result = run.execute(timeout_s)
        return ProcsRun(result, plan, scenario, time.monotonic() - started, workdir,
                        fabric.panel.snapshot())
    finally:
        for port in ports:
            port.close()
        reactor.close()
        fabric.stop()


def _wait_programmed(reactor: Reactor, fabric: ProcessFabric, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        states = {name: s.state for name, s in reactor.supervisors.items()}
        if all(state is LinkState.UP for state in states.values()):
            return
        failure = fabric.failure
        if failure is not None:
            raise ProcsRunError(failure)
        bad = next(((name, reactor.supervisors[name].message) for name, state in states.items()
                    if state in (LinkState.FAILED, LinkState.ANOTHER_PRIMARY)), None)
        if bad is not None:
            raise ProcsRunError(f"the controller could not program {bad[0]}: {bad[1]}")
        if time.monotonic() > deadline:
            waiting = sorted(name for name, state in states.items() if state is not LinkState.UP)
            raise ProcsRunError(f"devices not programmed after {timeout_s:.0f} s: "
                                f"{', '.join(waiting)}")
        time.sleep(0.1)


def host_frames_per_s(scenario: Scenario, time_scale: float) -> float:
    """The hosts' sending rate: the scenario's link rate slowed down by ``time_scale``,
    in frames of an MTU's payload and its headers."""
    frame_bits = (scenario.transport.mtu + FRAME_OVERHEAD) * 8
    return scenario.network.link_rate_gbps * 1e9 / time_scale / frame_bits


class _Run:
    """One run's hosts, writes and failures, driven from one thread."""

    def __init__(self, scenario: Scenario, plan: FabricPlan, fabric: ProcessFabric,
                 reactor: Reactor, log: EventLog, setup: FabricSetup,
                 frames_per_s: float, ports: list[PacketPort]) -> None:
        """``ports``: where the hosts' ports go as they are opened, for the caller to
        close whatever happens."""
        self.scenario = scenario
        self.plan = plan
        self.fabric = fabric
        self.reactor = reactor
        self.metrics = Metrics(plan, scenario.bin_us)
        self.ports = ports
        self.paced: list[PacedPort] = []
        self.hosts: dict[str, Endpoint] = {}
        self.messages_received: dict[str, int] = defaultdict(int)
        self.t0 = time.time()
        self._events: list[tuple[float, dict[str, Any]]] = []
        log.listeners.append(self._on_event)
        config = transport_config(scenario)
        clock = MonotonicClock()
        nics = sorted({end.nic for qp in plan.fabric.qps for end in qp.ends})
        for name in nics:
            nic = plan.fabric.nic(name)
            assert nic is not None
            try:
                port = open_host_port(name, setup.layout, setup.veth)
            except OSError as error:
                raise ProcsRunError(f"{name}: cannot open its host port: {error}") from None
            self.ports.append(port)
            paced = PacedPort(port, frames_per_s)
            self.paced.append(paced)
            endpoint = Endpoint(paced, ipv6_text(nic.ipv6), clock=clock, config=config)
            port.set_receiver(endpoint.handle_frame)
            self.hosts[name] = endpoint

    def _on_event(self, record: dict[str, Any]) -> None:
        if record["event"] == "digest":
            self._events.append((record["time"], record))

    def execute(self, timeout_s: float) -> RunResult:
        scenario = self.scenario
        received = open_qps(self.plan, scenario.workloads, self.hosts)
        rng = random.Random(scenario.seed)
        writes: list[WriteRecord] = []
        expected: dict[tuple[str, str], bytearray] = {}
        offsets: dict[tuple[str, str], int] = {}
        pending = list(scenario.workloads)
        failures = sorted(enumerate(scenario.failures), key=lambda f: f[1].at_us)
        log: list[dict[str, Any]] = []
        self.t0 = time.time()
        deadline = time.monotonic() + timeout_s

        def now_us() -> float:
            return (time.time() - self.t0) * 1e6

        def completed(record: WriteRecord, handle: WriteHandle) -> None:
            record.completed_us = now_us()
            record.ok = handle.ok

        while True:
            for load in [w for w in pending if w.start_us <= now_us()]:
                pending.remove(load)
                writes += post_writes(self.plan, load, self.hosts, rng, expected, offsets,
                                      now_us(), completed)
            while failures and failures[0][1].at_us <= now_us():
                _, failure = failures.pop(0)
                self._inject(failure.link or "", failure.action, failure.rate)
                log.append({"at_us": now_us(), "action": failure.action,
                            "target": failure.link})
            if not pending and all(w.completed_us is not None for w in writes):
                break
            if time.monotonic() > deadline:
                break
            self._step()
        end_us = now_us()
        finished = all(w.ok for w in writes) and not pending
        if finished:
            self._await_delivery(writes, min(deadline, time.monotonic() + DELIVERY_GRACE_S))
        intact = finished and all(
            bytes(region(self.hosts[nic], qp).read(0, len(data))) == bytes(data)
            for (qp, nic), data in expected.items())
        self._measure(received)
        return RunResult(
            scenario=scenario.name, mode="mrc", only=(), end_us=end_us, finished=finished,
            intact=intact, writes=writes, metrics=self.metrics, network=self._network(),
            qp_stats=self._qp_stats(), failures=log)

    def _await_delivery(self, writes: list[WriteRecord], until: float) -> None:
        """Keep the hosts running until every receiver has every message whole: the
        sender's write completes on the receiving NIC's SACKs, and the NIC may still
        be passing the last packets to its host (in the simulator it is done by then;
        here it is another process, scheduled when the OS likes)."""
        expected: dict[str, int] = {}
        for write in writes:
            qp = self.plan.qp(write.qp)
            assert qp is not None
            dst = qp.ends[1] if qp.ends[0].nic == write.sender else qp.ends[0]
            expected[dst.nic] = expected.get(dst.nic, 0) + 1

        def delivered() -> bool:
            for nic in expected:
                self.messages_received[nic] += len(self.hosts[nic].poll_completions())
            return all(self.messages_received[nic] >= n for nic, n in expected.items())

        while not delivered() and time.monotonic() < until:
            self._step()

    def _inject(self, link: str, action: str, rate: float) -> None:
        try:
            if action == "loss":
                self.fabric.panel.set_link(link, loss=rate)
            else:
                self.fabric.panel.set_link(link, up=action == "up")
        except NetnsError as error:  # e.g. a kernel without netem
            raise ProcsRunError(f"failure '{action}' on {link}: {error}") from None

    def _step(self) -> None:
        """Deliver what arrived at every host, run their due timers, send what their
        pace allows; wait a little when nothing happened."""
        delivered = sum(port.poll(0.0) for port in self.ports)
        now = time.monotonic()
        for endpoint in self.hosts.values():
            due = endpoint.next_deadline()
            if due is not None and now >= due:
                endpoint.on_timer()
        releases = [t for t in (p.release(now) for p in self.paced) if t is not None]
        if not delivered:
            wait = min([POLL_S, *(t - now for t in releases)])
            self.ports[0].poll(max(0.0, wait))  # a short wait that wakes for a frame

    # -- measurements -------------------------------------------------------------------
    def _measure(self, received: dict[tuple[str, str], int]) -> None:
        """Per-path packets from the senders' slot counters, EV events from the
        controller's digests, delivered bytes per QP."""
        plan, metrics = self.plan, self.metrics
        for load in self.scenario.workloads:
            qp = plan.qp(load.qp)
            assert qp is not None
            side = 1 if load.reverse else 0
            end = plan.qp_end(qp, side)
            counts = self._slot_packets(qp.ends[side].nic, qp.ends[side].qp_index,
                                        end.ev_slots)
            for slot, packets in counts.items():
                metrics.qps[load.qp].ev_packets[end.evs[slot].ev] += packets
        for (qp_name, _nic), size in received.items():
            metrics.qps[qp_name].delivered_bytes += size
        for when, record in self._events:
            found = plan.qp_at(record["device"], record["qp_index"])
            name = found[0].name if found else f"{record['device']}/{record['qp_index']}"
            metrics.ev_events.append(EvEvent(
                (when - self.t0) * 1e6, record["device"], name, record["slot"],
                int(record["old_ev"], 16), int(record["new_ev"], 16),
                _REASONS.get(record["reason"], -1)))

    def _slot_packets(self, nic: str, qp_index: int, slots: int) -> dict[int, int]:
        link = self.reactor.links[nic]
        helper = link.helper
        counter = helper.get_id("counters", n.NIC_SLOT_COUNTERS[0])
        entities = link.read([helper.counter_entry(n.NIC_SLOT_COUNTERS[0],
                                                   qp_index * c.NIC_EV_SLOTS + s)
                              for s in range(slots)])
        return {e.counter_entry.index.index - qp_index * c.NIC_EV_SLOTS:
                e.counter_entry.data.packet_count
                for e in entities if e.counter_entry.counter_id == counter}

    def _network(self) -> dict[str, dict[str, int]]:
        """Per cable between switches: frames received and frames lost (sent by one
        end's egress, never counted by the other's ingress), from the switches' own
        port counters."""
        health = read_health(self.plan, [link for name, link in self.reactor.links.items()
                                         if self.plan.fabric.switch(name) is not None])
        ports = {(h.device, h.port): h for h in health.links}
        cables: dict[str, dict[str, int]] = {}
        for (device, port), here in ports.items():
            peer_device, _, peer_port = here.peer.rpartition(":")
            there = ports.get((peer_device, int(peer_port)))
            if there is None or (peer_device, int(peer_port)) < (device, port):
                continue
            lost = max(0, here.tx_packets - there.rx_packets) + \
                max(0, there.tx_packets - here.rx_packets)
            cables[f"{device}:{port}-{here.peer}"] = {
                "frames": here.rx_packets + there.rx_packets, "dropped": lost}
        return cables

    def _qp_stats(self) -> dict[str, dict[str, int]]:
        out = {}
        for load in self.scenario.workloads:
            qp = self.plan.qp(load.qp)
            assert qp is not None
            src = qp.ends[1] if load.reverse else qp.ends[0]
            out[load.qp] = self.hosts[src.nic].qp_stats(src.qpn).as_dict()
        return out

def with_topology(scenario: Scenario, topology: str | None) -> Scenario:
    """``scenario`` on another topology file (``--topology``), named as given."""
    if topology is None:
        return scenario
    return scenario.model_copy(update={"topology": str(Path(topology).resolve())})
