"""The P4Runtime face of a simulated device: a :class:`P4RuntimeTarget` whose packets
the simulator drives.

A loopback gRPC server (``behavioral_model.p4runtime.server``) serves each device, so
the controller programs the simulated fabric exactly as it programs real switches.
``set_pipeline`` (SetForwardingPipelineConfig) gives the device a fresh state and a
pipeline seeded from the run's seed and the device's name. The clock is the
simulation's virtual time.

Events go to the simulator, not to gRPC streams: the simulator drains digests at the
virtual time they happen and hands them to the controller's reactor synchronously
(``fabric.control``), so a run does not depend on thread timing. Packet-outs arrive on
a gRPC thread; they are queued and the simulator feeds them to the CPU port at its
next tick (``take_packet_outs``).
"""

from __future__ import annotations

from collections.abc import Callable
from zlib import crc32

from p4.config.v1 import p4info_pb2

from behavioral_model.p4runtime.device_slot import DeviceSlot
from behavioral_model.p4runtime.target import DigestListener, PacketInListener
from behavioral_model.program import P4Program

__all__ = ["SimTarget"]


class SimTarget(DeviceSlot):
    def __init__(self, name: str, device_id: int, seed: int, clock_us: Callable[[], float],
                 cpu_port: int) -> None:
        super().__init__(clock_us, seed ^ crc32(name.encode()))
        self.name = name
        self.device_id = device_id
        self.cpu_port = cpu_port
        # Bumped by every set_pipeline: the simulator resets its queues when it changes.
        self.generation = 0
        self._packet_outs: list[bytes] = []

    def set_pipeline(self, program: P4Program, p4info: p4info_pb2.P4Info,
                     cookie: int) -> None:
        with self.lock:
            super().set_pipeline(program, p4info, cookie)
            self.generation += 1

    def packet_out(self, data: bytes, metadata: dict[str, int]) -> None:
        frame = self._packet_out_frame(data, metadata)
        with self.lock:
            self._packet_outs.append(frame)

    @property
    def packet_outs_pending(self) -> int:
        with self.lock:
            return len(self._packet_outs)

    def take_packet_outs(self) -> list[bytes]:
        """Packet-outs received since the last call (frames for the CPU port)."""
        with self.lock:
            frames, self._packet_outs = self._packet_outs, []
        return frames

    def reboot(self) -> None:
        """Power-cycle: the device forgets its pipeline and every entry."""
        with self.lock:
            self.device = None
            self._pipeline = None
            self.generation += 1

    # Listeners: the simulator delivers digests itself (see the module docstring).
    def add_packet_in_listener(self, fn: PacketInListener) -> None:
        pass

    def add_digest_listener(self, fn: DigestListener) -> None:
        pass

    def remove_packet_in_listener(self, fn: PacketInListener) -> None:
        pass

    def remove_digest_listener(self, fn: DigestListener) -> None:
        pass
