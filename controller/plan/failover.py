"""Plane failover (docs/mrc-nic.md 3.1): what the controller writes and sends when a NIC
port, or its link, goes down or comes back.

MRC moves a failed port's share of the traffic to the other planes at once and tells
the peers with a port-status update [paper]. BMv2 has no port-status input, so the
controller tells the NIC through its ``nic_planes`` table (the NIC's rotation then
passes that plane's slots), and tells every peer of the NIC's QPs with a port-status
update [ours: a NACK with reason ``NACK_PORT_STATUS`` whose vendor byte is the
planes-down mask], sent through the NIC's transmit path (packet-out to
``PACKET_OUT_TRANSMIT``) once on a slot EV of every surviving plane.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from controller.topology import Fabric
from host.codec import Route, encode_nack
from protocol import constants as c

from . import p4names as n
from .entities import Exact, TableEntry
from .fabric_plan import FabricPlan

# Source MAC of the controller's frames: locally administered, 'C' [ours]; the NIC's
# transmit path rewrites both MACs, as for frames its host posts.
CONTROLLER_MAC = bytes.fromhex("02430000ff01")
_CONN_ID_MASK = 0xFFFF


def planes_mask(planes: Iterable[int]) -> int:
    """The mask of ``planes`` (bit p = plane p); ValueError for a plane out of range."""
    mask = 0
    for plane in planes:
        if not 0 <= plane < c.NIC_MAX_PLANES:
            raise ValueError(f"plane {plane}: a NIC has planes 0..{c.NIC_MAX_PLANES - 1}")
        mask |= 1 << plane
    return mask


def nic_planes_entry(fabric: Fabric, nic: str, down_mask: int) -> TableEntry:
    """The ``nic_planes`` entry of NIC ``nic`` with planes ``down_mask`` down (the
    controller deletes it when every plane is up again); KeyError for an unknown NIC."""
    found = fabric.nic(nic)
    if found is None:
        raise KeyError(nic)
    return TableEntry(n.NIC_PLANES, (("src_addr", Exact(int(ipaddress.IPv6Address(
        found.ipv6))),),), n.SET_PLANES_DOWN, (("down_mask", down_mask),))


def port_status_frames(plan: FabricPlan, nic: str, down_mask: int) -> list[bytes]:
    """The port-status updates NIC ``nic`` must send (packet-out to
    ``PACKET_OUT_TRANSMIT``): for each of its QP ends, one on the first slot EV of every
    plane not in ``down_mask``. Empty when every plane is down (nothing could carry
    them) or the NIC holds no QP."""
    here = plan.fabric.nic(nic)
    if here is None:
        raise KeyError(nic)
    frames = []
    for qp, side in plan.qp_sides.get(nic, ()):
        end = plan.qp_end(qp, side)
        peer = plan.fabric.nic(end.remote.nic)
        assert peer is not None
        sent_on: set[int] = set()
        for path in end.evs:
            if path.slot is None or path.plane in sent_on or down_mask >> path.plane & 1:
                continue
            sent_on.add(path.plane)
            route = Route(eth_dst=here.macs[path.plane].to_bytes(6, "big"),
                          eth_src=CONTROLLER_MAC,
                          src=ipaddress.IPv6Address(here.ipv6).packed,
                          dst=ipaddress.IPv6Address(peer.ipv6).packed,
                          sport=path.ev >> 16, flow_label=path.ev & 0xFFFF)
            frames.append(encode_nack(
                route, dest_qp=end.local.qpn, psn=0, reason=c.NACK_PORT_STATUS,
                nack_psn=0, echoed_ev=path.ev, vendor=down_mask,
                src_conn_id=end.local.qpn & _CONN_ID_MASK,
                dst_conn_id=end.remote.qpn & _CONN_ID_MASK))
    return frames
