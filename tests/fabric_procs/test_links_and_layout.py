"""The pure parts of fabric.procs: link failure injection (LinkState) and the layout a
topology file gives (devices, cables, host sockets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.topology import load_topology
from fabric.procs import Endpoint, LayoutError, LinkState, layout_from_topology

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"
PRODUCTION = ROOT / "controller" / "examples" / "production.yaml"

FRAMES = [bytes([i]) for i in range(200)]


def test_a_link_that_is_down_drops_and_counts_everything() -> None:
    link = LinkState("a:1-b:1", ("a:1", "b:1"), seed=0)
    link.up = False
    assert link.admit(0, FRAMES) == []
    assert link.counters[0].dropped_down == 200
    link.up = True
    assert link.admit(1, FRAMES) == FRAMES
    assert link.counters[1].forwarded == 200
    assert link.counters[0].forwarded == 0


def test_loss_is_per_frame_in_order_and_reproducible_from_the_seed() -> None:
    runs = []
    for _ in range(2):
        link = LinkState("a:1-b:1", ("a:1", "b:1"), seed=7)
        link.set_loss(0.5)
        runs.append(link.admit(0, FRAMES))
        counters = link.counters[0]
        assert counters.forwarded + counters.dropped_loss == 200
        assert counters.forwarded == len(runs[-1])
    assert runs[0] == runs[1]
    assert 0 < len(runs[0]) < 200
    assert runs[0] == sorted(runs[0])  # survivors keep their order
    other = LinkState("a:1-b:1", ("a:1", "b:1"), seed=8)
    other.set_loss(0.5)
    assert other.admit(0, FRAMES) != runs[0]


def test_loss_probability_must_be_a_probability() -> None:
    link = LinkState("a:1-b:1", ("a:1", "b:1"), seed=0)
    link.set_loss(1.0)
    assert link.admit(0, FRAMES) == []
    with pytest.raises(ValueError, match="between 0 and 1"):
        link.set_loss(1.5)


def test_endpoint_text() -> None:
    assert Endpoint.parse("p0-t0-0:3") == Endpoint("p0-t0-0", 3)
    assert str(Endpoint("nic0", 0)) == "nic0:0"
    for bad in ("nic0", ":1", "nic0:x", "nic0:-1"):
        with pytest.raises(ValueError, match="DEVICE:PORT"):
            Endpoint.parse(bad)


def test_small_topology_layout(tmp_path: Path) -> None:
    layout = layout_from_topology(load_topology(SMALL), tmp_path)
    assert len(layout.devices) == 12
    assert sum(d.role == "nic" for d in layout.devices) == 4
    assert len({d.grpc_address for d in layout.devices}) == 12
    assert len({d.packet_in for d in layout.devices}) == 12
    assert all(d.packet_in.startswith(f"ipc://{tmp_path.resolve()}/") for d in layout.devices)
    # 8 NIC links and 8 uplinks, each once, each port on at most one cable
    assert len(layout.cables) == 16
    ends = [e for c in layout.cables for e in (c.a, c.b)]
    assert len(set(ends)) == 32
    assert Endpoint("nic0", 1) in ends and Endpoint("p1-t1-1", 2) in ends
    assert {(h.port, h.address) for h in layout.host_sockets} == {
        (Endpoint(f"nic{n}", 0), f"ipc://{tmp_path.resolve()}/nic{n}-host.ipc")
        for n in range(4)}


def test_layouts_the_launcher_cannot_run(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="at most 256"):
        layout_from_topology(load_topology(PRODUCTION), tmp_path)
    deep = tmp_path / ("x" * 100)
    with pytest.raises(LayoutError, match="shorter --workdir"):
        layout_from_topology(load_topology(SMALL), deep)
