"""An in-memory :class:`~.target.P4RuntimeTarget`: one device, no sockets, no queues.

Packets are processed synchronously in the caller's thread (``send`` for a front-panel
port, ``packet_out`` for the controller). Outputs on ``cpu_port`` become packet-ins:
the program's ``@controller_header("packet_in")`` header is taken off and decoded.
Other outputs land in ``outputs`` (a ``queue.Queue`` of ``(port, frame)``). Digests the
pipeline produced are drained from the state after each packet and handed to the
digest listeners. Used by the P4Runtime tests; the switch process may reuse it.

    target = LocalTarget(device_id=1, cpu_port=255)
    server = P4RuntimeServer(target, "127.0.0.1:0")
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable

from p4.config.v1 import p4info_pb2

from behavioral_model.program import P4Program
from behavioral_model.runtime.digests import DigestMessage

from .device_slot import DeviceSlot
from .packet_io import ControllerHeader, controller_header, program_controller_header
from .target import DigestListener, PacketInListener

__all__ = ["LocalTarget"]

log = logging.getLogger("behavioral_model.p4runtime")


class LocalTarget(DeviceSlot):
    def __init__(self, device_id: int = 1, cpu_port: int | None = None,
                 clock_us: Callable[[], int] | None = None) -> None:
        super().__init__(clock_us or (lambda: time.monotonic_ns() // 1000))
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.outputs: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self._packet_in: ControllerHeader | None = None
        self._packet_in_listeners: list[PacketInListener] = []
        self._digest_listeners: list[DigestListener] = []

    # -- P4RuntimeTarget ----------------------------------------------------------------
    def set_pipeline(self, program: P4Program, p4info: p4info_pb2.P4Info,
                     cookie: int) -> None:
        with self.lock:
            super().set_pipeline(program, p4info, cookie)
            self._packet_in = (program_controller_header(program.checked, "packet_in")
                               or controller_header(p4info, "packet_in"))

    def packet_out(self, data: bytes, metadata: dict[str, int]) -> None:
        if self.cpu_port is None:
            log.warning("packet-out dropped: this target has no CPU port")
            return
        self.send(self.cpu_port, self._packet_out_frame(data, metadata))

    def add_packet_in_listener(self, fn: PacketInListener) -> None:
        self._packet_in_listeners.append(fn)

    def add_digest_listener(self, fn: DigestListener) -> None:
        self._digest_listeners.append(fn)

    def remove_packet_in_listener(self, fn: PacketInListener) -> None:
        if fn in self._packet_in_listeners:
            self._packet_in_listeners.remove(fn)

    def remove_digest_listener(self, fn: DigestListener) -> None:
        if fn in self._digest_listeners:
            self._digest_listeners.remove(fn)

    # -- data plane ---------------------------------------------------------------------
    def send(self, port: int, frame: bytes) -> list[tuple[int, bytes]]:
        """Process ``frame`` arriving on ``port``; returns the non-CPU outputs (which are
        also put on ``outputs``)."""
        with self.lock:
            device = self.device
            if device is None:
                log.warning("packet on port %d dropped: no pipeline", port)
                return []
            outputs = device.process(frame, port, self._clock_us())
            digests: list[DigestMessage] = device.state.digests.drain()
            packet_in = self._packet_in
        forwarded: list[tuple[int, bytes]] = []
        for out in outputs:
            if self.cpu_port is not None and out.port == self.cpu_port:
                if packet_in is not None:
                    metadata, payload = packet_in.unpack(out.data)
                else:
                    metadata, payload = {}, out.data
                for fn in list(self._packet_in_listeners):
                    fn(payload, metadata)
            else:
                forwarded.append((out.port, out.data))
                self.outputs.put((out.port, out.data))
        for message in digests:
            for dfn in list(self._digest_listeners):
                dfn(message)
        return forwarded

    def get_output(self, timeout: float = 1.0) -> tuple[int, bytes] | None:
        """The next forwarded packet, or None after ``timeout`` seconds."""
        try:
            return self.outputs.get(timeout=timeout)
        except queue.Empty:
            return None
