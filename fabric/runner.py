"""One run of a scenario: build the network, let the controller program it over
P4Runtime, post the workloads, inject the failures, run virtual time until every
write has completed, and collect what was measured.

Modes: ``mrc`` (the plan as it is, plus the scenario's pins) and ``baseline``, the
scenario's baseline: ``single-path`` (every QP reduced to one fixed path,
``plan_overrides``) or ``roce`` (one path per QP picked by a hash, switches without
trimming and with lossless queues, hosts sending with go-back-N at DCQCN's rate,
``host.roce``, on plane 0 at the rate of all planes together). ``only`` restricts a
run to some QPs' workloads (a victim's solo run).
"""

from __future__ import annotations

import gc
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from controller.plan import FabricPlan, make_plan
from controller.react import ProbeSchedule
from controller.topology import TopologyError, load_topology, parse_topology
from host import TransportConfig
from host.completions import WriteHandle
from host.roce import DcqcnConfig, RoceEndpoint

from .control import FabricController, ProgrammingError, topology_for_simulation
from .failures import schedule_failures
from .metrics import Metrics
from .plan_overrides import ecmp_pins, override
from .scenario import Scenario, ScenarioError
from .sim.events import EventLoop, call_later
from .sim.host import EnvClock
from .sim.network import Network, NetworkConfig, program_path
from .sim.partition import OneProcess, Workers, partition_devices
from .sim.pfc import PfcConfig
from .workload import WriteRecord, open_qps, post_writes, region
from .workloads.flows import Expansion, Flow, expand
from .workloads.schedule import FlowSchedule

Progress = Callable[[float], None]  # fraction of the run's bytes delivered

MODES = ("mrc", "baseline", "single-path", "roce")
# The garbage collector's first threshold while a simulation runs (Python's: 700).
GC_YOUNG_THRESHOLD = 50_000


@dataclass
class RunResult:
    scenario: str
    mode: str
    only: tuple[str, ...]
    end_us: float
    finished: bool
    intact: bool
    writes: list[WriteRecord]
    metrics: Metrics
    network: dict[str, Any] = field(default_factory=dict)
    packet_hops: int = 0
    # PFC (fabric.sim.pfc; the RoCE baseline with PFC): per device that sent or got a
    # pause, its pauses_sent, resumes_sent and pauses_received
    pfc: dict[str, dict[str, int]] = field(default_factory=dict)
    qp_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    # per workload of the file: type, ranks, bytes, start_us, end_us (None: unfinished)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    # wall-clock and CPU seconds of the simulation itself (not the set-up; CPU of
    # every process); for benchmarks, never in reports (a report depends only on
    # the scenario and seed)
    sim_wall_s: float = 0.0
    sim_cpu_s: float = 0.0
    # what the controller did: events of its log by name
    controller_events: dict[str, int] = field(default_factory=dict)
    # processes the simulation ran on (fabric.sim.partition); like the times, never
    # in reports, which are the same for any number
    sim_procs: int = 1

    @property
    def pfc_pauses(self) -> int:
        """PFC pauses sent by every device."""
        return sum(device["pauses_sent"] for device in self.pfc.values())


def load_plan(scenario: Scenario, sockets: Path | None = None) -> FabricPlan:
    """The plan of the scenario's topology with the QPs its workloads open; with
    ``sockets``, as the simulator serves it (every device on a Unix socket there,
    ``fabric.control``)."""
    path = scenario.topology_path()
    try:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            return make_plan(load_topology(path))  # the controller says what is wrong
        if not isinstance(data, dict):
            return make_plan(load_topology(path))
        extra = expand(scenario.workloads).qps
        if extra:
            data = {**data, "qps": [*(data.get("qps") or []), *extra]}
        if sockets is not None:
            data = topology_for_simulation(data, sockets,
                                           lambda p: program_path(p, str(path)))
        return make_plan(parse_topology(yaml.safe_dump(data), str(path)))
    except TopologyError as err:
        raise ScenarioError(f"{scenario.path}: topology: {err}") from None


def check_names(scenario: Scenario, plan: FabricPlan) -> None:
    """Every QP, NIC, link and device the scenario names exists in its topology."""
    problems = []
    names = {qp.name for qp in plan.fabric.qps}
    nics = {nic.name for nic in plan.fabric.nics()}
    for i, load in enumerate(scenario.workloads):
        qp = getattr(load, "qp", None)
        if qp is not None and qp not in names:
            problems.append(f"workloads[{i}].qp: no QP named {qp!r} in the topology")
        for key in ("ranks", "senders"):
            for nic in getattr(load, key, ()):
                if nic not in nics:
                    problems.append(f"workloads[{i}].{key}: no NIC named {nic!r}")
        receiver = getattr(load, "receiver", None)
        if receiver is not None and receiver not in nics:
            problems.append(f"workloads[{i}].receiver: no NIC named {receiver!r}")
    for key in (*scenario.pin, *scenario.solo_qps()):
        if key not in names:
            problems.append(f"{key!r}: no QP of that name in the topology")
    for i, check in enumerate(scenario.checks):
        if check.qp is not None and check.qp not in names:
            problems.append(f"checks[{i}].qp: no QP named {check.qp!r} in the topology")
    devices = set(plan.device_names())
    cabled = {(name, port) for cable in _cable_ends(plan) for name, port in cable}
    for i, failure in enumerate(scenario.failures):
        for end in failure.cables():
            device, _, port = end.rpartition(":")
            if not port.isdigit() or (device, int(port)) not in cabled:
                problems.append(f"failures[{i}].link: {end!r} is not DEVICE:PORT of a "
                                "cable of the topology")
        if failure.device is not None and failure.device not in devices:
            problems.append(f"failures[{i}].device: no device named {failure.device!r}")
        for nic in failure.nics or ():
            if nic not in nics:
                problems.append(f"failures[{i}].nics: no NIC named {nic!r}")
    if problems:
        raise ScenarioError("\n".join(f"{scenario.path}: {p}" for p in problems))


def _cable_ends(plan: FabricPlan) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """Both ends of every cable of the fabric (switch to switch, NIC to T0)."""
    fabric = plan.fabric
    ends = [((s.name, link.port), (link.peer, link.peer_port))
            for s in fabric.switches() for link in fabric.switch_links(s.name)]
    for nic in fabric.nics():
        for plane in range(fabric.planes):
            link = fabric.nic_link(nic.name, plane)
            ends.append(((nic.name, nic.ports[plane]), (link.peer, link.peer_port)))
    return ends


def transport_config(scenario: Scenario, roce: bool = False) -> TransportConfig:
    t = scenario.transport
    rto_us = t.roce_rto_us if roce and t.roce_rto_us is not None else t.rto_us
    return TransportConfig(mtu=t.mtu, window=t.window, rto=rto_us / 1e6,
                           max_rto=max(t.max_rto_us, rto_us) / 1e6,
                           fixed_retries=t.fixed_retries,
                           max_retries=t.max_retries, gap_threshold=t.gap_threshold,
                           tail_ack_req=t.tail_ack_req, cc=t.cc, nscc=t.nscc,
                           reorder_allowance=t.reorder_allowance_us / 1e6)


def one_process_reason(scenario: Scenario, plan: FabricPlan) -> str | None:
    """Why a run of ``scenario`` cannot be split over processes (None: it can)."""
    if scenario.network.link_delay_us <= 0:
        return "its cables have no delay, so no process can run ahead of another"
    switches = {s.name for s in plan.fabric.switches()}
    for failure in scenario.failures:
        if failure.action == "reboot" and failure.device in switches:
            return (f"the controller reprograms the rebooted switch {failure.device} "
                    "at a virtual time, inside another process's window")
    return None


def run_scenario(scenario: Scenario, mode: str, only: tuple[str, ...] = (),
                 progress: Progress | None = None, procs: int = 1) -> RunResult:
    """One run; ``procs`` processes at most (``fabric.sim.partition``: the same
    result for any number; one if the scenario cannot be split)."""
    with tempfile.TemporaryDirectory(prefix="mrc-sim-") as sockets:
        plan = load_plan(scenario, Path(sockets))
        check_names(scenario, plan)
        kind = scenario.baseline if mode == "baseline" else mode
        single = [qp.name for qp in plan.fabric.qps] if kind in ("single-path", "roce") else []
        pins = {**ecmp_pins(plan, scenario.seed), **scenario.pin} if kind == "roce" \
            else scenario.pin
        if one_process_reason(scenario, plan) is not None:
            procs = 1
        return _build_and_run(scenario, mode, only,
                              override(plan, single, pins, no_trimming=kind == "roce",
                                       ecn_to_nics=kind == "roce"),
                              progress, roce=kind == "roce", procs=procs)


def roce_queue_depth(scenario: Scenario, plan: FabricPlan) -> int:
    """The RoCE run's queue depth: lossless, as PFC makes RoCE's class [ours]. PFC
    pauses a port's sender before the port's buffer overflows, so no packet is lost to
    congestion; here every queue holds more than all the QPs' windows together, twice
    (a go-back's copies may follow the originals), so none overflows. What this leaves
    out is PFC's pause spreading upstream: packets wait at the congested port, not at
    the ports before it (docs/experiments.md, "The baselines")."""
    window = scenario.transport.window
    return max(scenario.network.queue_depth, 2 * window * len(plan.fabric.qps))


# The controller's probes in virtual time [ours]: its wall-clock schedule (50 ms, then
# doubling) is tuned for real switches; the simulator's fabric is scaled down, so the
# first retry comes after the transport's RTO, doubling up to PROBE_MAX_RTOS of them.
PROBE_MAX_RTOS = 8


def probe_schedule(scenario: Scenario, env: EventLoop) -> ProbeSchedule:
    """The reactor's probe schedule on the simulation's virtual clock (seconds)."""
    rto_s = scenario.transport.rto_us / 1e6
    return ProbeSchedule(first_interval_s=rto_s, max_interval_s=rto_s * PROBE_MAX_RTOS,
                         clock=lambda: env.now / 1e6)


def _build_and_run(scenario: Scenario, mode: str, only: tuple[str, ...],
                   plan: FabricPlan, progress: Progress | None, roce: bool,
                   procs: int) -> RunResult:
    spec = scenario.network
    # RoCE: one plane at the NIC's aggregate rate (the paper's RoCE testbed: one
    # 400G plane against MRC's 4 x 100G); only plane 0 carries its traffic.
    rate = spec.link_rate_gbps * (plan.fabric.planes if roce else 1)
    config = NetworkConfig(link_rate_bps=rate * 1e9,
                           link_delay_us=spec.link_delay_us,
                           host_delay_us=spec.host_delay_us,
                           queue_depth=roce_queue_depth(scenario, plan) if roce
                           else spec.queue_depth, seed=scenario.seed,
                           pfc=PfcConfig(spec.pfc.xoff_packets, spec.pfc.xon_packets)
                           if roce and spec.pfc is not None else None)
    parts = partition_devices(plan, procs)
    network = Network(plan, config, transport_config(scenario), parts[0])
    if roce:
        dcqcn = DcqcnConfig(line_rate_gbps=rate,
                            increase_period_us=scenario.transport.dcqcn_timer_us)
        for host in network.hosts.values():
            host.endpoint = RoceEndpoint(host.port, host.endpoint.local,
                                         clock=EnvClock(network.env),
                                         config=transport_config(scenario, roce=True),
                                         dcqcn=dcqcn)
    metrics = Metrics(plan, scenario.bin_us)
    controller = FabricController(plan, probes=probe_schedule(scenario, network.env))
    driver: OneProcess | Workers = OneProcess(network)
    try:
        if len(parts) > 1:
            # the switch processes serve their devices before the controller connects
            driver = Workers(network, parts, transport_config(scenario),
                             partial(schedule_failures, scenario, controller=None))
        network.start_servers()
        controller.program_all()
        return _run(scenario, mode, only, network, controller, metrics, progress, driver)
    except ProgrammingError as err:
        raise ScenarioError(f"{scenario.path}: the controller could not program the "
                            f"fabric: {err}") from None
    except RuntimeError as err:
        if not str(err).startswith("simulation process"):
            raise
        raise ScenarioError(f"{scenario.path}: {err}") from None
    finally:
        controller.close()
        driver.close()
        network.stop_servers()


def _run(scenario: Scenario, mode: str, only: tuple[str, ...], network: Network,
         controller: FabricController, metrics: Metrics,
         progress: Progress | None, driver: OneProcess | Workers) -> RunResult:
    env = network.env
    plan = network.plan

    def digests(device: Any, messages: list) -> None:
        metrics.on_digests(env.now, device.name, messages)
        controller.on_digest(device.name, messages)

    for nic in plan.fabric.nics():
        device = network.devices[nic.name]
        metrics.watch(device)
        device.on_digests = digests
    hosts = network.hosts
    # Every QP end is open on its host; each receiver has one region per QP.
    expansion = expand(scenario.workloads)
    flows = [_only(f, only) for f in expansion.flows]
    endpoints = {name: host.endpoint for name, host in hosts.items()}
    open_qps(plan, flows, endpoints)

    rng = random.Random(scenario.seed)
    writes: list[WriteRecord] = []
    expected: dict[tuple[str, str], bytearray] = {}
    offsets: dict[tuple[str, str], int] = {}
    done = env.event()
    total = sum(f.bytes for f in flows if f.messages)

    def completed(index: int, record: WriteRecord, handle: WriteHandle) -> None:
        record.completed_us = env.now
        record.ok = handle.ok
        schedule.write_done(index)
        if schedule.finished and not done.triggered:
            done.succeed()

    def post(index: int) -> None:
        flow = flows[index]
        if not flow.messages:  # not in this run (``only``): done at once
            schedule.write_done(index)
            return
        qp = plan.qp(flow.qp)
        assert qp is not None
        writes.extend(post_writes(plan, flow, endpoints, rng, expected, offsets, env.now,
                                  lambda r, h, i=index: completed(i, r, h)))
        hosts[qp.ends[1 if flow.reverse else 0].nic].rearm()

    schedule = FlowSchedule(flows, post, lambda: env.now)
    for i in schedule.ready():
        call_later(env, flows[i].start_us, schedule.start, i)
    failures = schedule_failures(scenario, network, controller)
    # Every tick the controller sends the probes due by virtual time; packet-outs reach
    # a device from a gRPC thread, so the tick waits for them, then they enter their
    # devices' CPU ports.
    def packet_outs() -> None:
        sent = controller.send_due_probes()
        if sent:
            network.await_packet_outs(sent)
        network.inject_packet_outs()

    _tick(env, scenario.bin_us, packet_outs)
    if progress is not None and total:
        _tick(env, scenario.bin_us * 10, lambda: progress(
            min(1.0, sum(m.delivered_bytes for m in metrics.qps.values()) / total)))
    deadline = env.timeout(scenario.max_time_us)
    deadline_us = env.now + scenario.max_time_us
    driver.prepare()
    # Everything built so far (device states: a NIC's registers are lists of 10^5
    # entries) lives for the whole run: out of the garbage collector's sight, a full
    # collection no longer walks it, which made a hop cost more the more NICs there are.
    gc.collect()
    gc.freeze()
    # A young collection walks every object allocated since the last one, the queued
    # packets' structs included; at the default threshold (700) that was a few per
    # cent of a run at 48 devices. Rarer young collections walk no more per
    # allocation, and most of a hop's objects are freed by their reference count.
    thresholds = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *thresholds[1:])
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        driver.run(deadline_us + scenario.bin_us, env.any_of(done, deadline))
        end_us = env.now
        # What is counted ends at a virtual time, not at the call that ended the
        # transfer: every process runs everything due before end + one cable delay
        # (fabric.sim.partition), so the report is the same on any number of them.
        driver.run(end_us + network.config.link_delay_us)
        # After the transfer, time runs on while the controller probes retired EVs (a
        # failed link may come back later), until none is left or the deadline.
        while done.triggered and controller.probing() and env.now < deadline_us:
            driver.run(min(env.now + scenario.bin_us, deadline_us))
        counted = driver.finish()
    finally:
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    _merge(network, counted)
    cpu += sum(part["sim_cpu_s"] for part in counted)
    finished = done.triggered and all(w.ok for w in writes)
    intact = finished and all(
        bytes(region(endpoints[nic], qp).read(0, len(data))) == bytes(data)
        for (qp, nic), data in expected.items())
    return RunResult(
        scenario=scenario.name, mode=mode, only=only, end_us=end_us, finished=finished,
        intact=intact, writes=writes, metrics=metrics, groups=_groups(expansion, schedule),
        network={name: {"frames": cable.counters.frames,
                        "dropped": cable.counters.dropped}
                 for name, cable in network.cables.items()},
        packet_hops=sum(d.counters.hops for d in network.devices.values()),
        pfc={name: asdict(d.pfc.counters) for name, d in network.devices.items()
             if d.pfc is not None and (d.pfc.counters.pauses_sent
                                       or d.pfc.counters.pauses_received)},
        qp_stats=_qp_stats(plan, hosts, [f for f in flows if f.messages]),
        failures=failures, sim_wall_s=wall, sim_cpu_s=cpu,
        controller_events={name: controller.events(name) for name in (
            "top-up", "no-backup-left", "pushed", "wrote", "probe-sent", "restored")},
        sim_procs=driver.count)


def _merge(network: Network, counted: list[dict[str, Any]]) -> None:
    """Add what the other processes counted into this one's copies of their cables
    and devices (each process counts only what its own devices did)."""
    for part in counted:
        for name, (frames, size, down, loss) in part["cables"].items():
            counters = network.cables[name].counters
            counters.frames += frames
            counters.bytes += size
            counters.dropped_down += down
            counters.dropped_loss += loss
        for name, hops in part["hops"].items():
            network.devices[name].counters.hops += hops
        for name, pfc in part["pfc"].items():
            device = network.devices[name]
            assert device.pfc is not None
            device.pfc.counters = pfc


def _only(flow: Flow, only: tuple[str, ...]) -> Flow:
    """The flow as run: without writes when the run is restricted to other QPs."""
    if not only or flow.qp in only:
        return flow
    return replace(flow, messages=0, bytes=0)


def _groups(expansion: Expansion, schedule: FlowSchedule) -> dict[str, dict[str, Any]]:
    """Each workload's type, size, ranks and its first start and last finish."""
    out = {}
    for group in expansion.groups:
        starts = [schedule.started_us[i] for i in group.flows if i in schedule.started_us]
        ends = [schedule.done_us.get(i) for i in group.flows]
        out[group.name] = {"type": group.type, "ranks": group.ranks, "bytes": group.bytes,
                           "start_us": min(starts) if starts else None,
                           "end_us": max(ends) if ends and None not in ends else None}
    return out


def _qp_stats(plan: FabricPlan, hosts: dict, loads: list) -> dict[str, dict[str, int]]:
    out = {}
    for load in loads:
        qp = plan.qp(load.qp)
        assert qp is not None
        src = qp.ends[1] if load.reverse else qp.ends[0]
        out[load.qp] = hosts[src.nic].endpoint.qp_stats(src.qpn).as_dict()
    return out


def _tick(env: EventLoop, every_us: float, fn: Callable[[], None]) -> None:
    def again() -> None:
        fn()
        call_later(env, every_us, again)
    call_later(env, every_us, again)
