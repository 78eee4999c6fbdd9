"""One simulated device: its P4 program in our executor and its egress queues.

A frame that arrives on a port runs the parser and ingress at once (virtual time
stands still while a pipeline runs); the copies ingress makes are queued in the
device's traffic manager (``behavioral_model.tm``: BMv2 queueing, 8 strict-priority
queues per port as with ``--priority-queues 8``, tail drop at the queue depth). Each
port sends one frame at a time: when its cable is free, the traffic manager hands
over the port's next packet, which only then runs egress and the deparser, so ECN
marking and trimming see the real ``enq_qdepth``/``deq_qdepth``. The frame then
occupies the cable for its serialisation time. A packet for an idle port goes
through its empty queue at once (``TrafficManager.admit``, the same metadata as an
enqueue and dequeue), and a port only has a wake-up event while packets wait, so an
uncongested hop costs one event: the frame's arrival. Resubmission and recirculation are
not used by the MRC programs and are counted, not run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from behavioral_model.pipeline.v1model import (
    DROP_PORT,
    NORMAL,
    EgressJob,
    OutputPacket,
)
from behavioral_model.runtime.digests import DigestMessage
from behavioral_model.tm import TrafficManager

from .events import EventLoop
from .link import Channel
from .pfc import Pfc, PfcConfig
from .target import SimTarget

PRIORITY_QUEUES = 8  # the programs send control traffic at priority 7

# Observers of a device's traffic: (device, port, frame).
FrameHook = Callable[["SimDevice", int, bytes], None]
DigestHook = Callable[["SimDevice", list[DigestMessage]], None]


@dataclass
class DeviceCounters:
    received: int = 0
    sent: int = 0
    hops: int = 0  # packets through the pipeline (each ingress run)
    unplugged: int = 0  # frames for a port without a cable
    not_running: int = 0  # frames that met a device without a pipeline
    recirculated: int = 0  # resubmit/recirculate requests (not run)


class SimDevice:
    def __init__(self, env: EventLoop, target: SimTarget,
                 queue_depth: int, pfc: PfcConfig | None = None) -> None:
        self.env = env
        self.target = target
        self.name = target.name
        self.queue_depth = queue_depth
        self.tm = TrafficManager(priority_queues=PRIORITY_QUEUES, queue_depth=queue_depth)
        self.channels: dict[int, Channel] = {}
        # The device at the far end of each port's cable, and its port there (PFC's
        # frames go back to it).
        self.peers: dict[int, tuple[SimDevice, int]] = {}
        self.pfc = Pfc(self, pfc) if pfc is not None else None
        # Per port: the priorities the next hop's PFC pauses (a mask; ports with none
        # are not in it).
        self.paused: dict[int, int] = {}
        self.counters = DeviceCounters()
        self.on_receive: FrameHook | None = None  # as a frame arrives on a port
        self.on_transmit: FrameHook | None = None  # before a frame leaves on a port
        self.on_digests: DigestHook | None = None
        # Per port: when its cable is free again, and whether a wake-up is scheduled
        # for it (it has queued packets). An idle port costs no events.
        self._free_at: dict[int, float] = {}
        self._waiting: set[int] = set()
        self._generation = target.generation

    def attach(self, port: int, channel: Channel) -> None:
        self.channels[port] = channel

    # -- ingress ------------------------------------------------------------------------
    def receive(self, port: int, frame: bytes) -> None:
        """``frame`` arrives on ``port`` now."""
        target = self.target
        device = target.device
        counters = self.counters
        counters.received += 1
        if self.on_receive is not None:
            self.on_receive(self, port, frame)
        if device is None:
            counters.not_running += 1
            return
        if target.generation != self._generation:
            self._reset_queues()
        now = self.env.now
        now_int = int(now)
        counters.hops += 1
        ran = device.run_ingress(frame, port, now_int)
        if ran is None:
            return
        tm = self.tm
        hdr, meta, sm, pk = ran
        if pk.clone_spec is None and pk.resubmit is None and not sm.mcast_grp:
            # end_ingress's last two cases, a drop or one unicast copy of the packet's
            # own structs (nearly every packet), without making a job for a packet that
            # goes straight through an idle port's empty queue
            out = sm.egress_spec
            jobs: Sequence[EgressJob] = ()
            if out != DROP_PORT:
                priority = sm.priority
                if self._idle(out, priority, now) and tm.admit(out, priority, sm, now):
                    self._send(out, device.run_egress(out, 0, NORMAL, hdr, meta, sm, pk,
                                                      now_int), now)
                else:
                    jobs = (EgressJob(out, hdr, meta, sm, pk.payload, NORMAL, 0, priority,
                                      pk),)
        else:
            jobs, again = device.end_ingress(frame, port, now_int, NORMAL, hdr, meta, sm, pk)
            if again is not None:
                counters.recirculated += 1
        for job in jobs:
            out = job.port
            if not self._idle(out, job.priority, now):
                if tm.enqueue(job, now):
                    if self.pfc is not None:
                        self.pfc.queued(job)
                    # A port held by a pause is woken by the resume (pfc_frame).
                    free_at = self._free_at.get(out, 0.0)
                    if out not in self._waiting and free_at > now:
                        self._waiting.add(out)
                        self.env.call_later(free_at - now, self._wake, out)
            elif tm.admit(out, job.priority, job.sm, now):
                # The port is idle: the packet goes straight through its empty queue.
                self._send(out, device.egress(job, now_int), now)
            else:
                tm.enqueue(job, now)  # refused: the traffic manager counts the drop
        # the hook first: a switch has none, and the queue's length is a Python call
        if self.on_digests is not None:
            digests = device.state.digests
            if digests:
                self.on_digests(self, digests.drain())

    def _reset_queues(self) -> None:
        """The pipeline was replaced (a reboot, a new config): queued packets belong
        to the old one and are flushed, as a switch does."""
        self.tm.clear()
        if self.pfc is not None:
            self.pfc.flushed()
        self._generation = self.target.generation

    # -- egress -------------------------------------------------------------------------
    def _idle(self, port: int, priority: int, now: float) -> bool:
        """Whether a packet of ``priority`` may leave on ``port`` now: its cable is
        free, nothing waits for it and the next hop's PFC does not pause it."""
        paused = self.paused
        return not (port in self._waiting or self._free_at.get(port, 0.0) > now
                    or paused and paused.get(port, 0) >> priority & 1)

    def _send(self, port: int, egressed: tuple[list[OutputPacket], tuple | None],
              now: float) -> float:
        """What egress and the deparser made of a dequeued packet goes on ``port``'s
        cable; returns how long the port is busy sending it."""
        counters = self.counters
        outputs, recirc = egressed
        if recirc is not None:
            counters.recirculated += 1
        busy = 0.0
        channel = self.channels.get(port)
        for out in outputs:
            if channel is None:
                counters.unplugged += 1
                continue
            if self.on_transmit is not None:
                self.on_transmit(self, port, out.data)
            counters.sent += 1
            busy += channel.transmit(out.data)
        if busy:
            self._free_at[port] = now + busy
        return busy

    def _wake(self, port: int) -> None:
        """The port's cable is free again and packets wait: send the next one (all of
        them on a cable of infinite rate, a host's port)."""
        self._waiting.discard(port)
        device = self.target.device
        if device is None:
            return
        tm = self.tm
        now = self.env.now
        while True:
            job = tm.dequeue_port(port, now, self.paused.get(port, 0))
            if job is None:
                return
            if self.pfc is not None:
                self.pfc.dequeued(job)
            busy = self._send(port, device.egress(job, int(now)), now)
            if busy:
                if tm.queue_depth(port):
                    self._waiting.add(port)
                    self.env.call_later(busy, self._wake, port)
                return

    # -- PFC ----------------------------------------------------------------------------
    def pfc_frame(self, port: int, priority: int, pause: bool) -> None:
        """A PFC frame from the next hop on ``port``: ``priority`` may not be sent
        there until a resume (``pause`` False) comes."""
        mask = self.paused.get(port, 0)
        if pause:
            self.paused[port] = mask | 1 << priority
            if self.pfc is not None:
                self.pfc.counters.pauses_received += 1
            return
        mask &= ~(1 << priority)
        if mask:
            self.paused[port] = mask
        else:
            self.paused.pop(port, None)
        self._resume(port)

    def pfc_link_changed(self, port: int) -> None:
        """The cable at ``port`` went down or came back: pauses on it are over."""
        self.paused.pop(port, None)
        self._resume(port)
        if self.pfc is not None:
            self.pfc.link_changed(port)

    def _resume(self, port: int) -> None:
        """Packets held on ``port`` may go again: wake the port when its cable is free."""
        if port in self._waiting or not self.tm.queue_depth(port):
            return
        self._waiting.add(port)
        self.env.call_later(max(self._free_at.get(port, 0.0) - self.env.now, 0.0),
                            self._wake, port)
