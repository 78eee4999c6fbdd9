"""The P4Runtime v1 gRPC service over a :class:`~.target.P4RuntimeTarget`.

    server = P4RuntimeServer(target, "0.0.0.0:9559")   # tls=ServerTls(...) for TLS
    server.start()
    ...
    server.stop()

``address`` may use port 0; ``server.port`` is the port actually bound. Requests are
served by a thread pool; Write, Read and SetForwardingPipelineConfig are serialized by
one lock and touch the device state only while holding ``target.lock``. Every request
is logged at debug level on the ``behavioral_model.p4runtime`` logger. Bad requests get
gRPC errors; an unexpected exception becomes INTERNAL and is logged, never propagated.

``Write`` takes the request bytes from gRPC undecoded: the common table-entry updates
are decoded by the hand-written decoder in ``wire`` (protobuf 3.20 is pure Python
here, and building message objects would dominate the cost of a batch), everything
else by protobuf. Both feed the same handlers, so the semantics are the same.
``Read`` answers with ReadResponses serialized by the server: table entries are written
straight to wire format by ``wire_encode`` (the same bytes protobuf would produce).

Status codes follow the P4Runtime spec: a failed ``Write`` batch answers UNKNOWN with
one ``p4.v1.Error`` per update in ``grpc-status-details-bin``; RPC-wide problems
(unknown device: NOT_FOUND, not the primary: PERMISSION_DENIED, no pipeline yet:
FAILED_PRECONDITION, unsupported atomicity: UNIMPLEMENTED) answer with their own code.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from behavioral_model.program import P4Program

from . import pipeline_config
from .arbitration import Arbiter, election_id_of
from .context import PipelineContext
from .digests import DigestManager
from .entities import apply_entry_update, apply_update, internal_error, read_entity, safe
from .errors import (
    STATUS_DETAILS_KEY,
    P4RTError,
    batch_status,
    failed_precondition,
    grpc_code,
    invalid,
    not_found,
    permission_denied,
    unimplemented,
)
from .idle_timeout import IdleTimeoutSweeper
from .p4info_index import P4InfoIndex, P4InfoMismatch
from .stream import StreamHandler, StreamSession, encode_packet_in
from .target import P4RuntimeTarget
from .tls import ServerTls
from .wire import FastWrite, decode_write_request
from .wire_encode import read_responses

__all__ = ["P4RuntimeServer", "API_VERSION"]

log = logging.getLogger("behavioral_model.p4runtime")


def _api_version() -> str:
    try:
        return metadata.version("p4runtime")
    except metadata.PackageNotFoundError:
        return "1.4.1"


API_VERSION = _api_version()
#: Entities per ReadResponse message.
READ_CHUNK = 1000
_MAX_MESSAGE = 256 * 1024 * 1024


class P4RuntimeServer:
    def __init__(self, target: P4RuntimeTarget, address: str = "0.0.0.0:9559",
                 max_workers: int = 64, tls: ServerTls | None = None) -> None:
        self.target = target
        self.address = address
        self.arbiter = Arbiter(target.device_id)
        self.staged: pipeline_config.Staged | None = None
        self._lock = threading.RLock()
        self._ctx: PipelineContext | None = None
        self._device_config: tuple[P4Program, bytes] | None = None
        self.digests = DigestManager(self.live_context, self._send_to_primaries)
        # Idle-timeout notifications go where digests and packet-ins go: to the primary
        # of every role, since roles carry no configuration here and so each owns every
        # table (spec, "Table Idle Timeout Notification": "to the primary client").
        self.idle_timeouts = IdleTimeoutSweeper(target, self.live_context,
                                                self._send_to_primaries)
        self.streams = StreamHandler(self.arbiter, target, self.digests, self.live_context)
        target.add_packet_in_listener(self._on_packet_in)
        target.add_digest_listener(self.digests.on_digest)
        # grpc.server does not shut down the pool it is given: stop() does
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="p4rt")
        self._server = grpc.server(
            self._pool,
            # No SO_REUSEPORT (gRPC's default on Linux): a second switch started on a
            # taken address must fail, not share it and answer for the first.
            options=[("grpc.max_receive_message_length", _MAX_MESSAGE),
                     ("grpc.max_send_message_length", _MAX_MESSAGE),
                     ("grpc.so_reuseport", 0)])
        servicer = _Servicer(self)
        # First: Write with the raw request bytes (see ``wire``) and Read with raw
        # response bytes (see ``wire_encode``); then the service.
        self._server.add_generic_rpc_handlers((_RawHandler(servicer),))
        p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(servicer, self._server)
        try:
            if tls is None:
                self.port = self._server.add_insecure_port(address)
            else:
                self.port = self._server.add_secure_port(address, tls.credentials())
        except RuntimeError:  # grpcio's "Failed to bind to address"
            self.port = 0
        self.tls = tls
        if not self.port:
            raise OSError(f"P4Runtime server: cannot listen on {address}")

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        self._server.start()
        self.idle_timeouts.start()
        security = ("plain text" if self.tls is None else
                    "TLS, client certificates required" if self.tls.client_auth else "TLS")
        log.info("P4Runtime server listening on %s (port %d, %s), device id %d",
                 self.address, self.port, security, self.target.device_id)

    def stop(self, grace: float | None = None) -> None:
        self.idle_timeouts.stop()  # first: no notification for streams being closed
        self._server.stop(grace).wait()
        # Its idle workers would stay for the life of the process: a fabric of 250
        # devices left 400 threads behind per run.
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.digests.stop()
        for name, fn in (("remove_packet_in_listener", self._on_packet_in),
                         ("remove_digest_listener", self.digests.on_digest)):
            remove = getattr(self.target, name, None)  # optional in the protocol
            if remove is not None:
                remove(fn)

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return self._server.wait_for_termination(timeout)

    # -- pipeline contexts --------------------------------------------------------------
    def remember_device_config(self, program: P4Program, data: bytes) -> None:
        with self._lock:
            self._device_config = (program, data)

    def live_context(self) -> PipelineContext | None:
        """The context of the running pipeline (rebuilt when the target's changed)."""
        pipe = self.target.pipeline()
        state = self.target.state
        ctx = self._ctx
        if pipe is not None and ctx is not None and ctx.program is pipe[0] \
                and ctx.p4info is pipe[1] and ctx.state is state:
            ctx.cookie = pipe[2]
            return ctx  # fast path, no server lock (packet-ins and digests)
        with self._lock:
            pipe = self.target.pipeline()
            state = self.target.state
            if pipe is None or state is None:
                self._ctx = None
                return None
            program, p4info, cookie = pipe
            ctx = self._ctx
            if ctx is not None and ctx.program is program and ctx.p4info is p4info \
                    and ctx.state is state:
                ctx.cookie = cookie
                return ctx
            try:
                index = P4InfoIndex(p4info, state)
            except P4InfoMismatch as err:
                log.error("the running pipeline's P4Info does not fit its program: %s", err)
                self._ctx = None
                return None
            saved = self._device_config
            config = saved[1] if saved is not None and saved[0] is program else b""
            self._ctx = PipelineContext(program, p4info, index, cookie, state, config,
                                        now_ns=self.target.now_ns)
            return self._ctx

    def _working_context(self) -> PipelineContext:
        """Where Writes and Reads go: the staged pipeline if any, else the running one."""
        if self.staged is not None:
            return self.staged.ctx
        ctx = self.live_context()
        if ctx is None:
            raise failed_precondition("no forwarding pipeline is set "
                                      "(SetForwardingPipelineConfig first)")
        return ctx

    # -- events from the target ---------------------------------------------------------
    def _send_to_primaries(self, msg: p4runtime_pb2.StreamMessageResponse) -> None:
        for ctrl in self.arbiter.primaries():
            ctrl.send(msg)

    def _on_packet_in(self, payload: bytes, metadata: dict[str, int]) -> None:
        ctx = self.live_context()
        if ctx is None:
            return
        self._send_to_primaries(encode_packet_in(ctx, payload, metadata))

    # -- request checks -----------------------------------------------------------------
    def check_device(self, device_id: int) -> None:
        if device_id != self.target.device_id:
            raise not_found(f"unknown device id {device_id} (this device is "
                            f"{self.target.device_id})")

    def check_primary(self, device_id: int, role: str, election_id: int | None) -> None:
        self.check_device(device_id)
        if not self.arbiter.role_known(role):
            raise not_found(f"unknown role '{role}': no controller has arbitrated for it")
        if not self.arbiter.is_primary(role, election_id):
            raise permission_denied(
                f"not the primary controller of role '{role or '<default>'}' (election id "
                f"{election_id}); open a StreamChannel and win the arbitration first")

    # -- RPC bodies ---------------------------------------------------------------------
    def write(self, request: p4runtime_pb2.WriteRequest | FastWrite
              ) -> list[P4RTError | None]:
        """Apply a Write (a protobuf request, or one decoded by ``wire``); returns one
        error or None per update."""
        if isinstance(request, FastWrite):
            election_id = request.election_id
        else:
            election_id = election_id_of(request)
        self.check_primary(request.device_id, _role(request), election_id)
        with self._lock:
            ctx = self._working_context()
            if request.atomicity != p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR:
                raise unimplemented(
                    f"atomicity {p4runtime_pb2.WriteRequest.Atomicity.Name(request.atomicity)}"
                    " is not supported; use CONTINUE_ON_ERROR")
            staged = self.staged
            errors: list[P4RTError | None] = []
            add = errors.append
            with self.target.lock:
                for update in request.updates:
                    try:
                        if update.__class__ is tuple:
                            kind, entry = update  # type: ignore[misc]
                            apply_entry_update(ctx, kind, entry)
                        else:
                            apply_update(ctx, update)  # type: ignore[arg-type]
                    except P4RTError as err:
                        add(err)
                        continue
                    except Exception as exc:  # noqa: BLE001 - INTERNAL, logged
                        add(internal_error(exc, "Write"))
                        continue
                    add(None)
                    if staged is not None:
                        staged.updates.append(update)  # type: ignore[arg-type]
            return errors

    def write_bytes(self, data: bytes) -> list[P4RTError | None]:
        """``write`` for a serialized WriteRequest."""
        with self._lock:  # so ``staged`` cannot change between decoding and applying
            request: p4runtime_pb2.WriteRequest | FastWrite | None = None
            try:
                if self.staged is None:  # staged Writes are kept as protobuf messages
                    request = decode_write_request(data)
                if request is None:
                    request = p4runtime_pb2.WriteRequest.FromString(data)
            except (DecodeError, ValueError) as err:
                raise invalid(f"malformed WriteRequest: {err}") from None
            return self.write(request)

    def read(self, request: p4runtime_pb2.ReadRequest
             ) -> Iterator[bytes | list[P4RTError | None]]:
        """Yields serialized ReadResponses, then (last) the per-entity errors."""
        self.check_device(request.device_id)
        with self._lock:
            ctx = self._working_context()
        errors: list[P4RTError | None] = []
        now_ns = self.target.now_ns()  # the clock hits are stamped in
        for entity in request.entities:
            with self._lock, self.target.lock:
                found, err = safe(lambda e=entity: read_entity(ctx, e, now_ns), "Read")
            errors.append(err)
            if err is None:
                yield from read_responses(found, READ_CHUNK)
        yield errors


def _role(request: Any) -> str:
    return request.role or (str(request.role_id) if request.role_id else "")


class _RawHandler(grpc.GenericRpcHandler):
    """``/p4.v1.P4Runtime/Write`` with the request bytes left undecoded and
    ``/p4.v1.P4Runtime/Read`` with responses serialized by the server itself."""

    def __init__(self, servicer: _Servicer) -> None:
        self._handlers = {
            "/p4.v1.P4Runtime/Write": grpc.unary_unary_rpc_method_handler(
                servicer.WriteBytes, request_deserializer=None,
                response_serializer=p4runtime_pb2.WriteResponse.SerializeToString),
            "/p4.v1.P4Runtime/Read": grpc.unary_stream_rpc_method_handler(
                servicer.Read, request_deserializer=p4runtime_pb2.ReadRequest.FromString,
                response_serializer=None),  # responses are bytes already
        }

    def service(self, handler_call_details: grpc.HandlerCallDetails
                ) -> grpc.RpcMethodHandler | None:
        return self._handlers.get(handler_call_details.method)  # type: ignore[attr-defined]


class _Servicer(p4runtime_pb2_grpc.P4RuntimeServicer):
    """gRPC glue: logging, error translation, never an escaping exception."""

    def __init__(self, server: P4RuntimeServer) -> None:
        self.s = server

    def _guard(self, name: str, context: grpc.ServicerContext,
               fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except P4RTError as err:
            log.debug("%s -> %s", name, err)
            _abort(context, err.code, err.message)
        except Exception as err:  # noqa: BLE001 - a bug must not reach grpc as a traceback
            log.exception("%s: internal error", name)
            _abort(context, code_pb2.INTERNAL, f"internal error: {type(err).__name__}: {err}")

    def Capabilities(self, request: p4runtime_pb2.CapabilitiesRequest,
                     context: grpc.ServicerContext) -> p4runtime_pb2.CapabilitiesResponse:
        log.debug("Capabilities from %s", context.peer())
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    def SetForwardingPipelineConfig(self, request: Any, context: grpc.ServicerContext) -> Any:
        log.debug("SetForwardingPipelineConfig from %s: action %d", context.peer(),
                  request.action)

        def body() -> Any:
            self.s.check_primary(request.device_id, _role(request), election_id_of(request))
            with self.s._lock:
                pipeline_config.set_pipeline(self.s, request)
            return p4runtime_pb2.SetForwardingPipelineConfigResponse()

        return self._guard("SetForwardingPipelineConfig", context, body)

    def GetForwardingPipelineConfig(self, request: Any, context: grpc.ServicerContext) -> Any:
        log.debug("GetForwardingPipelineConfig from %s", context.peer())

        def body() -> Any:
            self.s.check_device(request.device_id)
            return pipeline_config.get_pipeline(self.s, request)

        return self._guard("GetForwardingPipelineConfig", context, body)

    def Write(self, request: p4runtime_pb2.WriteRequest,
              context: grpc.ServicerContext) -> p4runtime_pb2.WriteResponse:
        log.debug("Write from %s: %d update(s)", context.peer(), len(request.updates))
        return self._write_done(context, self._guard("Write", context,
                                                     lambda: self.s.write(request)))

    def WriteBytes(self, data: bytes, context: grpc.ServicerContext
                   ) -> p4runtime_pb2.WriteResponse:
        """Write, served from the serialized request (registered ahead of Write)."""
        log.debug("Write from %s: %d bytes", context.peer(), len(data))
        return self._write_done(context, self._guard("Write", context,
                                                     lambda: self.s.write_bytes(data)))

    def _write_done(self, context: grpc.ServicerContext,
                    errors: list[P4RTError | None]) -> p4runtime_pb2.WriteResponse:
        if any(e is not None for e in errors):
            status = batch_status(errors, "Write")
            log.debug("Write -> %s", status.message)
            _abort_with_details(context, status)
        log.debug("Write -> OK, %d update(s)", len(errors))
        return p4runtime_pb2.WriteResponse()

    def Read(self, request: p4runtime_pb2.ReadRequest,
             context: grpc.ServicerContext) -> Iterator[bytes]:
        """Read, answered with serialized ReadResponses (registered ahead of the
        service's Read, whose serializer would want messages)."""
        log.debug("Read from %s: %d entit(y/ies)", context.peer(), len(request.entities))
        chunks = self._guard("Read", context, lambda: self.s.read(request))
        errors: list[P4RTError | None] = []
        while True:
            item = self._guard("Read", context, lambda: next(chunks, None))
            if item is None:
                break
            if isinstance(item, bytes):
                yield item
            else:
                errors = item
        if any(e is not None for e in errors):
            status = batch_status(errors, "Read")
            log.debug("Read -> %s", status.message)
            _abort_with_details(context, status)

    def StreamChannel(self, request_iterator: Iterator[p4runtime_pb2.StreamMessageRequest],
                      context: grpc.ServicerContext
                      ) -> Iterator[p4runtime_pb2.StreamMessageResponse]:
        session = StreamSession(context.peer())
        log.debug("StreamChannel %d opened by %s", session.id, session.peer)
        context.add_callback(session.finish)
        reader = threading.Thread(target=self.s.streams.run, args=(session, request_iterator),
                                  name=f"p4rt-stream-{session.id}", daemon=True)
        reader.start()
        try:
            for item in session.outgoing():
                if isinstance(item, P4RTError):
                    _abort(context, item.code, item.message)
                yield item
        finally:
            self.s.arbiter.remove(session)
            log.debug("StreamChannel %d closed", session.id)


def _abort(context: grpc.ServicerContext, code: int, message: str) -> NoReturn:
    context.abort(grpc_code(code), message)
    raise AssertionError("unreachable")  # context.abort raises


def _abort_with_details(context: grpc.ServicerContext, status: status_pb2.Status) -> NoReturn:
    context.set_trailing_metadata(((STATUS_DETAILS_KEY, status.SerializeToString()),))
    _abort(context, status.code, status.message)
