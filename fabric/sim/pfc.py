"""Priority flow control (IEEE 802.1Qbb) for the RoCE baseline's lossless class.

PFC works below the P4 pipeline, in the MAC: a device counts the packets of the
lossless class that arrived on each of its ports and still wait in its egress queues
(for any port). When a port's count reaches ``xoff_packets``, the device sends a PAUSE
for that priority back on the port, and the device at the far end stops sending that
priority on it (the frame already on the wire goes on); when the count falls to
``xon_packets``, a second frame resumes it. The paused sender's queue then fills, its
own ports reach XOFF in turn, and the pause spreads upstream: head-of-line blocking
of every flow that shares a paused port with the congested traffic, which is how
RoCE hurts flows that never cross the congested link (the MRC paper's incast victim).

Modelled: the per-ingress-port count, XOFF/XON with hysteresis, PAUSE and resume frames
that take the cable's propagation delay and are lost with a cable that is down, and a
pause that holds until its resume (a real sender refreshes its pause quanta while the
count stays above XON, which comes to the same). Not modelled: headroom (the RoCE run's
queues are deep enough to drop nothing, ``fabric.runner.roce_queue_depth``), pause
quanta, and the host port (the host is paced by its own window). Other priorities, the
control traffic (ACKs, NAKs and CNPs at ``PRIORITY_HIGH``) included, are never paused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol import constants as c

if TYPE_CHECKING:
    from .device import SimDevice


@dataclass(frozen=True)
class PfcConfig:
    """Thresholds in packets of the lossless class per ingress port."""

    xoff_packets: int
    xon_packets: int
    priority: int = c.PRIORITY_DATA  # the lossless class: RoCE's data

    def __post_init__(self) -> None:
        if not 0 <= self.xon_packets < self.xoff_packets:
            raise ValueError(f"PFC needs 0 <= xon ({self.xon_packets}) < xoff "
                             f"({self.xoff_packets})")


@dataclass
class PfcCounters:
    pauses_sent: int = 0
    resumes_sent: int = 0
    pauses_received: int = 0


class Pfc:
    """One device's PFC: its count per ingress port, and the pauses it sent."""

    __slots__ = ("device", "config", "counters", "_waiting", "_pausing")

    def __init__(self, device: SimDevice, config: PfcConfig) -> None:
        self.device = device
        self.config = config
        self.counters = PfcCounters()
        self._waiting: dict[int, int] = {}  # ingress port -> its lossless packets queued
        self._pausing: set[int] = set()  # ingress ports whose sender this device paused

    def queued(self, job: Any) -> None:
        """``job`` went into an egress queue."""
        if job.priority != self.config.priority:
            return
        port = job.sm.ingress_port
        waiting = self._waiting[port] = self._waiting.get(port, 0) + 1
        if waiting >= self.config.xoff_packets and port not in self._pausing:
            self._pause(port)

    def dequeued(self, job: Any) -> None:
        """``job`` left its egress queue."""
        if job.priority != self.config.priority:
            return
        port = job.sm.ingress_port
        waiting = self._waiting[port] = self._waiting[port] - 1
        if waiting <= self.config.xon_packets and port in self._pausing:
            self._pausing.discard(port)
            self.counters.resumes_sent += 1
            self._send(port, pause=False)

    def flushed(self) -> None:
        """The queues were emptied (the pipeline was replaced): nothing waits, and
        every sender this device paused may send again."""
        self._waiting.clear()
        for port in sorted(self._pausing):
            self.counters.resumes_sent += 1
            self._send(port, pause=False)
        self._pausing.clear()

    def link_changed(self, port: int) -> None:
        """The cable at ``port`` went down or came back: a pause sent before is
        forgotten on both sides (a real one expires with its quanta), and one is sent
        again if the port's count is still at XOFF."""
        self._pausing.discard(port)
        if self._waiting.get(port, 0) >= self.config.xoff_packets:
            self._pause(port)

    def _pause(self, port: int) -> None:
        if self._send(port, pause=True):
            self._pausing.add(port)
            self.counters.pauses_sent += 1

    def _send(self, port: int, pause: bool) -> bool:
        """Send a PFC frame back on ``port``; False if there is no one to send it to
        (the host's port) or its cable is down."""
        device = self.device
        channel = device.channels.get(port)
        if port not in device.peers or channel is None or not channel.cable.up:
            return False
        channel.send_pfc(self.config.priority, pause)
        return True
