"""``PacketReplicationEngineEntry``: multicast groups and clone sessions over
``runtime.pre.PacketReplicationEngine`` (P4Runtime spec, "PacketReplicationEngineEntry").

Ids must be > 0 in writes (0 is the read wildcard). Replica ports are v1model ports
(0..511) given as ``port`` bytes or the deprecated ``egress_port``; reads give them
back the way they were written. (port, instance) pairs must be unique in an entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.runtime.pre import CloneSession, Replica

from .codec import decode_uint, encode_uint
from .context import PipelineContext
from .errors import from_runtime_error, invalid, unimplemented

__all__ = ["write_pre", "read_pre", "MAX_PORT", "MAX_GROUP_ID"]

Update = p4runtime_pb2.Update
MAX_PORT = 511  # v1model egress_spec/egress_port are bit<9>
MAX_INSTANCE = 0xFFFF  # egress_rid is bit<16>
MAX_GROUP_ID = 0xFFFF  # mcast_grp is bit<16>
MAX_CLASS_OF_SERVICE = 7  # v1model priority is bit<3>


def _replicas(replicas: Sequence[p4runtime_pb2.Replica],
              what: str) -> tuple[tuple[Replica, ...], tuple[bool, ...]]:
    out: list[Replica] = []
    as_bytes: list[bool] = []
    seen: set[tuple[int, int]] = set()
    for r in replicas:
        if r.WhichOneof("port_kind") == "port":
            port = decode_uint(r.port, 32, f"{what}: replica port")
            as_bytes.append(True)
        else:
            port = r.egress_port
            as_bytes.append(False)
        if port > MAX_PORT:
            raise invalid(f"{what}: replica port {port} is not a port of this device "
                          f"(0..{MAX_PORT})")
        if r.instance > MAX_INSTANCE:
            raise invalid(f"{what}: replica instance {r.instance} exceeds {MAX_INSTANCE}")
        if (port, r.instance) in seen:
            raise invalid(f"{what}: replica (port {port}, instance {r.instance}) given "
                          "twice")
        seen.add((port, r.instance))
        out.append(Replica(port, r.instance))
    return tuple(out), tuple(as_bytes)


def _encode_replicas(replicas: Sequence[Replica], as_bytes: Sequence[bool],
                     into: object) -> None:
    for i, r in enumerate(replicas):
        rep = into.add()  # type: ignore[attr-defined]
        if i < len(as_bytes) and not as_bytes[i]:
            rep.egress_port = r.egress_port
        else:
            rep.port = encode_uint(r.egress_port)
        rep.instance = r.rid


def write_pre(ctx: PipelineContext, kind: int,
              pre: p4runtime_pb2.PacketReplicationEngineEntry) -> None:
    which = pre.WhichOneof("type")
    if which == "multicast_group_entry":
        _write_group(ctx, kind, pre.multicast_group_entry)
    elif which == "clone_session_entry":
        _write_session(ctx, kind, pre.clone_session_entry)
    else:
        raise invalid("PacketReplicationEngineEntry: no multicast group or clone session")


def _write_group(ctx: PipelineContext, kind: int,
                 mg: p4runtime_pb2.MulticastGroupEntry) -> None:
    gid = mg.multicast_group_id
    what = f"multicast group {gid}"
    if gid == 0:
        raise invalid("multicast_group_id 0 is not valid in a write")
    if gid > MAX_GROUP_ID:
        raise invalid(f"multicast_group_id {gid} exceeds {MAX_GROUP_ID} (mcast_grp is "
                      "bit<16>)")
    engine = ctx.state.pre
    try:
        if kind == Update.DELETE:
            engine.delete_group(gid)
            ctx.extras.mc_meta.pop(gid, None)
            return
        replicas, as_bytes = _replicas(mg.replicas, what)
        if kind == Update.INSERT:
            engine.create_group(gid, replicas)
        elif kind == Update.MODIFY:
            engine.modify_group(gid, replicas)
        else:
            raise invalid("update type must be INSERT, MODIFY or DELETE")
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    ctx.extras.mc_meta[gid] = (mg.metadata, as_bytes)


def _write_session(ctx: PipelineContext, kind: int,
                   cs: p4runtime_pb2.CloneSessionEntry) -> None:
    sid = cs.session_id
    what = f"clone session {sid}"
    if sid == 0:
        raise invalid("session_id 0 is not valid in a write")
    engine = ctx.state.pre
    try:
        if kind == Update.DELETE:
            engine.delete_clone_session(sid)
            ctx.extras.clone_ports.pop(sid, None)
            return
        if kind not in (Update.INSERT, Update.MODIFY):
            raise invalid("update type must be INSERT, MODIFY or DELETE")
        replicas, as_bytes = _replicas(cs.replicas, what)
        if not replicas:
            raise unimplemented(f"{what}: a clone session without replicas is not "
                                "supported by this target")
        if cs.class_of_service > MAX_CLASS_OF_SERVICE:
            raise invalid(f"{what}: class_of_service {cs.class_of_service} exceeds "
                          f"{MAX_CLASS_OF_SERVICE}")
        if cs.packet_length_bytes < 0:
            raise invalid(f"{what}: packet_length_bytes cannot be negative")
        session = CloneSession(class_of_service=cs.class_of_service,
                               packet_length_bytes=cs.packet_length_bytes,
                               replicas=replicas)
        if kind == Update.INSERT:
            engine.create_clone_session(sid, session)
        else:
            engine.modify_clone_session(sid, session)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    ctx.extras.clone_ports[sid] = as_bytes


def read_pre(ctx: PipelineContext, want: p4runtime_pb2.PacketReplicationEngineEntry,
             new: Callable[[], p4runtime_pb2.PacketReplicationEngineEntry]) -> None:
    which = want.WhichOneof("type")
    engine = ctx.state.pre
    if which == "multicast_group_entry":
        gid = want.multicast_group_entry.multicast_group_id
        groups = engine.groups()
        ids = sorted(groups) if gid == 0 else ([gid] if gid in groups else [])
        for g in ids:
            mg = new().multicast_group_entry
            mg.multicast_group_id = g
            metadata, as_bytes = ctx.extras.mc_meta.get(g, (b"", ()))
            _encode_replicas(groups[g], as_bytes, mg.replicas)
            mg.metadata = metadata
    elif which == "clone_session_entry":
        sid = want.clone_session_entry.session_id
        sessions = engine.clone_sessions()
        ids = sorted(sessions) if sid == 0 else ([sid] if sid in sessions else [])
        for s in ids:
            session = sessions[s]
            cs = new().clone_session_entry
            cs.session_id = s
            _encode_replicas(session.destinations(), ctx.extras.clone_ports.get(s, ()),
                             cs.replicas)
            cs.class_of_service = session.class_of_service
            cs.packet_length_bytes = session.packet_length_bytes
    else:
        raise invalid("PacketReplicationEngineEntry read: set multicast_group_entry or "
                      "clone_session_entry")
