"""uSID allocation [ours]: every switch's node uSID and the T0s' downlink uSIDs.

A uSID is 16 bits; its top bits (``uSID[15:13]``, ``USID_PLANE_SHIFT``) are the plane,
so a carrier, and the EV that names its T1 (``EV[31:29]``), belong to one plane. The
13 bits below are laid out as

    0x0001-0x0800  T1 node uSIDs (allocated from 0x0001)
    0x0801-0x0fff  T0 node uSIDs (allocated from 0x0801)
    0x1000 | port  downlink of a T0 toward the NIC on ``port``

Node uSIDs are unique per plane and never zero; a file may fix any switch's uSID
anywhere in the node range of its plane, and allocation steps around it. Downlink
uSIDs are local to the T0 that ends the carrier (the last uSID is looked up only
there), so every T0 of a plane uses the same value for the same port, and a plane needs
one per port number, not one per NIC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.topology import Fabric, Problem, Role, TopologyError
from protocol import constants as c

PLANE_USID_SPAN = 1 << c.USID_PLANE_SHIFT
T1_USID_FIRST = 0x0001
T0_USID_FIRST = 0x0801
DOWN_USID_BASE = 0x1000
# Where each role's allocation starts and must stop.
_REGIONS = {Role.T1: (T1_USID_FIRST, T0_USID_FIRST), Role.T0: (T0_USID_FIRST, DOWN_USID_BASE)}
# Bits of the carrier after the block and one uSID: the /48 of a node is block:uSID.
_CARRIER_TAIL_BITS = 128 - c.USID_BLOCK_BITS - c.USID_BITS


def usid_plane(usid: int) -> int:
    return usid >> c.USID_PLANE_SHIFT


@dataclass(frozen=True, slots=True)
class UsidPlan:
    """Every switch's node uSID, and the downlink uSIDs, of one fabric."""

    block: int
    node_usids: Mapping[str, int]

    def node(self, switch: str) -> int:
        return self.node_usids[switch]

    @staticmethod
    def down(plane: int, port: int) -> int:
        """The uSID that names a T0's downlink on ``port`` (plane ``plane``)."""
        return plane << c.USID_PLANE_SHIFT | DOWN_USID_BASE | port

    def route_prefix(self, usid: int) -> int:
        """``block:uSID``, the 48-bit key of ``usid_route``."""
        return self.block << c.USID_BITS | usid

    def locator(self, usid: int) -> int:
        """``block:uSID::``, the 128-bit address whose /48 is the node's ``my_sid``."""
        return self.route_prefix(usid) << _CARRIER_TAIL_BITS


def allocate_usids(fabric: Fabric) -> UsidPlan:
    """Node uSIDs for every switch; ``TopologyError`` for a fixed uSID that does not fit."""
    problems: list[Problem] = []
    taken: dict[tuple[int, int], str] = {}
    usids: dict[str, int] = {}
    auto = []
    for switch in fabric.switches():
        if switch.usid is None:
            auto.append(switch)
            continue
        where = f"{switch.where}.usid"
        local = switch.usid & (PLANE_USID_SPAN - 1)
        if usid_plane(switch.usid) != switch.plane:
            problems.append(Problem(where, (
                f"{switch.usid:#06x} is a uSID of plane {usid_plane(switch.usid)}, but "
                f"{switch.name} is on plane {switch.plane} (uSID[15:13] is the plane)")))
        elif not 0 < local < DOWN_USID_BASE:
            problems.append(Problem(where, (
                f"{switch.usid:#06x}: node uSIDs of plane {switch.plane} are "
                f"{switch.plane << c.USID_PLANE_SHIFT | 1:#06x}-"
                f"{switch.plane << c.USID_PLANE_SHIFT | DOWN_USID_BASE - 1:#06x} "
                "(the rest names T0 downlinks)")))
        elif (switch.plane, switch.usid) in taken:
            problems.append(Problem(where, (
                f"{switch.usid:#06x} is already the uSID of {taken[switch.plane, switch.usid]}")))
        else:
            taken[switch.plane, switch.usid] = switch.name
            usids[switch.name] = switch.usid
    cursors: dict[tuple[int, Role], int] = {}
    exhausted: set[tuple[int, Role]] = set()
    for switch in auto:
        first, end = _REGIONS[switch.role]
        base = switch.plane << c.USID_PLANE_SHIFT
        usid = cursors.get((switch.plane, switch.role), base | first)
        while (switch.plane, usid) in taken:
            usid += 1
        if usid >= base | end:
            if (switch.plane, switch.role) not in exhausted:
                exhausted.add((switch.plane, switch.role))
                problems.append(Problem(switch.where, (
                    f"no {switch.role} uSID left on plane {switch.plane} "
                    f"({end - first} per plane)")))
            continue
        taken[switch.plane, usid] = switch.name
        usids[switch.name] = usid
        cursors[switch.plane, switch.role] = usid + 1
    if problems:
        raise TopologyError(fabric.source, problems)
    return UsidPlan(block=fabric.usid_block, node_usids=usids)
