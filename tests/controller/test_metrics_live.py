"""``mrc-ctl watch --metrics-port`` against a running fabric: two NICs on one T0 and a
T1 (four bm processes, ``fabric.procs`` on loopback), scraped over loopback and parsed
with prometheus-client's parser while traffic flows and a link fails.

In order: every device comes up programmed; a write between the hosts moves the QP,
plane and port counters; the T0-T1 cable taken down and a loss reported by the host
retire an EV: the EV event, the top-up and the probes show, the probes are dropped on
the cable (the switch sent them, the T1 never received them; the process fabric's own
metrics count them as dropped); the cable back up, the probes restore the EV. The
Grafana dashboard's metrics are all among those scraped. Waits poll with generous
timeouts; nothing is timed."""

from __future__ import annotations

import ipaddress
import signal
import subprocess
import sys
import tempfile
import urllib.error
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from live_fabric import ROOT
from test_controller_live import Live, exchange

from controller.metrics import MetricsServer
from controller.topology import load_topology
from fabric.procs import ProcessFabric, layout_from_topology
from fabric.procs.metrics import fabric_collector
from host import Endpoint, MemoryRegion
from host.codec import Route, encode_nack
from protocol import constants as c
from tests.controller.metrics_scrape import Samples, dashboard_metrics, scrape, value
from tests.loopback import free_tcp_port, wait_until

STOP_TIMEOUT_S = 60.0
PROGRAMMED_TIMEOUT_S = 300.0  # four devices build and take their programs


def duo(folder: Path) -> Path:
    """Two NICs on one T0, its uplink to one T1, a QP between the NICs (its paths turn
    at the T1), every device on a free loopback port."""
    t1, t0, nic0, nic1 = (free_tcp_port() for _ in range(4))
    path = folder / "duo.yaml"
    path.write_text(f"""name: duo
planes:
  - t1: [{{name: t1, address: "127.0.0.1:{t1}"}}]
    t0: [{{name: t0, address: "127.0.0.1:{t0}"}}]
nics:
  - {{name: nic0, address: "127.0.0.1:{nic0}", ports: [1]}}
  - {{name: nic1, address: "127.0.0.1:{nic1}", ports: [1]}}
links:
  - [nic0:1, t0:1]
  - [nic1:1, t0:2]
  - [t0:3, t1:1]
qps:
  - {{name: qp-x, endpoints: [nic0, nic1]}}
""")
    return path


@dataclass
class Scrapes:
    live: Live
    controller: str  # mrc-ctl watch's /metrics
    fabric: str  # the process fabric's /metrics (served here, as ``up`` serves it)
    hosts: dict[str, Endpoint]
    watch: subprocess.Popen[bytes]
    errors: Path  # watch's standard error

    def wait(self, condition: Callable[[Samples], bool], what: str,
             url: str | None = None) -> Samples:
        """Scrape until ``condition`` holds of a scrape; that scrape. Until watch
        listens, nothing answers: that is waited for too."""
        got: list[Samples] = []

        def holds() -> bool:
            assert self.watch.poll() is None, self.errors.read_text()
            try:
                got[:] = [scrape(url or self.controller)]
            except urllib.error.URLError:
                return False
            return condition(got[0])
        wait_until(holds, what, PROGRAMMED_TIMEOUT_S)
        return got[0]


@pytest.fixture(scope="module")
def running() -> Iterator[Scrapes]:
    with tempfile.TemporaryDirectory(prefix="mm-") as tmp:  # short: socket paths
        workdir = Path(tmp)
        topology = duo(workdir)
        layout = layout_from_topology(load_topology(topology), workdir)
        port = free_tcp_port()
        with ProcessFabric(layout, workdir) as fabric, \
                MetricsServer(free_tcp_port(), [fabric_collector(fabric)]) as panel, \
                open(workdir / "watch.err", "w") as err:
            watch = subprocess.Popen(
                [sys.executable, "-m", "controller", "watch", str(topology),
                 "--metrics-port", str(port), "--interval", "5",
                 "--log-file", str(workdir / "controller.log")],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            live = Live(workdir, topology, fabric)
            hosts = {nic: live.host(nic) for nic in ("nic0", "nic1")}
            try:
                yield Scrapes(live, f"http://127.0.0.1:{port}/metrics", panel.url, hosts,
                              watch, workdir / "watch.err")
            finally:
                for endpoint in hosts.values():
                    endpoint.port.close()
                watch.send_signal(signal.SIGTERM)
                try:
                    watch.wait(STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    watch.kill()
                    watch.wait()


def test_every_device_comes_up_programmed(running: Scrapes) -> None:
    got = running.wait(lambda s: value(s, "mrc_device_state", state="up") == 4,
                       "every device programmed")
    assert value(got, "mrc_device_reachable") == 4
    assert value(got, "mrc_device_connections_total") == 4
    assert value(got, "mrc_controller_events_total", event="connected") == 4
    assert value(got, "mrc_qp_ev_ids", qp="qp-x", nic="nic0", kind="slot") == 2
    assert {s.labels["device"] for s in got["mrc_link_tx_packets_total"]} == {"t0", "t1"}


def test_a_write_moves_the_qp_plane_and_port_counters(running: Scrapes) -> None:
    before = running.wait(lambda s: True, "watch's metrics")
    plan = running.live.plan
    qp = plan.qp("qp-x")
    assert qp is not None
    a, b = qp.ends
    sender, receiver = running.hosts["nic0"], running.hosts["nic1"]
    peer = plan.fabric.nic("nic1")
    assert peer is not None
    sender.open_qp(a.qpn, peer=str(ipaddress.IPv6Address(peer.ipv6)))
    receiver.open_qp(b.qpn)
    receiver.register(MemoryRegion(base_addr=0, size=1 << 16, rkey=7))
    handle = sender.write(a.qpn, bytes(4096), remote_addr=0, rkey=7, imm=None)
    received = []

    def done() -> bool:
        received.extend(receiver.poll_completions())
        return handle.done and bool(received)
    exchange(running.hosts, done)

    def moved(s: Samples) -> bool:
        return all(value(s, name, **labels) >= value(before, name, **labels) + 4
                   for name, labels in (
                       ("mrc_qp_tx_packets_total", {"nic": "nic0"}),
                       ("mrc_qp_rx_packets_total", {"nic": "nic1"}),
                       ("mrc_plane_nic_tx_packets_total", {"plane": "0"}),
                       ("mrc_link_tx_packets_total", {"device": "t0", "port": "3"}),
                       ("mrc_link_rx_packets_total", {"device": "t1", "port": "1"})))
    running.wait(moved, "the write's packets in the counters")


def _lost_on_uplink(s: Samples) -> float:
    """Packets the T0 sent up that the T1 never received."""
    return value(s, "mrc_link_tx_packets_total", device="t0", port="3") - \
        value(s, "mrc_link_rx_packets_total", device="t1", port="1")


def test_a_link_down_shows_as_drops_ev_events_and_a_restore(running: Scrapes) -> None:
    before = running.wait(lambda s: True, "watch's metrics")
    fabric_before = scrape(running.fabric)
    live = running.live
    live.fabric.panel.set_link("t0:3", up=False)
    try:
        qp = live.plan.qp("qp-x")
        assert qp is not None
        a, b = qp.ends
        here, peer = live.plan.fabric.nic(a.nic), live.plan.fabric.nic(b.nic)
        assert here is not None and peer is not None
        # The host reports PSN 0 (sent by the previous test) lost: the NIC retires the
        # EV that carried it and tells the controller, which tops up and probes.
        route = Route(eth_dst=bytes(6), eth_src=bytes(6),
                      src=ipaddress.IPv6Address(here.ipv6).packed,
                      dst=ipaddress.IPv6Address(peer.ipv6).packed)
        running.hosts["nic0"].port.send(encode_nack(
            route, dest_qp=a.qpn, psn=0, reason=c.NACK_HOST_LOSS_REPORT, nack_psn=0))

        def retired_and_probed(s: Samples) -> bool:
            return (value(s, "mrc_qp_ev_events_total", qp="qp-x", nic="nic0",
                          reason="host-loss") >= 1
                    and value(s, "mrc_controller_events_total", event="probe-sent") >= 1
                    and _lost_on_uplink(s) > _lost_on_uplink(before))
        during = running.wait(retired_and_probed, "the EV event, a probe and its loss")
        assert value(during, "mrc_controller_events_total", event="top-up",
                     device="nic0") >= 1
        assert value(during, "mrc_qp_ev_ids", qp="qp-x", nic="nic0",
                     kind="topped_up") >= 1
        assert value(during, "mrc_qp_ev_retirements_total", nic="nic0") >= 1
        assert value(during, "mrc_plane_ev_retirements_total", plane="0") >= 1
        link = live.fabric.panel.link("t0:3").name
        fabric = running.wait(
            lambda s: value(s, "mrc_fabric_link_dropped_frames_total", link=link,
                            reason="down") > value(fabric_before,
                                                   "mrc_fabric_link_dropped_frames_total",
                                                   link=link, reason="down"),
            "the fabric's count of frames dropped on the link", running.fabric)
        assert value(fabric, "mrc_fabric_link_up", link=link) == 0
    finally:
        live.fabric.panel.set_link("t0:3", up=True)
    after = running.wait(
        lambda s: value(s, "mrc_qp_ev_events_total", nic="nic0", reason="restored") >= 1
        and value(s, "mrc_qp_evs_probing") == 0, "the probes to restore the EV")
    assert value(after, "mrc_controller_events_total", event="restored") >= 1
    # every metric the dashboard queries is exported by one of the two
    exported = set(after) | set(scrape(running.fabric))
    assert dashboard_metrics() <= exported
