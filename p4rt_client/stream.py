"""The client side of one P4Runtime StreamChannel: a request queue feeding the RPC,
a reader thread sorting what the server sends into one queue per kind, and the
arbitration state the server last announced."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from typing import Any

import grpc
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

__all__ = ["STREAM_KINDS", "StreamChannel"]

log = logging.getLogger("p4rt_client.stream")

#: Kinds of StreamMessageResponse, by the name of their ``update`` field.
STREAM_KINDS = ("arbitration", "packet", "digest", "idle_timeout_notification", "error",
                "other")


class StreamChannel:
    """An open StreamChannel. ``primary`` follows every arbitration update the server
    sends (the server tells all controllers when the primary changes)."""

    def __init__(self, stub: p4runtime_pb2_grpc.P4RuntimeStub) -> None:
        self._requests: queue.Queue[p4runtime_pb2.StreamMessageRequest | None] = queue.Queue()
        self._queues: dict[str, queue.Queue[Any]] = {k: queue.Queue() for k in STREAM_KINDS}
        self.error: grpc.RpcError | None = None
        #: Set once the stream has ended (the server closed it, the device went away,
        #: or ``close``).
        self.ended = threading.Event()
        self.primary = False
        self.primary_election_id: tuple[int, int] | None = None
        self._call = stub.StreamChannel(self._request_iterator())
        self._reader = threading.Thread(target=self._read, name="p4rt-stream", daemon=True)
        self._reader.start()

    def _request_iterator(self) -> Iterator[p4runtime_pb2.StreamMessageRequest]:
        requests = self._requests
        while True:
            item = requests.get()
            if item is None:
                return
            yield item

    def _read(self) -> None:
        try:
            for response in self._call:
                kind = response.WhichOneof("update") or "other"
                if kind == "arbitration":
                    self._note_arbitration(response.arbitration)
                self._queues.get(kind, self._queues["other"]).put(response)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                log.debug("stream ended: %s %s", error.code().name, error.details())
                self.error = error
        self.primary = False
        self.ended.set()

    def _note_arbitration(self, update: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        self.primary = update.status.code == code_pb2.OK
        # With no primary (NOT_FOUND) the election id is the highest one seen, not a
        # live controller's.
        has_primary = update.status.code in (code_pb2.OK, code_pb2.ALREADY_EXISTS)
        self.primary_election_id = ((update.election_id.high, update.election_id.low)
                                    if has_primary and update.HasField("election_id")
                                    else None)

    def send(self, message: p4runtime_pb2.StreamMessageRequest) -> None:
        self._requests.put(message)

    def get(self, kind: str, timeout: float = 2.0) -> Any:
        """The next StreamMessageResponse's ``kind`` part ("packet", "digest",
        "arbitration", "idle_timeout_notification", "error"; "other" gives the whole
        response), or None after ``timeout`` s."""
        try:
            response = self._queues[kind].get(timeout=timeout)
        except queue.Empty:
            return None
        return response if kind == "other" else getattr(response, kind)

    def drain(self, kind: str) -> list[Any]:
        """Everything of ``kind`` received so far, without waiting."""
        items = []
        while True:
            item = self.get(kind, timeout=0)
            if item is None:
                return items
            items.append(item)

    def close(self, timeout: float = 2.0) -> None:
        """Half-close the stream and wait for the server to end it (so that the next
        session can reuse the election id); cancel it if the server does not."""
        self._requests.put(None)
        self._reader.join(timeout)
        if self._reader.is_alive():
            self._call.cancel()
            self._reader.join(timeout)
