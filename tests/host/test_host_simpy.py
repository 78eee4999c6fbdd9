"""Driving endpoints from a simpy discrete-event simulation, as the fabric simulator
will: the clock is ``env.now``, frames cross links with a delay, each arriving frame is
one ``handle_frame`` call, and each endpoint's timer is re-armed at ``next_deadline()``
after every call into it. The NICs are the fake pair of tests/host/fake_nic.py."""

from __future__ import annotations

import random
from collections.abc import Callable, Generator

import simpy
from fake_nic import DELIVER, DROP, BackToBack
from host_harness import LOCAL, PEER, QP

from host.completions import WriteHandle
from host.config import TransportConfig
from host.endpoint import Endpoint
from host.memory import MemoryRegion
from host.ports import Receiver

LINK_DELAY = 2e-6  # seconds, host <-> NIC <-> NIC, each way


class EnvClock:
    """simpy's virtual time as the endpoint's clock."""

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env

    def now(self) -> float:
        return self.env.now


class SimPort:
    """A host port whose frames take LINK_DELAY to reach the NIC (``to_nic``) and back
    (``deliver``); after each received frame the host's timer is re-armed."""

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.to_nic: Callable[[bytes], None] = lambda _frame: None
        self.after_receive: Callable[[], None] = lambda: None
        self._receiver: Receiver | None = None

    def _later(self, action: Callable[[], None]) -> None:
        def run() -> Generator[simpy.Event, object, None]:
            yield self.env.timeout(LINK_DELAY)
            action()
        self.env.process(run())

    def send(self, frame: bytes) -> None:
        self._later(lambda: self.to_nic(frame))

    def deliver(self, frame: bytes) -> None:
        def receive() -> None:
            if self._receiver is not None:
                self._receiver(frame)
            self.after_receive()
        self._later(receive)

    def set_receiver(self, receiver: Receiver | None) -> None:
        self._receiver = receiver

    def take_sent(self) -> list[bytes]:
        return []  # frames leave through ``send`` at once

    def poll(self, timeout_s: float = 0.0) -> int:
        return 0  # frames arrive as simulation events

    def close(self) -> None:
        pass


class Timer:
    """One endpoint's timer: a simpy process per arming; a newer arming makes the
    older ones stale."""

    def __init__(self, env: simpy.Environment, endpoint: Endpoint) -> None:
        self.env = env
        self.endpoint = endpoint
        self._generation = 0
        self.fired = 0

    def rearm(self) -> None:
        deadline = self.endpoint.next_deadline()
        self._generation += 1
        if deadline is not None:
            self.env.process(self._wait(deadline, self._generation))

    def _wait(self, deadline: float, generation: int
              ) -> Generator[simpy.Event, object, None]:
        yield self.env.timeout(max(0.0, deadline - self.env.now))
        if generation == self._generation:
            self.fired += 1
            self.endpoint.on_timer()
            self.rearm()


def simulate(loss: float, seed: int) -> tuple[Endpoint, Endpoint, Timer, WriteHandle]:
    env = simpy.Environment()
    clock = EnvClock(env)
    config = TransportConfig(rto=50e-6, max_retries=100)  # RTO well above the 8 us RTT
    hosts = []
    for local, peer in ((LOCAL, PEER), (PEER, LOCAL)):
        endpoint = Endpoint(SimPort(env), local, clock=clock, config=config)
        endpoint.open_qp(QP, peer)
        hosts.append(endpoint)
    a, b = hosts
    region = b.register(MemoryRegion(0, 1 << 20, rkey=1))
    rng = random.Random(seed)
    net = BackToBack(a, b, clock, lambda _p: DROP if rng.random() < loss else DELIVER)  # type: ignore[arg-type]
    timers = [Timer(env, endpoint) for endpoint in hosts]
    for index, (endpoint, timer) in enumerate(zip(hosts, timers, strict=True)):
        endpoint.port.to_nic = lambda frame, i=index: net.transmit(i, frame)
        endpoint.port.after_receive = timer.rearm
    payload = random.Random(seed + 1).randbytes(300_000)
    handle = a.write(QP, payload, 0x100, rkey=1)
    timers[0].rearm()
    env.run()
    assert region.read(0x100, len(payload)) == payload
    return a, b, timers[0], handle


def test_lossless_transfer_needs_no_timer() -> None:
    a, b, timer, handle = simulate(loss=0.0, seed=1)
    assert handle.ok and timer.fired == 0
    assert a.qp_stats(QP).retransmits == 0
    assert [c.length for c in b.poll_completions()] == [300_000]


def test_lossy_transfer_recovers_in_virtual_time() -> None:
    a, b, _timer, handle = simulate(loss=0.1, seed=2)
    assert handle.ok
    stats = a.qp_stats(QP)
    assert stats.retransmits > 0 and stats.loss_reports > 0
    assert len(b.poll_completions()) == 1
