"""One NIC's entities (``mrc_nic.p4``, docs/mrc-nic.md section 2), generated on demand.

Every NIC gets its address, one ``plane_port`` and one reply multicast group per plane,
and the EV-event digest; a NIC gets QP state (``qp_context``, ``qp_ev``, ``qp_plane``)
only for the QPs the topology declares on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from controller.topology import Fabric
from protocol import constants as c

from . import p4names as n
from .entities import DigestConfig, Entity, Exact, MulticastGroup, Replica, TableEntry
from .evs import EvPath, QpEndPlan
from .usids import UsidPlan

# Replica instances of a reply group: the host copy is delivered, the plane copy becomes
# the SACK (the NIC's egress tells them apart by rid).
_HOST_REPLICA = 0
_PLANE_REPLICA = 1

# EV events should reach the controller at once (one per list, no batching delay): a
# retired EV is replaced by a backup in the NIC already, but the pool of backups is
# topped up only by the controller [ours].
EV_EVENT_DIGEST_CONFIG = DigestConfig(digest=n.EV_EVENT_DIGEST, max_timeout_ns=0,
                                      max_list_size=1, ack_timeout_ns=10_000_000)


def nic_entities(fabric: Fabric, usids: UsidPlan, name: str,
                 qp_ends: Sequence[QpEndPlan]) -> list[Entity]:
    """Every entity of NIC ``name``; ``qp_ends`` are the QP ends it holds."""
    nic = fabric.nic(name)
    if nic is None:
        raise KeyError(name)
    entities: list[Entity] = [
        TableEntry(n.NIC_ADDRESS, (("dst_addr", Exact(nic.ipv6)),), n.ACCEPT_LOCAL)]
    for plane, port in enumerate(nic.ports):
        t0 = fabric.nic_link(name, plane)
        entities.append(TableEntry(n.PLANE_PORT, (("plane", Exact(plane)),), n.SET_PLANE_PORT, (
            ("port", port), ("nic_mac", nic.macs[plane]), ("next_hop_mac", t0.peer_mac),
            ("usid_block", usids.block), ("src_t0_usid", usids.node(t0.peer)))))
    entities.extend(_reply_group(plane, port) for plane, port in enumerate(nic.ports))
    entities.append(EV_EVENT_DIGEST_CONFIG)
    for end in qp_ends:
        entities.extend(qp_entries(end))
    return entities


@lru_cache(maxsize=256)
def _reply_group(plane: int, port: int) -> MulticastGroup:
    """The same on every NIC that uses ``port`` for ``plane``: built once, shared (it is
    immutable)."""
    return MulticastGroup(c.NIC_REPLY_MCAST_BASE + plane, (
        Replica(c.NIC_HOST_PORT, _HOST_REPLICA), Replica(port, _PLANE_REPLICA)))


def qp_ev_entry(qp_index: int, path: EvPath) -> TableEntry:
    """The ``qp_ev`` entry that gives EV id ``path.ev_id`` of a QP its path."""
    return TableEntry(n.QP_EV, (("qp_index", Exact(qp_index)), ("ev_id", Exact(path.ev_id))),
                      n.SET_EV, (("t1_usid", path.t1_usid),))


def qp_entries(end: QpEndPlan) -> Iterator[TableEntry]:
    """``qp_context``, ``qp_ev`` (slots, then backups) and ``qp_plane`` of one QP end."""
    qp, index = end.qp, end.local.qp_index
    yield TableEntry(n.QP_CONTEXT, (("local_qpn", Exact(end.local.qpn)),), n.SET_QP, (
        ("qp_index", index), ("remote_qpn", end.remote.qpn), ("ev_slots", end.ev_slots),
        ("ev_mask", end.ev_mask), ("min_active", qp.min_active),
        ("backups_per_plane", qp.backup_ids_per_plane), ("sack_every", qp.sack_every),
        ("probe_threshold", qp.probe_threshold)))
    for path in end.evs:
        yield qp_ev_entry(index, path)
    for plane in end.planes:
        yield TableEntry(n.QP_PLANE, (("qp_index", Exact(index)), ("plane", Exact(plane.plane))),
                         n.SET_QP_PATH, (("dst_t0_usid", plane.dst_t0_usid),
                                         ("down_usid", plane.down_usid)))
