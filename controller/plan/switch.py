"""One fabric switch's entries (``srv6_switch.p4``), generated on demand.

A carrier ``block:uT0src:uT1:uT0dst:uDown`` crosses three switches. Each matches its
own ``block:uSID`` in ``my_sid`` (uN), shifts the next uSID up and looks the new
``block:uSID`` up in ``usid_route``: the source T0 finds the T1, the T1 finds the
destination T0, which finds the downlink uSID and sends the packet out of the
NIC-facing port, the carrier used up.
"""

from __future__ import annotations

from collections.abc import Iterator

from controller.topology import Fabric, PortLink, Role

from . import p4names as n
from .entities import Exact, Lpm, TableEntry
from .usids import UsidPlan

# A carrier that ends at a switch is a planning error (no carrier the plan makes does),
# so the packet is dropped and counted (DROP_REASON_NO_LOCAL_DELIVERY), not punted.
_END_TO_CPU = 0
_NODE_PREFIX_LEN = 48


def switch_entries(fabric: Fabric, usids: UsidPlan, name: str) -> list[TableEntry]:
    """Every table entry of switch ``name``."""
    switch = fabric.switch(name)
    if switch is None:
        raise KeyError(name)
    links = list(fabric.switch_links(name))
    return [
        TableEntry(n.MY_SID, (("dst_addr", Lpm(usids.locator(usids.node(name)),
                                               _NODE_PREFIX_LEN)),),
                   n.USID_UN, (("end_to_cpu", _END_TO_CPU),)),
        *_usid_routes(usids, switch.plane, links),
        *_port_entries(fabric, links),
    ]


def _usid_routes(usids: UsidPlan, plane: int, links: list[PortLink]) -> Iterator[TableEntry]:
    """``block:uSID`` of each neighbour switch, and of each downlink, to its port."""
    seen: set[int] = set()
    for link in links:
        if link.peer_role is Role.NIC:
            usid = usids.down(plane, link.port)
        else:
            usid = usids.node(link.peer)
        # No ECMP: of parallel links to one neighbour, the lowest port carries its uSID.
        if usid in seen:
            continue
        seen.add(usid)
        yield TableEntry(n.USID_ROUTE, (("dst_usid_prefix", Exact(usids.route_prefix(usid))),),
                         n.SET_NEXT_HOP, (("port", link.port), ("next_hop_mac", link.peer_mac)))


def _port_entries(fabric: Fabric, links: list[PortLink]) -> Iterator[TableEntry]:
    """Trimming on every cabled port, as the last hop toward NICs; ECN marking toward
    switches only (ECN signals fabric imbalance, not receiver incast)."""
    # The same parameters for many ports: built once.
    trim_fabric = (("threshold", fabric.trim_threshold), ("last_hop", 0))
    trim_last_hop = (("threshold", fabric.trim_threshold), ("last_hop", 1))
    ecn = (("low", fabric.ecn_low), ("high", fabric.ecn_high))
    for link in links:
        to_nic = link.peer_role is Role.NIC
        yield TableEntry(n.TRIM_CONFIG, (("egress_port", Exact(link.port)),),
                         n.SET_TRIM_THRESHOLD, trim_last_hop if to_nic else trim_fabric)
    for link in links:
        match = (("egress_port", Exact(link.port)),)
        if link.peer_role is Role.NIC:
            yield TableEntry(n.ECN_CONFIG, match, n.DISABLE_ECN_MARKING)
        else:
            yield TableEntry(n.ECN_CONFIG, match, n.SET_ECN_THRESHOLDS, ecn)
