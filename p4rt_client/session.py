"""A small P4Runtime v1 client: one StreamChannel with arbitration, pipeline push,
Write with per-update error details, Read, packet-out/in and digests.

    session = P4RuntimeSession("127.0.0.1:9559", device_id=0, election_id=(0, 1))
    session.connect()                       # primary, or P4RuntimeSessionError
    session.set_pipeline(p4info, device_config)
    session.write([update, ...])            # P4RuntimeWriteError on failure
    entities = session.read([entity, ...])
    msg = session.get_stream("packet", timeout=2)   # a PacketIn, or None
    session.close()

Target-agnostic: nothing here knows about bm or BMv2. Used by the PTF base class
(``base_test.py``) and the benchmarks (``scripts/bench_switch.py``).
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import grpc
from google.rpc import code_pb2, status_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

__all__ = [
    "P4RuntimeSession",
    "P4RuntimeSessionError",
    "P4RuntimeWriteError",
    "STATUS_DETAILS_KEY",
    "code_name",
    "grpc_code",
    "pipeline_cookie",
    "to_entity",
    "update",
    "wait_for_grpc",
]

log = logging.getLogger("ptf_tests.p4rt")

STATUS_DETAILS_KEY = "grpc-status-details-bin"
STREAM_KINDS = ("arbitration", "packet", "digest", "idle_timeout_notification", "error",
                "other")
_MAX_MESSAGE = 256 * 1024 * 1024
_MAX_METADATA = 4 * 1024 * 1024


def code_name(code: int | grpc.StatusCode) -> str:
    if isinstance(code, grpc.StatusCode):
        return code.name
    try:
        return str(code_pb2.Code.Name(code))
    except ValueError:
        return str(code)


def grpc_code(code: int | grpc.StatusCode) -> grpc.StatusCode:
    """The grpc.StatusCode of a google.rpc code number (or the StatusCode itself)."""
    if isinstance(code, grpc.StatusCode):
        return code
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return status
    raise ValueError(f"unknown gRPC code {code}")


class P4RuntimeSessionError(Exception):
    """Connecting or arbitration failed."""


class P4RuntimeWriteError(Exception):
    """A failed RPC. ``code`` is the RPC's gRPC status; ``errors`` the per-update
    ``p4.v1.Error`` details of a batched Write, as ``(index, error)`` for every update
    (OK ones included), empty when the server sent none."""

    def __init__(self, rpc_error: grpc.RpcError, what: str = "Write") -> None:
        self.rpc_error = rpc_error
        self.code: grpc.StatusCode = rpc_error.code()
        self.details: str = rpc_error.details() or ""
        self.errors: list[tuple[int, p4runtime_pb2.Error]] = []
        for key, value in rpc_error.trailing_metadata() or ():
            if key != STATUS_DETAILS_KEY:
                continue
            status = status_pb2.Status()
            status.ParseFromString(value)
            for index, detail in enumerate(status.details):
                error = p4runtime_pb2.Error()
                if detail.Unpack(error):
                    self.errors.append((index, error))
        failed = [f"#{i}: {code_name(e.canonical_code)} {e.message}"
                  for i, e in self.errors if e.canonical_code != code_pb2.OK]
        text = f"{what} failed: {self.code.name}: {self.details}"
        if failed:
            text += " [" + "; ".join(failed) + "]"
        super().__init__(text)

    def failed_codes(self) -> list[int]:
        """canonical codes of the updates that failed (per-update details)."""
        return [e.canonical_code for _, e in self.errors if e.canonical_code != code_pb2.OK]

    def applied(self) -> list[int]:
        """Indexes of the updates the server reports as applied (code OK)."""
        return [i for i, e in self.errors if e.canonical_code == code_pb2.OK]


def pipeline_cookie(p4info: p4info_pb2.P4Info, device_config: bytes) -> int:
    """A 64-bit cookie that identifies a pipeline (P4Info + device config)."""
    digest = hashlib.sha256(p4info.SerializeToString(deterministic=True)
                            + b"\0" + device_config).digest()
    return int.from_bytes(digest[:8], "big") or 1


def wait_for_grpc(address: str, timeout: float = 30.0,
                  alive: Any = None) -> None:
    """Block until a gRPC server answers at ``address`` (no fixed sleeps: the channel's
    connectivity is polled); TimeoutError after ``timeout`` s, or as soon as
    ``alive()`` returns False (e.g. the server process died)."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        while True:
            try:
                grpc.channel_ready_future(channel).result(timeout=0.1)
                return
            except grpc.FutureTimeoutError:
                if alive is not None and not alive():
                    raise TimeoutError(f"the server at {address} exited") from None
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no gRPC server at {address} after "
                                       f"{timeout:.0f} s") from None


_ENTITY_FIELDS: dict[type, str] = {
    p4runtime_pb2.TableEntry: "table_entry",
    p4runtime_pb2.ActionProfileMember: "action_profile_member",
    p4runtime_pb2.ActionProfileGroup: "action_profile_group",
    p4runtime_pb2.MeterEntry: "meter_entry",
    p4runtime_pb2.DirectMeterEntry: "direct_meter_entry",
    p4runtime_pb2.CounterEntry: "counter_entry",
    p4runtime_pb2.DirectCounterEntry: "direct_counter_entry",
    p4runtime_pb2.PacketReplicationEngineEntry: "packet_replication_engine_entry",
    p4runtime_pb2.ValueSetEntry: "value_set_entry",
    p4runtime_pb2.RegisterEntry: "register_entry",
    p4runtime_pb2.DigestEntry: "digest_entry",
}


def to_entity(obj: Any) -> p4runtime_pb2.Entity:
    """Wrap a TableEntry, CounterEntry, PRE entry, DigestEntry... in an Entity."""
    if isinstance(obj, p4runtime_pb2.Entity):
        return obj
    field = _ENTITY_FIELDS.get(type(obj))
    if field is None:
        raise TypeError(f"not a P4Runtime entity: {type(obj).__name__}")
    entity = p4runtime_pb2.Entity()
    getattr(entity, field).CopyFrom(obj)
    return entity


class P4RuntimeSession:
    """One controller: channel, stub, StreamChannel (reader thread) and election id."""

    def __init__(self, address: str, device_id: int = 0,
                 election_id: tuple[int, int] = (0, 1), role: str = "") -> None:
        self.address = address
        self.device_id = device_id
        self.election_id = election_id
        self.role = role
        self.channel: grpc.Channel | None = None
        self.stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self._requests: queue.Queue[p4runtime_pb2.StreamMessageRequest | None] = queue.Queue()
        self._stream: Any = None
        self._reader: threading.Thread | None = None
        self._queues: dict[str, queue.Queue[Any]] = {k: queue.Queue() for k in STREAM_KINDS}
        self.stream_error: grpc.RpcError | None = None
        self.primary = False

    # -- connection ---------------------------------------------------------------------
    def connect(self, timeout: float = 10.0) -> p4runtime_pb2.MasterArbitrationUpdate:
        """Open the channel and the stream, send the arbitration update and wait for the
        answer. Raises P4RuntimeSessionError unless this controller is the primary
        (an election id still held by a previous session is retried until
        ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._connect_once(max(0.5, deadline - time.monotonic()))
            except P4RuntimeSessionError as error:
                retry = (self.stream_error is not None
                         and self.stream_error.code() == grpc.StatusCode.INVALID_ARGUMENT)
                self.close()
                if not retry or time.monotonic() > deadline:
                    raise error
                time.sleep(0.05)

    def _connect_once(self, timeout: float) -> p4runtime_pb2.MasterArbitrationUpdate:
        # A failed batch of many updates carries one p4.v1.Error per update in its
        # trailers: more than gRPC's default 16 KiB metadata limit for a few hundred.
        options = [("grpc.max_send_message_length", _MAX_MESSAGE),
                   ("grpc.max_receive_message_length", _MAX_MESSAGE),
                   ("grpc.max_metadata_size", _MAX_METADATA)]
        self.channel = grpc.insecure_channel(self.address, options=options)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise P4RuntimeSessionError(f"no P4Runtime server at {self.address}") from None
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._requests = queue.Queue()
        self._queues = {k: queue.Queue() for k in STREAM_KINDS}
        self.stream_error = None
        self._stream = self.stub.StreamChannel(self._request_iterator())
        self._reader = threading.Thread(target=self._read_stream, name="p4rt-stream",
                                        daemon=True)
        self._reader.start()
        request = p4runtime_pb2.StreamMessageRequest()
        arb = request.arbitration
        arb.device_id = self.device_id
        arb.election_id.high, arb.election_id.low = self.election_id
        if self.role:
            arb.role.name = self.role
        self._requests.put(request)
        reply = self.get_stream("arbitration", timeout=timeout)
        if reply is None:
            detail = (f"{self.stream_error.code().name}: {self.stream_error.details()}"
                      if self.stream_error is not None else "no answer")
            raise P4RuntimeSessionError(f"arbitration failed on {self.address}: {detail}")
        if reply.status.code != code_pb2.OK:
            raise P4RuntimeSessionError(
                f"not the primary: {code_name(reply.status.code)} {reply.status.message}")
        self.primary = True
        return reply

    def _request_iterator(self) -> Iterator[p4runtime_pb2.StreamMessageRequest]:
        requests = self._requests
        while True:
            item = requests.get()
            if item is None:
                return
            yield item

    def _read_stream(self) -> None:
        stream = self._stream
        try:
            for response in stream:
                kind = response.WhichOneof("update") or "other"
                self._queues.get(kind, self._queues["other"]).put(response)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                log.debug("stream ended: %s %s", error.code().name, error.details())
                self.stream_error = error

    def close(self, timeout: float = 2.0) -> None:
        """Half-close the stream and wait for the server to end it (so that the next
        session can reuse the election id), then close the channel."""
        self._requests.put(None)
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.join(timeout)
            if reader.is_alive() and self._stream is not None:
                self._stream.cancel()
                reader.join(timeout)
        self._stream = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self.primary = False

    # -- stream -------------------------------------------------------------------------
    def send_stream(self, message: p4runtime_pb2.StreamMessageRequest) -> None:
        self._requests.put(message)

    def get_stream(self, kind: str, timeout: float = 2.0) -> Any:
        """The next StreamMessageResponse's ``kind`` part ("packet", "digest",
        "arbitration", "idle_timeout_notification", "error"), or None after
        ``timeout`` s."""
        try:
            response = self._queues[kind].get(timeout=timeout)
        except queue.Empty:
            return None
        return response if kind == "other" else getattr(response, kind)

    def drain_stream(self, kind: str) -> list[Any]:
        items = []
        while True:
            item = self.get_stream(kind, timeout=0)
            if item is None:
                return items
            items.append(item)

    # -- RPCs ---------------------------------------------------------------------------
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
        assert self.stub is not None, "not connected"
        try:
            self.stub.SetForwardingPipelineConfig(request)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error, "SetForwardingPipelineConfig") from None

    def get_pipeline_cookie(self) -> int | None:
        """The device's pipeline cookie, or None when it has no pipeline."""
        assert self.stub is not None, "not connected"
        request = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest.COOKIE_ONLY)
        try:
            reply = self.stub.GetForwardingPipelineConfig(request)
        except grpc.RpcError:
            return None
        if not reply.config.HasField("cookie"):
            return None
        return int(reply.config.cookie.cookie)

    def get_p4info(self) -> p4info_pb2.P4Info:
        assert self.stub is not None, "not connected"
        request = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest
            .P4INFO_AND_COOKIE)
        return self.stub.GetForwardingPipelineConfig(request).config.p4info

    def write(self, updates: Sequence[p4runtime_pb2.Update],
              atomicity: int = p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR) -> None:
        request = p4runtime_pb2.WriteRequest(atomicity=atomicity)
        self._election(request)
        request.updates.extend(updates)
        assert self.stub is not None, "not connected"
        try:
            self.stub.Write(request)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error) from None

    def write_request(self, request: p4runtime_pb2.WriteRequest) -> None:
        """Send a WriteRequest as given (no device/election id filled in)."""
        assert self.stub is not None, "not connected"
        try:
            self.stub.Write(request)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error) from None

    def read(self, entities: Iterable[Any]) -> list[p4runtime_pb2.Entity]:
        request = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        if self.role:
            request.role = self.role
        request.entities.extend(to_entity(e) for e in entities)
        assert self.stub is not None, "not connected"
        result: list[p4runtime_pb2.Entity] = []
        try:
            for reply in self.stub.Read(request):
                result.extend(reply.entities)
        except grpc.RpcError as error:
            raise P4RuntimeWriteError(error, "Read") from None
        return result

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


def update(kind: int, obj: Any) -> p4runtime_pb2.Update:
    """An Update of ``kind`` (p4runtime_pb2.Update.INSERT...) for an entity."""
    result = p4runtime_pb2.Update(type=kind)
    result.entity.CopyFrom(to_entity(obj))
    return result

