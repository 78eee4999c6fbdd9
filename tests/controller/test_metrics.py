"""Prometheus metrics (controller/metrics, docs/metrics.md): the catalog follows
Prometheus' naming rules, the Grafana dashboard queries only what is exported and the
docs name every metric; the collectors, served over loopback and parsed with
prometheus-client's parser, read their sources at scrape time; bad ports are one line."""

from __future__ import annotations

import argparse
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from live_fabric import mrc_ctl, small_on_free_ports
from test_controller_react import Recorder, ev_event

from controller.cli.main import main as mrc_ctl_main
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
from tests.controller.metrics_scrape import (
    DASHBOARD,
    ROOT,
    dashboard_metrics,
    scrape,
    value,
)
from tests.loopback import free_tcp_port

DOCS = ROOT / "docs" / "metrics.md"


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


def test_watch_refuses_bad_metrics_options_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = str(small_on_free_ports(tmp_path))
    with pytest.raises(SystemExit) as exit_code:
        mrc_ctl_main(["watch", topology, "--metrics-port", "70000"])
    assert exit_code.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "argument --metrics-port: 70000 is not a port number (1 to 65535)")
    assert mrc_ctl_main(["watch", topology, "--once", "--metrics-port", "9100"]) == 2
    assert capsys.readouterr().err == \
        "--metrics-port: not with --once (nothing would stay to be scraped)\n"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert mrc_ctl_main(["watch", topology, "--metrics-port", str(port)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"--metrics-port {port}: cannot listen on 127.0.0.1:{port}: ")
    help_text = mrc_ctl("watch", "--help").stdout
    assert "--metrics-port N" in help_text and "docs/metrics.md" in help_text
