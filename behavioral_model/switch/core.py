"""The real-time switch: a :class:`~behavioral_model.switch.engine.Dataplane` driven by
port backends, a data-plane thread and a wall clock, with packet I/O to the controller
and digests. It is the ``P4RuntimeTarget`` the P4Runtime server works on.

Threads: a port backend that delivers frames in batches (``start_batched``, e.g. the
nanomsg port) runs them through the pipeline in its own receive thread
(:meth:`SwitchCore.receive_batch`): parser, ingress, traffic manager, egress, deparser
and the send, with no hand-off between threads; while it does so it reads no more
frames, which pushes back on the sender. Other frames (``deliver(port, data)``
backends, packet-outs) go through an input buffer (1024 packets; a full buffer blocks
the caller, as simple_switch's input buffer applies back pressure to the interfaces)
to the data-plane thread, which also runs the departures of rate-limited queues,
sleeping until the next one is due. Packets leaving on the CPU port become packet-ins.

Each packet goes from ingress straight to egress when its egress queue is empty and
may send (:meth:`Dataplane.process`); otherwise it waits in the traffic manager, and
the queueing metadata is filled in as simple_switch does either way. One data-path
thread at a time runs the pipeline and then sends what it produced (``_run_lock``),
so frames leave each port in the order the pipeline produced them.

``lock`` (an RLock) is held while the pipeline runs a batch of packets (at most
``BATCH``), while the pipeline is replaced and while the traffic manager is
reconfigured; the P4Runtime server holds it while it changes device state, so a packet
never sees half a write. Frames are sent and listeners called without it.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..p4runtime.packet_io import (
    ControllerHeader,
    controller_header,
    program_controller_header,
)
from ..ports import PortBackend, PortInfo
from ..ports.pcap import PcapRecorder
from ..runtime.digests import DigestMessage
from ..runtime.state import DeviceState
from ..tm import Clock, RealTimeClock, TrafficManager
from .engine import Dataplane, OutputPacket

__all__ = ["SwitchCore", "PacketIOCodec", "INPUT_BUFFER_CAPACITY"]

log = logging.getLogger("behavioral_model.switch")

INPUT_BUFFER_CAPACITY = 1024  # simple_switch: InputBuffer(1024, 1024)
BATCH = 64  # packets per lock acquisition, so control-plane writes are not starved

PacketInListener = Callable[[bytes, dict[str, int]], None]
DigestListener = Callable[[DigestMessage], None]


class PacketIOCodec:
    """The ``packet_in`` / ``packet_out`` controller headers of one pipeline, laid out
    as the P4 program declares them (``@hidden`` padding included; the P4Info layout
    when the program is not at hand). Packet-in metadata keeps the P4Info fields only."""

    def __init__(self, program: Any = None, p4info: Any = None) -> None:
        self.packet_in: ControllerHeader | None = None
        self.packet_out: ControllerHeader | None = None
        self.in_names: set[str] | None = None
        checked = getattr(program, "checked", None)
        for which in ("packet_in", "packet_out"):
            header = program_controller_header(checked, which) if checked else None
            if header is None and p4info is not None:
                header = controller_header(p4info, which)
            setattr(self, which, header)
        if p4info is not None:
            self.in_names = {m.name for cpm in p4info.controller_packet_metadata
                             if cpm.preamble.name == "packet_in" for m in cpm.metadata}

    def to_controller(self, data: bytes) -> tuple[bytes, dict[str, int]]:
        """A frame leaving on the CPU port -> (payload, packet_in metadata)."""
        if self.packet_in is None:
            return data, {}
        values, payload = self.packet_in.unpack(data)
        if self.in_names is not None:
            values = {k: v for k, v in values.items() if k in self.in_names}
        return payload, values

    def from_controller(self, payload: bytes, metadata: Mapping[str, int]) -> bytes:
        """A packet-out -> the frame that enters ingress on the CPU port."""
        if self.packet_out is None:
            return payload
        return self.packet_out.pack(metadata) + payload


class SwitchCore:
    """One switch device. Call :meth:`start` to run the data-plane thread and
    :meth:`stop` to end it (idempotent; closes the port backends)."""

    def __init__(self, device_id: int = 0, *, cpu_port: int | None = None,
                 tm: TrafficManager | None = None, clock: Clock | None = None,
                 pcap: PcapRecorder | None = None, seed: int = 0,
                 dump_packet_data: int = 0,
                 input_capacity: int = INPUT_BUFFER_CAPACITY,
                 arch: str | None = None) -> None:
        # The one architecture P4Runtime may load (None: any), see SwitchOptions.arch.
        self.arch = arch
        if cpu_port is not None and cpu_port <= 0:
            raise ValueError("the CPU port must be a positive port number (0 is not valid)")
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.clock: Clock = clock if clock is not None else RealTimeClock()
        self.dataplane = Dataplane(tm, seed=seed)
        self.pcap = pcap
        self.dump_packet_data = dump_packet_data
        self.lock = threading.RLock()
        self._run_lock = threading.RLock()  # one data-path thread runs + sends at a time
        self._program: Any = None
        self._p4info: Any = None
        self._cookie = 0
        self._codec = PacketIOCodec()
        self._backends: list[PortBackend] = []
        self._tx_batch: list[Callable[[list[OutputPacket]], None] | None] = []
        self._first_owns_all = False  # the first backend carries every port
        self._packet_in_listeners: list[PacketInListener] = []
        self._digest_listeners: list[DigestListener] = []
        self._input: deque[tuple[int, bytes]] = deque()
        self._capacity = input_capacity
        input_lock = threading.Lock()
        self._cv = threading.Condition(input_lock)  # input available / stopping
        self._space = threading.Condition(input_lock)  # room in the input buffer
        self._stopping = False
        self._next_departure: float | None = None
        self._thread: threading.Thread | None = None
        self.no_output_drops = 0

    # -- P4RuntimeTarget ----------------------------------------------------------------
    @property
    def tm(self) -> TrafficManager:
        return self.dataplane.tm

    def set_pipeline(self, program: Any, p4info: Any, cookie: int = 0,
                     state: DeviceState | None = None) -> None:
        """Replace the running program (fresh state unless ``state`` is given);
        packets queued for the old program are dropped."""
        codec = PacketIOCodec(program, p4info)
        with self.lock:
            self.dataplane.set_program(program, state)
            self._program, self._p4info, self._cookie = program, p4info, cookie
            self._codec = codec
            self._next_departure = None
        log.info("device %d: pipeline set (cookie %d)", self.device_id, cookie)

    def pipeline(self) -> tuple[Any, Any, int] | None:
        """(program, p4info, cookie) of the running pipeline, None before the first."""
        with self.lock:
            if self._program is None:
                return None
            return self._program, self._p4info, self._cookie

    @property
    def state(self) -> DeviceState | None:
        return self.dataplane.state

    def now_ns(self) -> int:
        """The switch clock in nanoseconds (what the pipeline stamps table hits with)."""
        return int(self.clock.now_us() * 1000)

    def packet_out(self, data: bytes, metadata: Mapping[str, int] | None = None) -> None:
        """Inject a controller packet: the ``packet_out`` header built from
        ``metadata`` (field name -> value) + ``data`` enters ingress on the CPU port.
        Dropped with a warning without a CPU port or a pipeline (as ``LocalTarget``)."""
        if self.cpu_port is None:
            log.warning("packet-out dropped: the switch has no CPU port (--cpu-port)")
            return
        with self.lock:
            if self._program is None:
                log.warning("packet-out dropped: no pipeline is loaded")
                return
            frame = self._codec.from_controller(data, metadata or {})
        log.debug("packet-out: %d bytes into CPU port %d", len(frame), self.cpu_port)
        self.receive(self.cpu_port, frame)

    def add_packet_in_listener(self, fn: PacketInListener) -> None:
        """``fn(payload, metadata)`` for each packet sent to the CPU port."""
        self._packet_in_listeners.append(fn)

    def remove_packet_in_listener(self, fn: PacketInListener) -> None:
        if fn in self._packet_in_listeners:
            self._packet_in_listeners.remove(fn)

    def add_digest_listener(self, fn: DigestListener) -> None:
        """``fn(message)`` for each digest the data plane generates."""
        self._digest_listeners.append(fn)

    def remove_digest_listener(self, fn: DigestListener) -> None:
        if fn in self._digest_listeners:
            self._digest_listeners.remove(fn)

    # -- traffic manager at run time (thread-safe) --------------------------------------
    def set_queue_depth(self, port: int, depth: int, priority: int | None = None) -> None:
        with self.lock:
            self.tm.set_queue_depth(port, depth, priority)

    def set_all_queue_depths(self, depth: int) -> None:
        with self.lock:
            self.tm.set_all_queue_depths(depth)

    def set_queue_rate(self, port: int, rate_pps: int, priority: int | None = None) -> None:
        with self.lock:
            self.tm.set_queue_rate(port, rate_pps, priority)

    def set_all_queue_rates(self, rate_pps: int) -> None:
        with self.lock:
            self.tm.set_all_queue_rates(rate_pps)

    def set_port_rate(self, port: int, rate_pps: int) -> None:
        with self.lock:
            self.tm.set_port_rate(port, rate_pps)

    # -- ports --------------------------------------------------------------------------
    def add_port_backend(self, backend: PortBackend) -> None:
        """Attach a port backend; earlier backends win for ports several own. If the
        switch runs already, the backend starts receiving at once."""
        if self.cpu_port is not None:
            for port in backend.port_info():
                if port == self.cpu_port:
                    raise ValueError(f"CPU port {self.cpu_port} is used as a data port")
        self._backends.append(backend)
        self._tx_batch.append(getattr(backend, "transmit_batch", None))
        self._first_owns_all = bool(getattr(self._backends[0], "owns_all", False))
        if self._thread is not None:
            self._start_backend(backend)

    def _start_backend(self, backend: PortBackend) -> None:
        start_batched = getattr(backend, "start_batched", None)
        if start_batched is not None:
            start_batched(self.receive_batch)
        else:
            backend.start(self.receive)

    def port_info(self) -> dict[int, PortInfo]:
        ports: dict[int, PortInfo] = {}
        for backend in reversed(self._backends):
            ports.update(backend.port_info())
        return ports

    def receive(self, port: int, data: bytes) -> bool:
        """A frame arrived on ``port`` (any thread). Blocks while the input buffer is
        full; False if the switch is stopping."""
        if self.pcap is not None and port != self.cpu_port:
            self.pcap.received(port, data)
        if self.dump_packet_data:
            log.info("packet in on port %d: %s", port, data[: self.dump_packet_data].hex())
        with self._cv:
            while len(self._input) >= self._capacity and not self._stopping:
                self._space.wait()
            if self._stopping:
                return False
            self._input.append((port, data))
            self._cv.notify()
        return True

    def receive_batch(self, frames: Sequence[tuple[int, bytes]]) -> bool:
        """Frames that arrived (``(port, data)``, in order) run through the pipeline in
        the calling thread, ``BATCH`` at a time; their outputs are sent before this
        returns. False (frames dropped) if the switch is stopping."""
        if self._stopping:
            return False
        if self.pcap is not None or self.dump_packet_data:
            for port, data in frames:
                if self.pcap is not None and port != self.cpu_port:
                    self.pcap.received(port, data)
                if self.dump_packet_data:
                    log.info("packet in on port %d: %s", port,
                             data[: self.dump_packet_data].hex())
        for start in range(0, len(frames), BATCH):
            self._run_frames(frames[start:start + BATCH])
        return True

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=f"bm-dataplane-{self.device_id}",
                                        daemon=True)
        self._thread.start()
        for backend in self._backends:
            self._start_backend(backend)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop receiving, end the data-plane thread, close backends and pcap files."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
            self._space.notify_all()
        for backend in self._backends:
            try:
                backend.close()
            except Exception:  # pragma: no cover - best effort on shutdown
                log.exception("error while closing a port backend")
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():  # pragma: no cover
                log.error("data-plane thread did not stop within %.1f s", timeout)
        if self.pcap is not None:
            self.pcap.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def idle(self) -> bool:
        """No packet waiting in the input buffer or the traffic manager."""
        with self._cv:
            if self._input:
                return False
        with self.lock:
            return self.dataplane.pending() == 0

    # -- data-plane thread --------------------------------------------------------------
    def _wait_for_work(self) -> list[tuple[int, bytes]] | None:
        """The next batch of input frames (maybe empty when a departure is due), or
        None when stopping."""
        with self._cv:
            while True:
                if self._stopping:
                    return None
                if self._input:
                    count = min(BATCH, len(self._input))
                    batch = [self._input.popleft() for _ in range(count)]
                    self._space.notify_all()
                    return batch
                due = self._next_departure
                if due is not None:
                    delay = (due - self.clock.now_us()) / 1e6
                    if delay <= 0:
                        return []
                    self._cv.wait(delay)
                else:
                    self._cv.wait()

    def _run(self) -> None:
        while True:
            batch = self._wait_for_work()
            if batch is None:
                break
            self._run_frames(batch)

    def _run_frames(self, frames: Sequence[tuple[int, bytes]]) -> None:
        """Run ``frames`` (maybe none) and the departures due now through the pipeline,
        then send the outputs and hand out digests."""
        dp = self.dataplane
        with self._run_lock:
            try:
                with self.lock:
                    now = self.clock.now_us()
                    outputs: list[OutputPacket] = []
                    dp.process_batch(frames, now, outputs)
                    due: float | None = None
                    if dp.pending():  # departures of rate-limited queues
                        dp.serve_due(now, outputs)
                        due = dp.next_departure_time()
                    wake = due is not None and due != self._next_departure
                    self._next_departure = due
                    digests = dp.drain_digests()
                    codec = self._codec
                if wake and threading.current_thread() is not self._thread:
                    with self._cv:
                        self._cv.notify()  # the data-plane thread sleeps until ``due``
                if outputs or digests:
                    self._emit(outputs, digests, codec)
            except Exception:  # a bug in the pipeline must not kill the switch
                log.exception("error in the data plane; packet(s) dropped")

    def _emit(self, outputs: list[OutputPacket], digests: list[DigestMessage],
              codec: PacketIOCodec) -> None:
        backends = self._backends
        cpu_port = self.cpu_port
        pcap = self.pcap
        dump = self.dump_packet_data
        if (self._first_owns_all and not dump and pcap is None and len(backends) == 1
                and self._tx_batch[0] is not None):
            # the usual case: one socket carries every port
            frames = [pkt for pkt in outputs if pkt.port != cpu_port]
            if len(frames) != len(outputs):
                for pkt in outputs:
                    if pkt.port == cpu_port:
                        self._to_controller(pkt.data, codec)
            if frames:
                self._tx_batch[0](frames)
            self._emit_digests(digests)
            return
        per_backend: list[list[OutputPacket]] = [[] for _ in backends]
        first = per_backend[0] if backends and self._first_owns_all else None
        for pkt in outputs:
            port = pkt.port
            if port == cpu_port:
                self._to_controller(pkt.data, codec)
                continue
            if dump:
                log.info("packet out on port %d: %s", port, pkt.data[:dump].hex())
            if pcap is not None:
                pcap.sent(port, pkt.data)
            if first is not None:
                first.append(pkt)
                continue
            for i, backend in enumerate(backends):
                if backend.owns(port):
                    per_backend[i].append(pkt)
                    break
            else:
                self.no_output_drops += 1
                log.debug("no port backend for port %d; frame dropped", port)
        for backend, batch, frames in zip(backends, self._tx_batch, per_backend,
                                          strict=True):
            if not frames:
                continue
            if batch is not None:
                batch(frames)
            else:
                for pkt in frames:
                    backend.transmit(pkt.port, pkt.data)
        self._emit_digests(digests)

    def _emit_digests(self, digests: list[DigestMessage]) -> None:
        for message in digests:
            for listener in list(self._digest_listeners):
                try:
                    listener(message)
                except Exception:
                    log.exception("digest listener failed")

    def _to_controller(self, data: bytes, codec: PacketIOCodec) -> None:
        payload, metadata = codec.to_controller(data)
        log.debug("packet-in: %d bytes, metadata %s", len(payload), metadata)
        for listener in list(self._packet_in_listeners):
            try:
                listener(payload, metadata)
            except Exception:
                log.exception("packet-in listener failed")
