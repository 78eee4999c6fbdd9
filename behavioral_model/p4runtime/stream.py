"""``StreamChannel``: one session per stream, arbitration, packet I/O, digest acks.

Each stream gets a :class:`StreamSession` with an outgoing queue; a reader thread
consumes the client's messages while the RPC handler yields whatever is queued
(arbitration notifications, packet-ins, digest lists, stream errors). Only a primary
controller may send packet-outs and digest acks; anything refused or malformed is
answered with a ``StreamError`` (spec, "Stream Error Reporting"), except arbitration
errors, which end the stream with their status code.

Packet-ins and digest lists go to the primary controller of every role (roles have no
configuration here, so each has full pipeline access).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import grpc
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from .codec import decode_uint, encode_uint
from .context import PipelineContext
from .errors import P4RTError, invalid, permission_denied

if TYPE_CHECKING:
    from .arbitration import Arbiter
    from .digests import DigestManager
    from .target import P4RuntimeTarget

__all__ = ["StreamSession", "StreamHandler", "decode_packet_out", "encode_packet_in"]

log = logging.getLogger("behavioral_model.p4runtime")

_END = object()
#: Outgoing messages queued per stream before packet-ins and digests are dropped.
QUEUE_LIMIT = 10000
_ids = itertools.count(1)


class StreamSession:
    """The server side of one StreamChannel RPC."""

    def __init__(self, peer: str) -> None:
        self.id = next(_ids)
        self.peer = peer
        self._queue: queue.Queue[object] = queue.Queue()
        self._done = threading.Event()
        self.dropped = 0

    def send(self, msg: p4runtime_pb2.StreamMessageResponse) -> None:
        """Queue a message (never blocks; data messages are dropped when the client is
        too slow)."""
        if self._done.is_set():
            return
        if self._queue.qsize() >= QUEUE_LIMIT and not msg.HasField("arbitration"):
            self.dropped += 1
            return
        self._queue.put(msg)

    def finish(self, error: P4RTError | None = None) -> None:
        """End the stream, with ``error`` as its status if given."""
        if not self._done.is_set():
            self._done.set()
            self._queue.put(error if error is not None else _END)

    def outgoing(self) -> Iterator[p4runtime_pb2.StreamMessageResponse | P4RTError]:
        while True:
            item = self._queue.get()
            if item is _END:
                return
            yield item  # type: ignore[misc]
            if isinstance(item, P4RTError):
                return


def stream_error(code: int, message: str,
                 request: p4runtime_pb2.StreamMessageRequest
                 ) -> p4runtime_pb2.StreamMessageResponse:
    resp = p4runtime_pb2.StreamMessageResponse()
    resp.error.canonical_code = code
    resp.error.message = message
    which = request.WhichOneof("update")
    if which == "packet":
        resp.error.packet_out.packet_out.CopyFrom(request.packet)
    elif which == "digest_ack":
        resp.error.digest_list_ack.digest_list_ack.CopyFrom(request.digest_ack)
    elif which == "other":
        resp.error.other.other.CopyFrom(request.other)
    return resp


def decode_packet_out(ctx: PipelineContext,
                      packet: p4runtime_pb2.PacketOut) -> dict[str, int]:
    """Metadata name -> value; every ``packet_out`` field exactly once, in range."""
    header = ctx.index.packet_out
    if header is None:
        if len(packet.metadata):
            raise invalid("the program has no @controller_header(\"packet_out\"); "
                          "packet-out metadata must be empty")
        return {}
    fields = {fid: (name, width) for fid, name, width in header.fields}
    values: dict[str, int] = {}
    for md in packet.metadata:
        if md.metadata_id not in fields:
            raise invalid(f"unknown packet_out metadata id {md.metadata_id}")
        name, width = fields[md.metadata_id]
        if name in values:
            raise invalid(f"packet_out metadata '{name}' given twice")
        values[name] = decode_uint(md.value, width, f"packet_out metadata '{name}'")
    missing = [name for name, _ in fields.values() if name not in values]
    if missing:
        raise invalid(f"packet_out metadata missing: {', '.join(missing)}")
    return values


def encode_packet_in(ctx: PipelineContext, payload: bytes,
                     metadata: dict[str, int]) -> p4runtime_pb2.StreamMessageResponse:
    resp = p4runtime_pb2.StreamMessageResponse()
    resp.packet.payload = payload
    header = ctx.index.packet_in
    if header is not None:
        for fid, name, _ in header.fields:
            if name in metadata:
                resp.packet.metadata.add(metadata_id=fid, value=encode_uint(metadata[name]))
    return resp


class StreamHandler:
    """Reads one stream's requests (in its own thread) and acts on them."""

    def __init__(self, arbiter: Arbiter, target: P4RuntimeTarget, digests: DigestManager,
                 live_context: Callable[[], PipelineContext | None]) -> None:
        self.arbiter = arbiter
        self.target = target
        self.digests = digests
        self.live_context = live_context

    def run(self, session: StreamSession,
            requests: Iterator[p4runtime_pb2.StreamMessageRequest]) -> None:
        try:
            for req in requests:
                if not self.handle(session, req):
                    return
        except grpc.RpcError:
            log.debug("stream %d: the client went away", session.id)
        except Exception:  # noqa: BLE001 - a bug must not go unnoticed, nor kill the server
            log.exception("stream %d: error reading requests", session.id)
        finally:
            session.finish()

    def handle(self, session: StreamSession,
               req: p4runtime_pb2.StreamMessageRequest) -> bool:
        """Handle one request; False when the stream must end."""
        which = req.WhichOneof("update")
        log.debug("stream %d (%s): %s", session.id, session.peer, which)
        if which == "arbitration":
            try:
                self.arbiter.update(session, session.send, req.arbitration, session.peer)
            except P4RTError as err:
                log.debug("stream %d: arbitration refused: %s", session.id, err)
                session.finish(err)
                return False
            return True
        try:
            if which == "packet":
                self._packet_out(session, req.packet)
            elif which == "digest_ack":
                self._digest_ack(session, req.digest_ack)
            else:
                raise P4RTError(code_pb2.UNIMPLEMENTED,
                                f"stream message '{which}' is not supported")
        except P4RTError as err:
            session.send(stream_error(err.code, err.message, req))
        except Exception as err:  # noqa: BLE001
            log.exception("stream %d: internal error", session.id)
            session.send(stream_error(code_pb2.INTERNAL, f"internal error: {err}", req))
        return True

    def _packet_out(self, session: StreamSession, packet: p4runtime_pb2.PacketOut) -> None:
        if not self.arbiter.is_primary_stream(session):
            raise permission_denied("only the primary controller may send packet-outs")
        ctx = self.live_context()
        if ctx is None:
            raise P4RTError(code_pb2.FAILED_PRECONDITION, "no forwarding pipeline is set")
        metadata = decode_packet_out(ctx, packet)
        self.target.packet_out(packet.payload, metadata)

    def _digest_ack(self, session: StreamSession, ack: p4runtime_pb2.DigestListAck) -> None:
        if not self.arbiter.is_primary_stream(session):
            raise permission_denied("only the primary controller may acknowledge digests")
        ctx = self.live_context()
        if ctx is None or ack.digest_id not in ctx.index.digests:
            raise invalid(f"unknown digest id {ack.digest_id}")
        self.digests.ack(ack.digest_id, ack.list_id)
