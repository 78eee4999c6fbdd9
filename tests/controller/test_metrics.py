"""Prometheus metrics (controller/metrics, docs/metrics.md): the catalog follows
Prometheus' naming rules, the Grafana dashboard queries only what is exported and the
docs name every metric; the collectors, served over loopback and parsed with
prometheus-client's parser, read their sources at scrape time; bad ports are one line.

``scrape`` and ``value`` are shared with the live tests (test_metrics_live.py,
tests/fabric_procs/test_procs_metrics.py)."""

from __future__ import annotations

import argparse
import json
import re
import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from live_fabric import mrc_ctl, small_on_free_ports
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from test_controller_react import Recorder, ev_event

from controller.events import EventLog
from controller.metrics import (
    ALL_METRICS,
    CONTROLLER_METRICS,
    FABRIC_METRICS,
    ControllerCollector,
    DeviceProcess,
    FabricCollector,
    MetricsError,
    MetricsServer,
)
from controller.metrics.catalog import COUNTER
from controller.metrics.server import port_number
from controller.plan import FabricPlan
from controller.react import Reactor
from protocol import constants as c
from tests.loopback import free_tcp_port

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "tools" / "grafana" / "mrc-fabric.json"
DOCS = ROOT / "docs" / "metrics.md"
SCRAPE_TIMEOUT_S = 60.0  # a scrape reads every device; generous on a loaded machine


def scrape(url: str) -> dict[str, list[Sample]]:
    """``/metrics`` at ``url``, parsed by prometheus-client: samples by sample name,
    with every metric exported (``_total`` on counters) a key, if without samples."""
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_S) as reply:
        text = reply.read().decode()
    samples: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(text):
        samples.setdefault(family.name + ("_total" if family.type == COUNTER else ""), [])
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def value(samples: dict[str, list[Sample]], name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels``."""
    return sum(s.value for s in samples.get(name, ())
               if all(s.labels.get(k) == v for k, v in labels.items()))


def dashboard_metrics() -> set[str]:
    """Every metric name in the dashboard's query expressions."""
    board = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", ())]
    assert exprs
    return {name for e in exprs for name in re.findall(r"\bmrc_[a-z0-9_]+", e)}


# -- names, dashboard, docs --------------------------------------------------------------
def test_every_metric_follows_prometheus_naming() -> None:
    names = [m.name for m in ALL_METRICS]
    assert len(names) == len(set(names))
    for metric in ALL_METRICS:
        assert re.fullmatch(r"mrc_[a-z0-9_]+", metric.name), metric.name
        assert metric.name.endswith("_total") == (metric.kind == COUNTER), metric.name
        assert all(re.fullmatch(r"[a-z][a-z0-9_]*", label) for label in metric.labels)
        assert metric.help


def test_the_dashboard_queries_exactly_the_exported_metrics() -> None:
    board = json.loads(DASHBOARD.read_text())
    assert board["uid"] and board["title"]
    (variable,) = board["templating"]["list"]
    assert (variable["type"], variable["query"]) == ("datasource", "prometheus")
    assert dashboard_metrics() == {m.name for m in ALL_METRICS}


def test_the_docs_name_every_metric_with_its_labels() -> None:
    text = DOCS.read_text()
    for metric in ALL_METRICS:
        line = next((x for x in text.splitlines() if f"`{metric.name}`" in x), None)
        assert line is not None, f"{metric.name} is not in {DOCS.name}"
        for label in metric.labels:
            assert f"`{label}`" in line, (metric.name, label)


# -- the collectors over loopback ---------------------------------------------------------
def _link(name: str, ends: tuple[str, str], up: bool = True) -> dict[str, Any]:
    return {"name": name, "ends": list(ends), "up": up, "loss": 0.0,
            "counters": [{"forwarded": 0, "dropped_down": 0, "dropped_loss": 0}
                         for _ in ends]}


def test_the_fabric_collector_reads_its_snapshot_at_each_scrape() -> None:
    link = _link("t0:1-nic0:1", ("t0:1", "nic0:1"))
    snapshot: dict[str, Any] = {"links": [link], "unlinked": {}, "undelivered": 0,
                                "hosts": [], "devices_lost": []}
    devices = [DeviceProcess("t0", "t0", True), DeviceProcess("nic0", "nic", True)]
    collector = FabricCollector(lambda: snapshot, lambda: devices)
    with MetricsServer(free_tcp_port(), [collector]) as server:
        first = scrape(server.url)
        assert set(first) == {m.name for m in FABRIC_METRICS}
        assert value(first, "mrc_fabric_device_up") == 2
        assert value(first, "mrc_fabric_link_up", link="t0:1-nic0:1") == 1
        assert value(first, "mrc_fabric_link_frames_total", source="nic0:1") == 0
        link["counters"][1]["forwarded"] = 5
        link["counters"][0]["dropped_down"] = 3
        link["up"], link["loss"] = False, 0.25
        snapshot["devices_lost"] = ["nic0"]
        snapshot["unlinked"] = {"t0:9": 2}
        second = scrape(server.url)
    assert value(second, "mrc_fabric_link_frames_total", source="nic0:1") == 5
    assert value(second, "mrc_fabric_link_dropped_frames_total", source="t0:1",
                 reason="down") == 3
    assert value(second, "mrc_fabric_link_up") == 0
    assert value(second, "mrc_fabric_link_loss_ratio") == 0.25
    assert value(second, "mrc_fabric_device_up", device="nic0") == 0
    assert value(second, "mrc_fabric_unlinked_frames_total", port="t0:9") == 2


def test_the_controller_collector_follows_the_reactor(small: FabricPlan) -> None:
    """Not started: every device unreachable; EV events handled as ``watch`` does show
    in the counters and gauges at the next scrape."""
    reactor = Reactor(small, EventLog(out=None))
    Recorder(reactor.links["nic0"]).install()  # the top-up write and the probe
    qp = small.qp("qp-a")
    assert qp is not None
    end = qp.ends[0]
    with MetricsServer(free_tcp_port(), [ControllerCollector(reactor)]) as server:
        before = scrape(server.url)
        assert value(before, "mrc_device_reachable") == 0
        assert len(before["mrc_device_reachable"]) == 12
        assert value(before, "mrc_device_state", state="connecting") == 12
        assert value(before, "mrc_qp_ev_ids", qp="qp-a", nic="nic0", kind="slot") == \
            qp.evs_per_plane * small.fabric.planes
        assert value(before, "mrc_qp_ev_ids", kind="topped_up") == 0
        assert set(before) == {m.name for m in CONTROLLER_METRICS}
        assert before["mrc_qp_ev_events_total"] == []
        retired = 0x0001_0002  # plane 0
        reactor.handle_digest("nic0", ev_event(end.qpn, end.qp_index, 2, retired,
                                               0x0002_0100, c.EV_EVENT_HOST_LOSS))
        reactor.send_due_probes()
        during = scrape(server.url)
        assert value(during, "mrc_qp_ev_events_total", qp="qp-a", nic="nic0",
                     reason="host-loss") == 1
        assert value(during, "mrc_qp_ev_ids", qp="qp-a", nic="nic0", plane="0",
                     kind="topped_up") == 1
        assert value(during, "mrc_qp_evs_probing", qp="qp-a", plane="0") == 1
        assert value(during, "mrc_controller_events_total", event="probe-sent",
                     device="nic0") == 1
        reactor.handle_digest("nic0", ev_event(end.qpn, end.qp_index, 2, 0, retired,
                                               c.EV_EVENT_RESTORED))
        after = scrape(server.url)
    assert value(after, "mrc_qp_evs_probing") == 0
    assert value(after, "mrc_qp_ev_events_total", reason="restored") == 1
    assert value(after, "mrc_qp_ev_events_total") == 2
    assert value(after, "mrc_controller_events_total", event="digest") == 2


# -- bad input ----------------------------------------------------------------------------
def test_a_port_in_use_is_one_line_naming_it() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MetricsError) as error:
            MetricsServer(port, [])
    text = str(error.value)
    assert f"--metrics-port {port}: cannot listen on 127.0.0.1:{port}" in text
    assert "\n" not in text
    for bad in ("0", "65536", "x", "-1", "80.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            port_number(bad)
    assert port_number("9100") == 9100


def test_watch_refuses_bad_metrics_options_in_one_line(tmp_path: Path) -> None:
    topology = small_on_free_ports(tmp_path)
    bad_port = mrc_ctl("watch", topology, "--metrics-port", "70000")
    assert bad_port.returncode == 2
    assert "--metrics-port: 70000 is not a port number (1 to 65535)" in bad_port.stderr
    once = mrc_ctl("watch", topology, "--once", "--metrics-port", str(free_tcp_port()))
    assert (once.returncode, once.stderr.strip()) == (
        2, "--metrics-port: not with --once (nothing would stay to be scraped)")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        in_use = mrc_ctl("watch", topology, "--metrics-port", str(port))
    assert in_use.returncode == 2
    (line,) = in_use.stderr.strip().splitlines()
    assert line.startswith(f"--metrics-port {port}: cannot listen on 127.0.0.1:{port}: ")
    help_text = mrc_ctl("watch", "--help").stdout
    assert "--metrics-port N" in help_text and "docs/metrics.md" in help_text
