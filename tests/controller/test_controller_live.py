"""The controller against a running fabric: small.yaml as 8 switch and 4 NIC processes of
our target on loopback (``fabric.procs``: one bm process per device, the patch panel
wiring their ports and offering host sockets on the NICs).

In order: ``mrc-ctl apply`` programs every device and a second apply writes nothing; two
hosts exchange a message through the real switch and NIC programs; the controller
running (the reactor ``mrc-ctl watch`` runs) answers a NIC's EV event with a backup
top-up and probes until the NIC restores the EV; a switch killed with SIGKILL and
started again is re-programmed without help; afterwards ``apply`` still writes nothing
(the top-ups are found on the NIC and kept) and ``status`` finds every device in sync;
a device held by another controller with a higher election id is reported, not taken.
"""

from __future__ import annotations

import ipaddress
import json
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from live_fabric import mrc_ctl, small_on_free_ports

from controller.events import EventLog
from controller.plan import FabricPlan, make_plan
from controller.react import LinkState, Reactor
from controller.topology import load_topology
from fabric.procs import ProcessFabric, layout_from_topology
from fabric.procs.launcher import switch_command
from host import Endpoint, MemoryRegion, NanomsgPort, TransportConfig
from host.codec import Route, encode_nack
from p4rt_client import P4RuntimeSession
from protocol import constants as c
from tests.loopback import wait_until

# The hosts run in real time against device processes that may wait seconds for a core
# on a busy machine: their timeouts and reordering allowance are set for that, so a slow
# switch is not taken for a lost packet (a retired EV the test did not ask for).
LIVE_TRANSPORT = TransportConfig(rto=5.0, max_rto=20.0, reorder_allowance=2.0)


class Live:
    def __init__(self, workdir: Path, topology: Path, fabric: ProcessFabric) -> None:
        self.workdir = workdir
        self.topology = topology
        self.fabric = fabric
        self.plan: FabricPlan = make_plan(load_topology(topology))

    def host(self, nic: str) -> Endpoint:
        spec = next(h for h in self.fabric.layout.host_sockets if h.port.device == nic)
        node = self.plan.fabric.nic(nic)
        assert node is not None
        return Endpoint(NanomsgPort(spec.address), str(ipaddress.IPv6Address(node.ipv6)),
                        config=LIVE_TRANSPORT)


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with tempfile.TemporaryDirectory(prefix="mc-") as tmp:  # short: socket paths
        workdir = Path(tmp)
        topology = small_on_free_ports(workdir)
        layout = layout_from_topology(load_topology(topology), workdir)
        with ProcessFabric(layout, workdir) as fabric:
            yield Live(workdir, topology, fabric)


def apply_json(live: Live) -> dict[str, Any]:
    done = mrc_ctl("apply", live.topology, "--json", "--json-log")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def exchange(hosts: dict[str, Endpoint], done: Callable[[], bool],
             timeout_s: float = 300) -> None:
    """Run the hosts' ports and timers until ``done()``."""
    for endpoint in hosts.values():
        endpoint.port.set_receiver(endpoint.handle_frame)

    def step() -> bool:
        for endpoint in hosts.values():
            endpoint.port.poll(0.005)
            deadline = endpoint.next_deadline()
            if deadline is not None and deadline <= endpoint.clock.now():
                endpoint.on_timer()
        return done()
    wait_until(step, "the hosts' transfer", timeout_s)


def test_apply_programs_every_device_and_a_second_apply_writes_nothing(live: Live) -> None:
    first = apply_json(live)
    assert first["ok"] and first["pushed"] == 12
    assert first["written"] == 170  # mrc-ctl plan's total for small.yaml
    second = apply_json(live)
    assert second["ok"] and (second["pushed"], second["written"]) == (0, 0)


def test_two_hosts_exchange_a_message_through_the_switches(live: Live) -> None:
    qp = live.plan.qp("qp-a")
    assert qp is not None
    a, b = qp.ends
    sender, receiver = live.host(a.nic), live.host(b.nic)
    peer = live.plan.fabric.nic(b.nic)
    assert peer is not None
    sender.open_qp(a.qpn, peer=str(ipaddress.IPv6Address(peer.ipv6)))
    receiver.open_qp(b.qpn)
    region = MemoryRegion(base_addr=0, size=1 << 16, rkey=7)
    receiver.register(region)
    data = bytes(range(256)) * 16  # 4 packets of the default MTU
    handle = sender.write(a.qpn, data, remote_addr=0x100, rkey=7, imm=None)
    received = []

    def done() -> bool:
        received.extend(receiver.poll_completions())
        return handle.done and bool(received)
    exchange({a.nic: sender, b.nic: receiver}, done)
    handle.result()
    assert (received[0].addr, received[0].length) == (0x100, len(data))
    assert region.read(0x100, len(data)) == data


@pytest.fixture(scope="module")
def reactor(live: Live) -> Iterator[Reactor]:
    """The controller running, as ``mrc-ctl watch`` runs it."""
    running = Reactor(live.plan, EventLog(out=None))
    running.start()
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    wait_until(lambda: all(s.state is LinkState.UP for s in running.supervisors.values()),
               "every device to be connected and programmed")
    yield running
    running.close()
    thread.join(timeout=10)


def test_a_retired_ev_is_topped_up_and_probed_until_restored(live: Live,
                                                             reactor: Reactor) -> None:
    log = reactor.log
    # apply left nothing to do; if it did, which devices and entries (pushed: the
    # pipeline this process built differs from the one apply pushed)
    assert log.count("wrote") == 0, [r for r in log.recent
                                      if r["event"] in ("pushed", "wrote")]
    qp = live.plan.qp("qp-b")
    assert qp is not None
    a, b = qp.ends
    sender = live.host(a.nic)
    here, peer = live.plan.fabric.nic(a.nic), live.plan.fabric.nic(b.nic)
    assert here is not None and peer is not None
    sender.open_qp(a.qpn, peer=str(ipaddress.IPv6Address(peer.ipv6)))
    # PSN 0 leaves on some EV of qp-b; the peer NIC acknowledges it (no host needed).
    handle = sender.write(a.qpn, b"x" * 100, remote_addr=0, rkey=7, imm=None)
    exchange({a.nic: sender}, lambda: handle.done)
    # The host reports PSN 0 lost: the NIC retires the EV that carried it.
    route = Route(eth_dst=bytes(6), eth_src=bytes(6),
                  src=ipaddress.IPv6Address(here.ipv6).packed,
                  dst=ipaddress.IPv6Address(peer.ipv6).packed)
    sender.port.send(encode_nack(route, dest_qp=a.qpn, psn=0,
                                 reason=c.NACK_HOST_LOSS_REPORT, nack_psn=0))
    wait_until(lambda: log.count("digest", device=a.nic, reason="host-loss") >= 1,
               "the NIC's EV event")
    wait_until(lambda: log.count("top-up", device=a.nic, qp_index=a.qp_index,
                                 written=True) >= 1, "a backup top-up")
    wait_until(lambda: log.count("probe-sent", device=a.nic) >= 1, "a probe")
    # The path is fine: probe_threshold answered probes bring the EV back.
    wait_until(lambda: log.count("restored", device=a.nic) >= 1, "the EV restored")
    assert reactor.recoveries and reactor.recoveries[0].restored_at is not None


def test_a_switch_killed_and_restarted_is_reprogrammed_without_help(
        live: Live, reactor: Reactor) -> None:
    name = "p0-t1-0"
    log = reactor.log
    pushed_before = log.count("pushed", device=name)
    process = live.fabric.devices.processes[name]
    process.kill()
    process.wait()
    wait_until(lambda: log.count("device-lost", device=name) >= 1, "the device lost")
    spec = live.fabric.layout.device(name)
    assert spec is not None
    # Same address and socket, as a supervisor would restart it; the fabric stops it.
    live.fabric.devices.processes[name] = subprocess.Popen(
        switch_command(spec), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until(lambda: log.count("reconnected", device=name) >= 1, "the device back")
    assert log.count("pushed", device=name) == pushed_before + 1
    assert log.count("wrote", device=name, entries=7) == 1
    assert reactor.supervisors[name].state is LinkState.UP


def test_after_all_that_apply_writes_nothing_and_status_is_in_sync(
        live: Live, reactor: Reactor) -> None:
    reactor.close()  # apply and watch use one election id: one controller at a time
    result = apply_json(live)
    assert (result["pushed"], result["written"]) == (0, 0)  # top-ups found and kept
    status = mrc_ctl("status", live.topology, "--json")
    assert status.returncode == 0, status.stdout + status.stderr
    report = json.loads(status.stdout)
    assert set(report["devices"].values()) == {"in sync"}
    qp_ends = {(q["qp"], q["nic"]): q for q in report["health"]["qps"]}
    assert qp_ends["qp-a", "nic0"]["tx_packets"] >= 4
    assert qp_ends["qp-a", "nic2"]["rx_packets"] >= 4
    # paths --live: the top-ups are on the NIC, every planned EV id holds its path.
    paths = mrc_ctl("paths", live.topology, "qp-b", "--live", "--json")
    assert paths.returncode == 0, paths.stderr
    sender = json.loads(paths.stdout)["ends"][0]
    states = [ev["on_nic"] for ev in sender["evs"]]
    assert "topped up" in states and set(states) <= {"configured", "topped up"}
    assert sum(ev["slot_tx_packets"] or 0 for ev in sender["evs"]) >= 1
    assert sum(ev["slot_retirements"] or 0 for ev in sender["evs"]) >= 1



def test_another_primary_is_reported_not_fought(live: Live) -> None:
    """Last: the device remembers the higher election id, so this controller stays a
    backup there from now on (P4Runtime's rule), which is the point."""
    nic = live.plan.fabric.nic("nic0")
    assert nic is not None
    with P4RuntimeSession(nic.access.address, nic.access.device_id,
                          election_id=(0, 20)) as other:
        other.connect()
        done = mrc_ctl("apply", live.topology, "--json")
        assert done.returncode == 1
        result = {d["device"]: d for d in json.loads(done.stdout)["devices"]}
        assert result["nic0"]["problem"] == "another-primary"
        assert "(0, 20)" in result["nic0"]["message"]
        assert all(d["ok"] for name, d in result.items() if name != "nic0")
        assert other.primary


def test_a_bad_topology_file_exits_2_naming_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(small_on_free_ports(tmp_path).read_text().replace(
        "[nic0:1, p0-t0-0:1]", "[nic9:1, p0-t0-0:1]"))
    for command in ("apply", "watch", "status"):
        done = mrc_ctl(command, bad)
        assert (done.returncode, done.stdout) == (2, "")
        assert f"{bad}: links[0][0]: no device named 'nic9'" in done.stderr
        assert "Traceback" not in done.stderr
