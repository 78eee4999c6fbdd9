"""One fabric switch's entries (``srv6_switch.p4``), generated on demand.

A carrier ``block:uT0src:uT1:uT0dst:uDown`` crosses three switches. Each matches its
own ``block:uSID`` in ``my_sid`` (uN), shifts the next uSID up and looks the new
``block:uSID`` up in ``usid_route``: the source T0 finds the T1, the T1 finds the
destination T0, which finds the downlink uSID and sends the packet out of the
NIC-facing port, the carrier used up.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

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
        to_nic = link.peer_role is Role.NIC
        usid = usids.down(plane, link.port) if to_nic else usids.node(link.peer)
        # No ECMP: of parallel links to one neighbour, the lowest port carries its uSID.
        if usid in seen:
            continue
        seen.add(usid)
        # A downlink's entry names its NIC's MAC: never seen again, so not kept.
        build = _route_entry if to_nic else _shared_route_entry
        yield build(usids.route_prefix(usid), link.port, link.peer_mac)


def _port_entries(fabric: Fabric, links: list[PortLink]) -> Iterator[TableEntry]:
    """Trimming on every cabled port, as the last hop toward NICs; ECN marking toward
    switches only (ECN signals fabric imbalance, not receiver incast)."""
    for link in links:
        yield _trim_entry(link.port, fabric.trim_threshold, int(link.peer_role is Role.NIC))
    for link in links:
        if link.peer_role is Role.NIC:
            yield _no_ecn_entry(link.port)
        else:
            yield _ecn_entry(link.port, fabric.ecn_low, fabric.ecn_high)


# Entries are immutable, and most recur from switch to switch: every T1 of a plane has
# the same route to each T0, every T0 the same route to each T1, and a port's trim and
# ECN entries depend on little more than its number. Building each once instead of once
# per switch makes the 6,144 switches of the production shape several times cheaper.
# The caches are bounded (one plane's recurring entries fit), so memory stays flat.
_RECURRING = 8192


def _route_entry(prefix: int, port: int, mac: int) -> TableEntry:
    return TableEntry(n.USID_ROUTE, (("dst_usid_prefix", Exact(prefix)),), n.SET_NEXT_HOP,
                      (("port", port), ("next_hop_mac", mac)))


_shared_route_entry = lru_cache(maxsize=_RECURRING)(_route_entry)


@lru_cache(maxsize=_RECURRING)
def _trim_entry(port: int, threshold: int, last_hop: int) -> TableEntry:
    return TableEntry(n.TRIM_CONFIG, (("egress_port", Exact(port)),), n.SET_TRIM_THRESHOLD,
                      (("threshold", threshold), ("last_hop", last_hop)))


@lru_cache(maxsize=_RECURRING)
def _ecn_entry(port: int, low: int, high: int) -> TableEntry:
    return TableEntry(n.ECN_CONFIG, (("egress_port", Exact(port)),), n.SET_ECN_THRESHOLDS,
                      (("low", low), ("high", high)))


@lru_cache(maxsize=_RECURRING)
def _no_ecn_entry(port: int) -> TableEntry:
    return TableEntry(n.ECN_CONFIG, (("egress_port", Exact(port)),), n.DISABLE_ECN_MARKING)
