"""Digest lists: buffering, de-duplication, acknowledgements (spec, "DigestEntry").

Digest messages of an enabled digest (a ``DigestEntry`` was inserted) are buffered per
digest and sent to the primary controllers as one ``DigestList`` when the buffer holds
``max_list_size`` distinct messages, or ``max_timeout_ns`` after the first one arrived
(at once when ``max_timeout_ns`` is 0 or ``max_list_size`` is 1). A message equal to one
already buffered, or to one sent in a list that is neither acknowledged
(``DigestListAck``) nor older than ``ack_timeout_ns``, is dropped. A background thread
handles the timeouts. Messages of digests that are not enabled are dropped, as on BMv2.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from p4.config.v1 import p4types_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from behavioral_model.frontend import ast
from behavioral_model.runtime.digests import DigestMessage

from .codec import encode_int, encode_uint
from .context import PipelineContext

__all__ = ["DigestManager", "encode_p4data"]

log = logging.getLogger("behavioral_model.p4runtime")

SendAll = Callable[[p4runtime_pb2.StreamMessageResponse], None]


@dataclass
class _Buffer:
    config: p4runtime_pb2.DigestEntry.Config
    first_ns: int = 0
    keys: list[tuple[int, ...]] = field(default_factory=list)
    data: list[p4data_pb2.P4Data] = field(default_factory=list)


class DigestManager:
    def __init__(self, get_context: Callable[[], PipelineContext | None], send_all: SendAll,
                 clock: Callable[[], int] = time.monotonic_ns) -> None:
        self._get_context = get_context
        self._send_all = send_all
        self._clock = clock
        self._cond = threading.Condition()
        self._buffers: dict[int, _Buffer] = {}
        # (digest id, list id) -> (keys, expiry time) of lists not yet acknowledged
        self._cache: dict[tuple[int, int], tuple[list[tuple[int, ...]], int]] = {}
        self._list_ids: dict[int, itertools.count[int]] = {}
        self._stopped = False
        self._alias_cache: tuple[object, dict[str, str]] | None = None
        self._thread = threading.Thread(target=self._run, name="p4rt-digests", daemon=True)
        self._thread.start()

    # -- events -------------------------------------------------------------------------
    def on_digest(self, message: DigestMessage) -> None:
        """A digest message from the data plane (any thread, no lock held)."""
        ctx = self._get_context()
        if ctx is None:
            return
        info = ctx.index.digest_by_runtime_name.get(message.name)
        if info is None:
            alias = self._aliases(ctx).get(message.name)
            info = ctx.index.digest_by_runtime_name.get(alias) if alias else None
        if info is None:
            log.debug("digest %r is not in the P4Info; dropped", message.name)
            return
        config = ctx.extras.digest_configs.get(info.id)
        if config is None:
            return
        key = tuple(message.values)
        data = encode_p4data(info.type_spec, iter(message.values), ctx.p4info.type_info)
        with self._cond:
            if self._stopped or self._in_cache(info.id, key):
                return
            buf = self._buffers.get(info.id)
            if buf is None:
                buf = self._buffers[info.id] = _Buffer(config, self._clock())
            if key in buf.keys:
                return
            buf.keys.append(key)
            buf.data.append(data)
            full = config.max_list_size and len(buf.keys) >= config.max_list_size
            if full or config.max_timeout_ns == 0 or config.max_list_size == 1:
                self._flush(info.id)
            else:
                self._cond.notify()

    def _aliases(self, ctx: PipelineContext) -> dict[str, str]:
        """P4 type name -> ``@name`` of the program's struct/header types (P4Info names
        digests after the latter, the data plane after the former)."""
        cached = self._alias_cache
        if cached is None or cached[0] is not ctx.program:
            aliases: dict[str, str] = {}
            for decl in ctx.program.checked.program.decls:
                if isinstance(decl, ast.StructDecl | ast.HeaderDecl):
                    shown = decl.display_name().lstrip(".")
                    if shown != decl.name:
                        aliases[decl.name] = shown
            cached = self._alias_cache = (ctx.program, aliases)
        return cached[1]

    def ack(self, digest_id: int, list_id: int) -> bool:
        """A DigestListAck; False if no such list is waiting for one."""
        with self._cond:
            return self._cache.pop((digest_id, list_id), None) is not None

    def reset(self) -> None:
        """Forget buffers and the cache (new pipeline, or digests reconfigured)."""
        with self._cond:
            self._buffers.clear()
            self._cache.clear()
            self._list_ids.clear()

    def drop_digest(self, digest_id: int) -> None:
        with self._cond:
            self._buffers.pop(digest_id, None)
            for k in [k for k in self._cache if k[0] == digest_id]:
                del self._cache[k]

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join(timeout=2)

    # -- internals (self._cond held) ----------------------------------------------------
    def _in_cache(self, digest_id: int, key: tuple[int, ...]) -> bool:
        return any(d == digest_id and key in keys
                   for (d, _), (keys, _) in self._cache.items())

    def _flush(self, digest_id: int) -> None:
        buf = self._buffers.pop(digest_id)
        counter = self._list_ids.setdefault(digest_id, itertools.count(1))
        list_id = next(counter)
        resp = p4runtime_pb2.StreamMessageResponse()
        resp.digest.digest_id = digest_id
        resp.digest.list_id = list_id
        resp.digest.data.extend(buf.data)
        resp.digest.timestamp = time.time_ns()
        if buf.config.ack_timeout_ns > 0:
            self._cache[(digest_id, list_id)] = (
                buf.keys, self._clock() + buf.config.ack_timeout_ns)
            self._cond.notify()  # its expiry is a deadline for _run
        self._send_all(resp)

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                now = self._clock()
                for digest_id, buf in list(self._buffers.items()):
                    if now - buf.first_ns >= buf.config.max_timeout_ns:
                        self._flush(digest_id)
                for k, (_, expiry) in list(self._cache.items()):
                    if now >= expiry:
                        del self._cache[k]
                deadlines = [b.first_ns + b.config.max_timeout_ns
                             for b in self._buffers.values()]
                deadlines += [expiry for _, expiry in self._cache.values()]
                # Nothing pending: sleep until a digest or an ack timeout arrives
                # (on_digest and _flush notify); a fabric of hundreds of devices in
                # one process would otherwise wake a thread per device every second.
                wait = (min(deadlines) - now) / 1e9 if deadlines else None
                self._cond.wait(timeout=None if wait is None else min(max(wait, 0.0005), 1.0))


def encode_p4data(spec: p4types_pb2.P4DataTypeSpec, values: Iterator[int],
                  types: p4types_pb2.P4TypeInfo) -> p4data_pb2.P4Data:
    """``P4Data`` for a value of type ``spec`` from its flattened leaf values."""
    which = spec.WhichOneof("type_spec")
    out = p4data_pb2.P4Data()
    if which == "struct":
        members = types.structs[spec.struct.name].members
        out.struct.members.extend(encode_p4data(m.type_spec, values, types) for m in members)
    elif which == "tuple":
        out.tuple.members.extend(encode_p4data(m, values, types) for m in spec.tuple.members)
    elif which == "header":
        header = types.headers[spec.header.name]
        out.header.is_valid = True
        out.header.bitstrings.extend(_bits(m.type_spec, next(values, 0))
                                     for m in header.members)
    elif which == "bool":
        out.bool = bool(next(values, 0))
    elif which == "serializable_enum":
        out.enum_value = encode_uint(next(values, 0))
    elif which == "enum":
        value = next(values, 0)
        members: Sequence[p4types_pb2.P4EnumTypeSpec.Member] = \
            types.enums[spec.enum.name].members
        out.enum = members[value].name if 0 <= value < len(members) else str(value)
    elif which == "error":
        value = next(values, 0)
        errors = types.error.members
        out.error = errors[value] if 0 <= value < len(errors) else str(value)
    elif which == "new_type":
        new = types.new_types[spec.new_type.name]
        if new.WhichOneof("representation") == "original_type":
            return encode_p4data(new.original_type, values, types)
        out.bitstring = encode_uint(next(values, 0))
    else:
        out.bitstring = _bits(spec.bitstring, next(values, 0)) if which == "bitstring" \
            else encode_uint(max(next(values, 0), 0))
    return out


def _bits(spec: p4types_pb2.P4BitstringLikeTypeSpec, value: int) -> bytes:
    if spec.WhichOneof("type_spec") == "int":
        width = spec.int.bitwidth
        if value >= 0 and width and value >> (width - 1):
            value -= 1 << width
        return encode_int(value)
    return encode_uint(max(value, 0))
