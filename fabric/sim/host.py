"""A host behind a NIC's host port: a ``host.Endpoint`` driven in virtual time.

The endpoint's clock reads the simulation's time (in seconds, as the endpoint wants
it). Frames it sends reach the NIC's host port after ``delay_us``; frames the NIC
delivers are handed to ``handle_frame``. After every call into the endpoint its timer
is re-armed at ``next_deadline()`` (only when that is earlier than the wake-up already
scheduled: a wake-up that comes early is harmless, ``on_timer`` does nothing then).
"""

from __future__ import annotations

from collections.abc import Callable

from host import Endpoint, TransportConfig
from host.completions import Completion
from host.ports import Receiver
from protocol import constants as c

from .device import SimDevice
from .events import EventLoop


class EnvClock:
    """Virtual time (microseconds) as the endpoint's clock (seconds)."""

    def __init__(self, env: EventLoop) -> None:
        self.env = env

    def now(self) -> float:
        return self.env.now / 1e6


class HostPort:
    """The endpoint's ``PacketPort``: frames go to the NIC's host port."""

    def __init__(self, env: EventLoop, nic: SimDevice, delay_us: float) -> None:
        self.env = env
        self.nic = nic
        self.delay_us = delay_us
        self.sent = 0

    def send(self, frame: bytes) -> None:
        self.sent += 1
        self.env.call_later(self.delay_us, self.nic.receive, c.NIC_HOST_PORT, frame)

    def set_receiver(self, receiver: Receiver | None) -> None:
        pass  # frames are pushed into the endpoint by SimHost.deliver

    def poll(self, timeout_s: float = 0.0) -> int:
        return 0

    def close(self) -> None:
        pass


class SimHost:
    def __init__(self, env: EventLoop, name: str, nic: SimDevice, address: str,
                 config: TransportConfig, delay_us: float,
                 on_complete: Callable[[Completion], object] | None = None) -> None:
        self.env = env
        self.name = name
        self.nic = nic
        self.port = HostPort(env, nic, delay_us)
        self.endpoint = Endpoint(self.port, address, clock=EnvClock(env), config=config,
                                 on_complete=on_complete)
        self._wake_at: float | None = None

    def deliver(self, _port: int, frame: bytes) -> None:
        """A frame from the NIC's host port."""
        self.endpoint.handle_frame(frame)
        self.rearm()

    def rearm(self) -> None:
        deadline = self.endpoint.next_deadline()
        if deadline is None:
            return
        # A hair past the deadline, so that the endpoint, converting back to seconds,
        # is sure to find the timer due.
        at = max(deadline * 1e6 + 1e-6, self.env.now)
        if self._wake_at is None or at < self._wake_at:
            self._wake_at = at
            self.env.call_later(at - self.env.now, self._wake, at)

    def _wake(self, at: float) -> None:
        if self._wake_at != at:
            return  # superseded by an earlier wake-up, which re-armed the timer
        self._wake_at = None
        self.endpoint.on_timer()
        self.rearm()
