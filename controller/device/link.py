"""One device as the controller drives it: a P4Runtime session (primary, never fought
for), its pipeline, its P4Info, and the desired state written as a difference."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from p4.v1 import p4runtime_pb2

from controller.plan import Entity
from controller.plan import p4names as n
from controller.topology import DeviceAccess, Role
from p4rt_client import P4InfoHelper, P4RuntimeSession, P4RuntimeWriteError, TlsConfig

from .encoding import State, desired_state
from .pipelines import Pipeline, PipelineCache
from .reconcile import WriteCounts, check_names, read_owned, reconcile

CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class DeviceTarget:
    name: str
    role: Role
    access: DeviceAccess


class DeviceLink:
    """``connect`` (NotPrimaryError if another controller is primary,
    P4RuntimeSessionError if the device does not answer), ``ensure_pipeline``, then
    ``reconcile`` and the rest; ``close`` ends the session."""

    def __init__(self, target: DeviceTarget, pipelines: PipelineCache,
                 election_id: tuple[int, int], tls: TlsConfig | None = None) -> None:
        self.target = target
        self.pipelines = pipelines
        self.election_id = election_id
        self.tls = tls
        self.session: P4RuntimeSession | None = None
        self._pipeline: Pipeline | None = None
        self._helper: P4InfoHelper | None = None

    @property
    def name(self) -> str:
        return self.target.name

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            self._pipeline = self.pipelines.get(self.target.access)
        return self._pipeline

    @property
    def helper(self) -> P4InfoHelper:
        if self._helper is None:
            self._helper = P4InfoHelper(self.pipeline.p4info)
        return self._helper

    def _session(self) -> P4RuntimeSession:
        if self.session is None:
            raise ConnectionError(f"{self.name}: not connected")
        return self.session

    def connect(self, timeout: float = CONNECT_TIMEOUT_S) -> None:
        access = self.target.access
        session = P4RuntimeSession(access.address, access.device_id, self.election_id,
                                   tls=self.tls)
        session.connect(timeout)
        self.session = session

    def open_observer(self, timeout: float = CONNECT_TIMEOUT_S) -> None:
        """A session for reads only (no stream, no election): for ``status``."""
        access = self.target.access
        session = P4RuntimeSession(access.address, access.device_id, tls=self.tls)
        session.open(timeout)
        self.session = session

    @property
    def alive(self) -> bool:
        return self.session is not None and self.session.stream_alive

    @property
    def primary(self) -> bool:
        return self.session is not None and self.session.primary

    def pipeline_current(self) -> bool:
        """Whether the device runs our pipeline: its cookie is ours or, from a server
        that keeps no cookie, its P4Info is ours."""
        session = self._session()
        cookie = session.get_pipeline_cookie()
        if cookie is not None:
            return cookie == self.pipeline.cookie
        # PI builds from before P4Runtime 1.0's cookie (proto/frontend/src/device_mgr.cpp,
        # pipeline_config_get) answer every GetForwardingPipelineConfig with the P4Info
        # alone: pushing again each time would wipe the device's entries on every
        # connect, so the P4Info decides there (no P4Info: no pipeline).
        try:
            p4info = session.get_p4info()
        except P4RuntimeWriteError:
            return False
        return p4info.ByteSize() > 0 and p4info == self.pipeline.p4info

    def ensure_pipeline(self) -> bool:
        """Push the pipeline unless the device already runs it; whether it was pushed."""
        if self.pipeline_current():
            return False
        pipeline = self.pipeline
        self._session().set_pipeline(pipeline.p4info, pipeline.device_config,
                                     pipeline.cookie)
        return True

    def read_owned(self) -> tuple[State, bool]:
        """What the device holds of what the controller owns, and whether the server
        could read its digest configuration back."""
        check_names(self.helper, self.target.role)
        return read_owned(self._session(), self.helper, self.target.role)

    def desired(self, entities: Iterable[Entity]) -> State:
        return desired_state(self.helper, entities)

    def reconcile(self, desired_of: Callable[[State], State]) -> WriteCounts:
        check_names(self.helper, self.target.role)
        return reconcile(self._session(), self.helper, self.target.role, desired_of)

    def write(self, updates: Sequence[p4runtime_pb2.Update]) -> None:
        self._session().write(updates)

    def read(self, entities: Iterable[object]) -> list[p4runtime_pb2.Entity]:
        return self._session().read(entities)

    def packet_out(self, payload: bytes, egress_port: int) -> None:
        metadata = self.helper.packet_metadata(n.PACKET_OUT, {"egress_port": egress_port})
        self._session().packet_out(payload, metadata)

    def next_digest(self, timeout: float) -> p4runtime_pb2.DigestList | None:
        session = self.session
        if session is None or session.stream is None:
            return None
        digest = session.get_stream("digest", timeout)
        if digest is not None:
            session.ack_digest(digest)
        return digest

    def close(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            session.close()
