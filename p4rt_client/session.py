"""One P4Runtime controller session with one device: channel, StreamChannel with
arbitration, pipeline push and fetch, batched Write with per-update errors, Read,
packet-out/in, digests (with acks) and idle-timeout notifications.

    session = P4RuntimeSession("127.0.0.1:9559", device_id=0, election_id=(0, 1))
    session.connect()                       # primary, or NotPrimaryError
    session.set_pipeline(p4info, device_config)
    session.write([update, ...])            # P4RuntimeWriteError on failure
    entities = session.read([entity, ...])
    msg = session.get_stream("packet", timeout=2)   # a PacketIn, or None
    session.close()

Sessions are independent objects (no module-level connection, unlike p4runtime-shell),
so one process can drive many devices. Target-agnostic: nothing here knows about bm or
BMv2.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import grpc
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from .channel import TlsConfig, open_channel, server_answers
from .entities import pipeline_cookie, to_entity
from .errors import (
    ElectionIdInUseError,
    NotPrimaryError,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
    code_name,
)
from .stream import StreamChannel

__all__ = ["P4RuntimeSession"]

_GET = p4runtime_pb2.GetForwardingPipelineConfigRequest


class P4RuntimeSession:
    """One controller of one device (and role)."""

    def __init__(self, address: str, device_id: int = 0,
                 election_id: tuple[int, int] = (0, 1), role: str = "",
                 tls: TlsConfig | None = None) -> None:
        self.address = address
        self.device_id = device_id
        self.election_id = election_id
        self.role = role
        self.tls = tls
        self.channel: grpc.Channel | None = None
        self.stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self.stream: StreamChannel | None = None

    # -- connection ---------------------------------------------------------------------
    @property
    def primary(self) -> bool:
        """Whether the server last said this session is the primary."""
        return self.stream is not None and self.stream.primary

    @property
    def stream_alive(self) -> bool:
        """Whether the stream is open: False before ``connect``, after ``close`` and
        once the server ended it (e.g. the device restarted)."""
        return self.stream is not None and not self.stream.ended.is_set()

    def wait_stream_end(self, timeout: float | None = None) -> bool:
        """Block until the stream ends (or ``timeout`` s); whether it has ended."""
        stream = self.stream
        return stream is None or stream.ended.wait(timeout)

    @property
    def stream_error(self) -> grpc.RpcError | None:
        """How the server ended the stream, if it did."""
        return self.stream.error if self.stream is not None else None

    def connect(self, timeout: float = 10.0, require_primary: bool = True
                ) -> p4runtime_pb2.MasterArbitrationUpdate:
        """Open the channel and the stream, send the arbitration update and wait for the
        answer. With ``require_primary`` a backup session is closed again and
        NotPrimaryError says which election id holds the role; without it the session
        stays open as a backup (reads work; ``primary`` turns True if the server later
        promotes it). An election id still held by a previous session of ours is
        retried until ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._connect_once(max(0.5, deadline - time.monotonic()),
                                          require_primary)
            except NotPrimaryError:
                self.close()
                raise
            except P4RuntimeSessionError:
                error = self.stream_error
                retry = error is not None and error.code() == grpc.StatusCode.INVALID_ARGUMENT
                self.close()
                if not retry:
                    raise
                if time.monotonic() > deadline:
                    raise ElectionIdInUseError(
                        f"device {self.device_id} at {self.address}: election id "
                        f"{self.election_id} is held by another live session") from None
                time.sleep(0.05)

    def open(self, timeout: float = 10.0) -> None:
        """Open the channel only, without a stream or arbitration: enough for Read and
        GetForwardingPipelineConfig (an observer that must not take part in the
        election); P4RuntimeSessionError if no server answers within ``timeout``."""
        try:
            self.channel = open_channel(self.address, self.tls)
        except ValueError as error:
            raise P4RuntimeSessionError(str(error)) from None
        if not server_answers(self.channel, timeout):
            self.channel.close()
            self.channel = None
            how = (" over TLS (or it refused the TLS handshake: check the certificates)"
                   if self.tls is not None else "")
            raise P4RuntimeSessionError(
                f"no P4Runtime server answers at {self.address}{how}") from None
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)

    def _connect_once(self, timeout: float, require_primary: bool
                      ) -> p4runtime_pb2.MasterArbitrationUpdate:
        self.open(timeout)
        assert self.stub is not None
        self.stream = StreamChannel(self.stub)
        request = p4runtime_pb2.StreamMessageRequest()
        arb = request.arbitration
        arb.device_id = self.device_id
        arb.election_id.high, arb.election_id.low = self.election_id
        if self.role:
            arb.role.name = self.role
        self.stream.send(request)
        reply = self.stream.get("arbitration", timeout=timeout)
        if reply is None:
            error = self.stream.error
            detail = (f"{error.code().name}: {error.details()}" if error is not None
                      else "no answer")
            raise P4RuntimeSessionError(f"arbitration failed on {self.address}: {detail}")
        if reply.status.code != code_pb2.OK and require_primary:
            holder = self.stream.primary_election_id
            who = (f"election id {holder}" if holder is not None
                   else f"{code_name(reply.status.code)} {reply.status.message}")
            raise NotPrimaryError(
                f"device {self.device_id} at {self.address}: another controller is the "
                f"primary ({who}); this session's election id is {self.election_id}",
                holder)
        return reply

    def close(self, timeout: float = 2.0) -> None:
        """End the stream (so that the next session can reuse the election id), then
        close the channel."""
        stream, self.stream = self.stream, None
        if stream is not None:
            stream.close(timeout)
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self.stub = None

    def __enter__(self) -> P4RuntimeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- stream -------------------------------------------------------------------------
    def _stream(self) -> StreamChannel:
        if self.stream is None:
            raise P4RuntimeSessionError("not connected")
        return self.stream

    def send_stream(self, message: p4runtime_pb2.StreamMessageRequest) -> None:
        self._stream().send(message)

    def get_stream(self, kind: str, timeout: float = 2.0) -> Any:
        """The next StreamMessageResponse's ``kind`` part ("packet", "digest",
        "arbitration", "idle_timeout_notification", "error"), or None after
        ``timeout`` s."""
        return self._stream().get(kind, timeout)

    def drain_stream(self, kind: str) -> list[Any]:
        return self._stream().drain(kind)

    def packet_out(self, payload: bytes,
                   metadata: Iterable[p4runtime_pb2.PacketMetadata] = ()) -> None:
        message = p4runtime_pb2.StreamMessageRequest()
        message.packet.payload = payload
        message.packet.metadata.extend(metadata)
        self.send_stream(message)

    def ack_digest(self, digest: p4runtime_pb2.DigestList) -> None:
        message = p4runtime_pb2.StreamMessageRequest()
        message.digest_ack.digest_id = digest.digest_id
        message.digest_ack.list_id = digest.list_id
        self.send_stream(message)

    # -- RPCs ---------------------------------------------------------------------------
    def _stub(self) -> p4runtime_pb2_grpc.P4RuntimeStub:
        if self.stub is None:
            raise P4RuntimeSessionError("not connected")
        return self.stub

    def _election(self, message: Any) -> None:
        message.device_id = self.device_id
        message.election_id.high, message.election_id.low = self.election_id
        if self.role:
            message.role = self.role

    def set_pipeline(self, p4info: p4info_pb2.P4Info, device_config: bytes,
                     cookie: int | None = None,
                     action: int = p4runtime_pb2.SetForwardingPipelineConfigRequest
                     .VERIFY_AND_COMMIT) -> None:
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(action=action)
        self._election(request)
        request.config.p4info.CopyFrom(p4info)
        request.config.p4_device_config = device_config
        request.config.cookie.cookie = (pipeline_cookie(p4info, device_config)
                                        if cookie is None else cookie)
        try:
            self._stub().SetForwardingPipelineConfig(request)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error, "SetForwardingPipelineConfig") from None

    def get_pipeline(self, response_type: int = _GET.ALL
                     ) -> p4runtime_pb2.ForwardingPipelineConfig:
        request = _GET(device_id=self.device_id, response_type=response_type)
        try:
            return self._stub().GetForwardingPipelineConfig(request).config
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error, "GetForwardingPipelineConfig") from None

    def get_pipeline_cookie(self) -> int | None:
        """The device's pipeline cookie, or None when it has no pipeline."""
        try:
            config = self.get_pipeline(_GET.COOKIE_ONLY)
        except P4RuntimeWriteError:
            return None
        return int(config.cookie.cookie) if config.HasField("cookie") else None

    def get_p4info(self) -> p4info_pb2.P4Info:
        """The P4Info of the device's pipeline; P4RuntimeWriteError if it has none."""
        return self.get_pipeline(_GET.P4INFO_AND_COOKIE).p4info

    def write(self, updates: Sequence[p4runtime_pb2.Update],
              atomicity: int = p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR) -> None:
        """One batched WriteRequest; P4RuntimeWriteError (with the per-update errors)
        if any update failed."""
        request = p4runtime_pb2.WriteRequest(atomicity=atomicity)
        self._election(request)
        request.updates.extend(updates)
        self.write_request(request)

    def write_request(self, request: p4runtime_pb2.WriteRequest) -> None:
        """Send a WriteRequest as given (no device/election id filled in)."""
        try:
            self._stub().Write(request)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error) from None

    def read(self, entities: Iterable[Any]) -> list[p4runtime_pb2.Entity]:
        """Every entity the server returns for the given (wildcard) entities."""
        request = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        if self.role:
            request.role = self.role
        request.entities.extend(to_entity(e) for e in entities)
        result: list[p4runtime_pb2.Entity] = []
        try:
            for reply in self._stub().Read(request):
                result.extend(reply.entities)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error, "Read") from None
        return result
