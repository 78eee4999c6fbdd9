"""One in-process device and the pipeline it runs: the part of a
:class:`~.target.P4RuntimeTarget` that :class:`~.local_target.LocalTarget` and the
fabric simulator's ``SimTarget`` share. They differ in how packets reach the device and
where its events go, not in how a pipeline is swapped in or read back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from p4.config.v1 import p4info_pb2

from behavioral_model.pipeline.pna import PnaDevice
from behavioral_model.pipeline.v1model import V1ModelDevice
from behavioral_model.program import P4Program
from behavioral_model.runtime.state import DeviceState

from .packet_io import ControllerHeader, controller_header, program_controller_header

__all__ = ["DeviceSlot"]


class DeviceSlot:
    def __init__(self, clock_us: Callable[[], float], seed: int = 0) -> None:
        self.lock = threading.RLock()
        self.device: V1ModelDevice | PnaDevice | None = None
        self._seed = seed
        self._clock_us = clock_us
        self._pipeline: tuple[P4Program, p4info_pb2.P4Info, int] | None = None
        self._packet_out: ControllerHeader | None = None

    def set_pipeline(self, program: P4Program, p4info: p4info_pb2.P4Info,
                     cookie: int) -> None:
        with self.lock:
            self.device = program.new_device(program.new_state(), seed=self._seed)
            self._pipeline = (program, p4info, cookie)
            self._packet_out = (program_controller_header(program.checked, "packet_out")
                                or controller_header(p4info, "packet_out"))

    def pipeline(self) -> tuple[P4Program, p4info_pb2.P4Info, int] | None:
        with self.lock:
            return self._pipeline

    @property
    def state(self) -> DeviceState | None:
        with self.lock:
            return self.device.state if self.device is not None else None

    def now_ns(self) -> int:
        return int(self._clock_us() * 1000)

    def _packet_out_frame(self, data: bytes, metadata: dict[str, int]) -> bytes:
        """``data`` behind the program's ``packet_out`` header carrying ``metadata``."""
        header = self._packet_out.pack(metadata) if self._packet_out else b""
        return header + data
