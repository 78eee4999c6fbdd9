"""The patch panel between two real bm switch processes (started by DeviceProcesses,
programmed over P4Runtime with tests/p4/forward_next_port.p4: a frame that enters port
p leaves port p + 1 with source MAC aa:aa:aa:aa:aa:aa).

    host h1 -> s1:1 -> s1:2 == cable == s2:1 -> s2:2 -> host h2
    host h3 -> s2:0 -> s2:1 == cable == s1:2 -> s1:3 -> host h4

Hosts dial the panel's host sockets with host.NanomsgPort, as host software does.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.program import load_program
from fabric.procs import (
    CableSpec,
    DeviceProcesses,
    DeviceSpec,
    Endpoint,
    FabricLayout,
    HostSocketSpec,
    PatchPanel,
)
from fabric.procs.launcher import switch_command
from host import NanomsgPort
from p4rt_client import P4RuntimeSession
from tests.loopback import free_tcp_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "p4" / "forward_next_port.p4"
HOSTS = {"h1": Endpoint("s1", 1), "h2": Endpoint("s2", 2), "h3": Endpoint("s2", 0),
         "h4": Endpoint("s1", 3)}
SEED = 3


def frame(n: int) -> bytes:
    return bytes.fromhex("020000000002" "020000000001" "88b5") + n.to_bytes(4, "big") * 8


def forwarded(n: int) -> bytes:
    """``frame(n)`` as the program sends it on: source MAC rewritten."""
    return frame(n)[:6] + bytes.fromhex("aaaaaaaaaaaa") + frame(n)[12:]


class Host:
    """A host on one host socket, collecting what it receives."""

    def __init__(self, address: str, port: int) -> None:
        self.port = NanomsgPort(address, port=port)
        self.got: list[bytes] = []
        self.port.set_receiver(self.got.append)

    def send(self, frames: list[bytes]) -> None:
        for f in frames:
            self.port.send(f)

    def receive(self, count: int) -> list[bytes]:
        wait_until(lambda: self.port.poll(0.05) >= 0 and len(self.got) >= count,
                   f"{count} frames")
        got = self.got[:]
        self.got.clear()  # in place: the port's receiver appends to this list
        return got


@dataclass
class Bench:
    panel: PatchPanel
    hosts: dict[str, Host]
    processes: DeviceProcesses
    devices: tuple[DeviceSpec, ...]


def program(device: DeviceSpec) -> None:
    p4info = generate_p4info(load_program(str(PROGRAM)).checked)
    with P4RuntimeSession(device.grpc_address, device.device_id) as session:
        session.connect()
        session.set_pipeline(p4info, make_bundle(str(PROGRAM)))


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    work = Path(tmp_path_factory.mktemp("panel"))
    devices = tuple(DeviceSpec(name, "switch", 1, f"127.0.0.1:{free_tcp_port()}",
                               f"ipc://{work}/{name}.ipc", str(work / f"{name}.log"))
                    for name in ("s1", "s2"))
    layout = FabricLayout(
        "two", devices, (CableSpec(Endpoint("s1", 2), Endpoint("s2", 1)),),
        tuple(HostSocketSpec(port, f"ipc://{work}/{host}.ipc")
              for host, port in HOSTS.items()))
    processes = DeviceProcesses(devices)
    processes.start()
    panel = PatchPanel(layout, seed=SEED)
    hosts: dict[str, Host] = {}
    try:
        processes.wait_ready()
        for device in devices:
            program(device)
        panel.start()
        hosts = {h: Host(f"ipc://{work}/{h}.ipc", port.port) for h, port in HOSTS.items()}
        yield Bench(panel, hosts, processes, devices)
    finally:
        for host in hosts.values():
            host.port.close()
        panel.close()
        processes.stop()


def counters(bench: Bench, port: str, direction: int) -> dict[str, int]:
    snapshot = bench.panel.snapshot()
    name = bench.panel.link(port).name
    link = next(link for link in snapshot["links"] if link["name"] == name)  # type: ignore[index,union-attr]
    return link["counters"][direction]  # type: ignore[no-any-return]


def test_frames_cross_the_cable_both_ways(bench: Bench) -> None:
    h1, h2, h3, h4 = (bench.hosts[h] for h in ("h1", "h2", "h3", "h4"))
    h1.send([frame(n) for n in range(50)])
    assert h2.receive(50) == [forwarded(n) for n in range(50)]
    h3.send([frame(n) for n in range(50, 60)])
    assert h4.receive(10) == [forwarded(n) for n in range(50, 60)]
    assert counters(bench, "s1:2", 0)["forwarded"] >= 50  # s1 -> s2
    assert counters(bench, "s2:1", 1)["forwarded"] >= 10  # s2 -> s1


def test_frames_out_of_a_port_without_a_link_are_counted(bench: Bench) -> None:
    before = bench.panel.unlinked["s2:3"]
    bench.hosts["h2"].send([frame(n) for n in range(5)])  # enters s2:2, leaves s2:3
    wait_until(lambda: bench.panel.unlinked["s2:3"] == before + 5, "5 unlinked frames")
    snapshot = bench.panel.snapshot()
    assert snapshot["unlinked"]["s2:3"] == before + 5  # type: ignore[index]


def test_link_down_and_up(bench: Bench) -> None:
    h1, h2 = bench.hosts["h1"], bench.hosts["h2"]
    dropped = counters(bench, "s1:2", 0)["dropped_down"]
    bench.panel.set_link("s2:1", up=False)  # either end names the cable
    try:
        h1.send([frame(n) for n in range(20)])
        wait_until(lambda: counters(bench, "s1:2", 0)["dropped_down"] == dropped + 20,
                   "20 frames dropped by the link")
    finally:
        bench.panel.set_link("s1:2", up=True)
    h1.send([frame(100)])
    assert h2.receive(1) == [forwarded(100)]  # and none of the 20


def test_loss_drops_a_share_and_counts_it(bench: Bench) -> None:
    h1, h2 = bench.hosts["h1"], bench.hosts["h2"]
    start = counters(bench, "s1:2", 0)
    bench.panel.set_link("s1:2", loss=0.5)
    try:
        h1.send([frame(n) for n in range(200)])

        def settled() -> bool:
            now = counters(bench, "s1:2", 0)
            return (now["forwarded"] + now["dropped_loss"]
                    == start["forwarded"] + start["dropped_loss"] + 200)
        wait_until(settled, "200 frames through the lossy link")
    finally:
        bench.panel.set_link("s1:2", loss=0.0)
    kept = counters(bench, "s1:2", 0)["forwarded"] - start["forwarded"]
    assert 0 < kept < 200
    got = h2.receive(kept)
    assert len(got) == kept and got == sorted(got)  # the survivors, in order
    assert set(got) <= {forwarded(n) for n in range(200)}


def test_the_host_link_fails_like_a_cable(bench: Bench) -> None:
    h1, h2 = bench.hosts["h1"], bench.hosts["h2"]
    bench.panel.set_link("s1:1", up=False)  # h1's host socket
    try:
        h1.send([frame(n) for n in range(3)])
        wait_until(lambda: counters(bench, "s1:1", 1)["dropped_down"] >= 3,
                   "3 frames dropped at the host socket")
    finally:
        bench.panel.set_link("s1:1", up=True)
    h1.send([frame(7)])
    assert h2.receive(1) == [forwarded(7)]


def test_unknown_ports_and_bad_settings_are_refused(bench: Bench) -> None:
    with pytest.raises(KeyError, match="s1:9 has no link"):
        bench.panel.set_link("s1:9", up=False)
    with pytest.raises(ValueError, match="between 0 and 1"):
        bench.panel.set_link("s1:2", loss=2.0)


def test_a_restarted_device_is_cabled_again(bench: Bench) -> None:
    """Last (it restarts s2): the panel dials a device that closed its socket again
    until it answers, so a switch restarted on its address carries traffic again."""
    s2 = next(d for d in bench.devices if d.name == "s2")
    process = bench.processes.processes["s2"]
    process.kill()
    process.wait()
    wait_until(lambda: bench.panel.snapshot()["devices_lost"] == ["s2"], "s2 lost")
    bench.processes.processes["s2"] = subprocess.Popen(
        switch_command(s2), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until(lambda: bench.panel.snapshot()["devices_lost"] == [], "s2 dialled again")
    wait_until(lambda: _answers(s2), "s2's P4Runtime server")
    program(s2)  # a new process starts without a pipeline
    h1, h2 = bench.hosts["h1"], bench.hosts["h2"]
    h1.send([frame(n) for n in range(100, 110)])
    assert h2.receive(10) == [forwarded(n) for n in range(100, 110)]


def _answers(device: DeviceSpec) -> bool:
    try:
        with P4RuntimeSession(device.grpc_address, device.device_id) as session:
            session.connect()
    except Exception:  # noqa: BLE001 - not up yet, whatever the client says
        return False
    return True
