"""``python -m fabric.procs up --metrics-port N``: the fabric's devices and links at
``/metrics`` (docs/metrics.md), scraped over loopback and parsed with prometheus-client's
parser while a host sends frames and links are taken down and made lossy; ``run
--metrics-port N`` serves its controller's and its fabric's; a bad or taken port is one
line, exit 2, nothing left running. Waits poll; nothing is timed."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.events import EventLog
from controller.metrics import ALL_METRICS, FABRIC_METRICS, MetricsServer
from controller.plan import make_plan
from controller.react import Reactor
from controller.topology import load_topology
from fabric.procs import ProcessFabric, layout_from_topology
from fabric.procs.cli import main
from fabric.procs.control import request
from fabric.procs.run_cmd import _collected_by
from fabric.procs.state import read_state
from host import NanomsgPort
from tests.controller.metrics_scrape import Samples, scrape, value
from tests.fabric_procs.helpers import fabric_cli, tiny
from tests.loopback import free_tcp_port, wait_until

HOST_LINK = "nic0:0-host"  # tiny's one NIC, its host port


def wait_scrape(url: str, condition: Callable[[Samples], bool], what: str) -> Samples:
    got: list[Samples] = []

    def holds() -> bool:
        got[:] = [scrape(url)]
        return condition(got[0])
    wait_until(holds, what)
    return got[0]


def test_up_serves_the_devices_and_links_and_they_move(workdir: Path) -> None:
    port = free_tcp_port()
    up = fabric_cli("up", tiny(workdir), "--workdir", workdir, "--metrics-port", str(port))
    assert up.returncode == 0, up.stderr
    url = f"http://127.0.0.1:{port}/metrics"
    assert f"metrics: {url}" in up.stdout
    try:
        first = scrape(url)
        assert set(first) == {m.name for m in FABRIC_METRICS}
        assert {(s.labels["device"], s.value) for s in first["mrc_fabric_device_up"]} == {
            ("t1", 1), ("t0", 1), ("nic0", 1)}
        assert value(first, "mrc_fabric_link_up") == 3  # two cables and the host link
        state = read_state(workdir)
        assert state is not None
        nic = next(d for d in state.devices if d.name == "nic0")
        host = NanomsgPort(nic.host_socket or "")
        try:
            for _ in range(5):
                host.send(bytes(64))
            wait_scrape(url, lambda s: value(s, "mrc_fabric_link_frames_total",
                                             link=HOST_LINK, source="host") == 5,
                        "the host's frames on its link")
            # what ``link nic0:0 down`` asks the running fabric
            request(state.control_socket, {"op": "link", "port": "nic0:0", "up": False})
            for _ in range(3):
                host.send(bytes(64))
            dropped = wait_scrape(
                url, lambda s: value(s, "mrc_fabric_link_dropped_frames_total",
                                     link=HOST_LINK, source="host", reason="down") == 3,
                "the frames dropped on the link down")
        finally:
            host.close()
        assert value(dropped, "mrc_fabric_link_up", link=HOST_LINK) == 0
        assert value(dropped, "mrc_fabric_link_frames_total", link=HOST_LINK) == 5
        request(state.control_socket, {"op": "link", "port": "t0:1", "loss": 0.25})
        assert value(scrape(url), "mrc_fabric_link_loss_ratio") == 0.25
    finally:
        down = fabric_cli("down", "--workdir", workdir)
    assert down.returncode == 0, down.stderr


def test_a_bad_or_taken_metrics_port_is_one_line_and_starts_nothing(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = str(tiny(workdir))
    with pytest.raises(SystemExit) as exit_code:
        main(["up", topology, "--workdir", str(workdir), "--metrics-port", "0"])
    assert exit_code.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "argument --metrics-port: 0 is not a port number (1 to 65535)")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        expected = f"fabric.procs: --metrics-port {port}: cannot listen on 127.0.0.1:{port}: "
        # in the foreground here; in the background the supervisor says it
        assert main(["up", topology, "--workdir", str(workdir), "--metrics-port",
                     str(port), "--foreground"]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(expected)
        refused = fabric_cli("up", topology, "--workdir", workdir, "--metrics-port", str(port))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(expected)
    state = read_state(workdir)
    assert state is None or state.status != "up"
    assert not [p for p in workdir.iterdir() if p.is_socket()]


def test_run_serves_the_controller_and_the_fabric_of_its_run(
        workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What ``run --metrics-port`` registers once its fabric and controller exist
    (before either starts: every device unreachable, every process down); a taken port
    is refused before anything starts."""
    topology = tiny(workdir)
    layout = layout_from_topology(load_topology(topology), workdir)
    reactor = Reactor(make_plan(load_topology(topology)), EventLog(out=None))
    with MetricsServer(free_tcp_port(), []) as server:
        register = _collected_by(server)
        assert register is not None
        register(ProcessFabric(layout, workdir), reactor)
        got = scrape(server.url)
    assert set(got) == {m.name for m in ALL_METRICS}
    assert value(got, "mrc_device_reachable") == 0 and len(got["mrc_device_reachable"]) == 3
    assert value(got, "mrc_fabric_device_up") == 0 and len(got["mrc_fabric_device_up"]) == 3
    assert f"metrics at {server.url}" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["run", "spray", "--workdir", str(workdir / "run"),
                     "--metrics-port", str(port)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fabric.procs: --metrics-port {port}: cannot listen ")
