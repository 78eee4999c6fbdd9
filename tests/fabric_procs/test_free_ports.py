"""fabric.procs.free_ports: ports nothing listens on, never the same one twice in a
process, within ``MRC_FREE_PORTS`` when it is set (the suite's workers each have one)."""

from __future__ import annotations

import socket

import pytest

from fabric.procs import free_ports
from fabric.procs.free_ports import PORT_RANGE_VARIABLE, free_tcp_port, port_range
from tests.loopback import free_port_base


def test_a_range_is_low_dash_high_and_anything_else_is_ignored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PORT_RANGE_VARIABLE, "23000-23099")
    assert port_range() == (23000, 23099)
    for bad in ("", "23000", "x-y", "9-3", "0-10", "1-70000"):
        monkeypatch.setenv(PORT_RANGE_VARIABLE, bad)
        assert port_range() is None, bad


def test_ports_come_from_the_range_and_skip_a_taken_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # four ports of this worker's own range: next to a kernel-given (ephemeral) port,
    # another worker's connection may take one of them meanwhile (seen in CI)
    busy = free_port_base(4)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", busy))
        taken.listen()
        monkeypatch.setenv(PORT_RANGE_VARIABLE, f"{busy}-{busy + 3}")
        monkeypatch.setattr(free_ports, "_handed_out", set())
        given = {free_tcp_port() for _ in range(3)}
        assert busy not in given
        assert all(busy < port <= busy + 3 for port in given) and len(given) == 3
        with pytest.raises(OSError, match="no free TCP port left"):
            free_tcp_port()


def test_moving_a_topology_keeps_its_addresses_distinct_when_a_new_port_was_an_old_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the kernel may hand out a port the topology already names (seen in CI: two devices
    # ended on one address when addresses were replaced one after another)
    new_ports = iter([50002, 50007, 50008])
    monkeypatch.setattr(free_ports, "free_tcp_port", lambda: next(new_ports))
    text = ('a: "127.0.0.1:50001"\nb: "127.0.0.1:50002"\nc: "127.0.0.1:50001"\n'
            'd: "127.0.0.1:50003"\nport: 50001\n')
    moved = free_ports.move_to_free_ports(text)
    assert moved == ('a: "127.0.0.1:50002"\nb: "127.0.0.1:50007"\nc: "127.0.0.1:50002"\n'
                     'd: "127.0.0.1:50008"\nport: 50001\n')


def test_a_reserved_port_is_never_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # a fabric's devices start one after another: a port chosen for one device's own
    # use (BMv2's Thrift) must not be the gRPC port of a device not listening yet
    monkeypatch.setattr(free_ports, "_handed_out", set())
    low = free_port_base(3)
    monkeypatch.setenv(PORT_RANGE_VARIABLE, f"{low}-{low + 2}")
    free_ports.reserve_tcp_ports([f"127.0.0.1:{low}", f"127.0.0.1:{low + 1}", "bad"])
    assert free_tcp_port() == low + 2
    with pytest.raises(OSError, match="no free TCP port"):
        free_tcp_port()
