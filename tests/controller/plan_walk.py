"""A model of the data path over *planned* entries, for the controller tests.

A NIC builds a carrier from its own tables (plane_port, qp_ev, qp_plane) as
docs/mrc-nic.md says; each switch does what srv6_switch.p4 does with the planned
my_sid and usid_route entries (uN: match block:uSID /48, shift the 80 bits after it up
by 16, exact usid_route lookup on the new top 48 bits); cables come from the fabric.
Nothing here reads the plan's own path objects (EvPath...), so a test that walks a
carrier checks the tables, not the planner against itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.plan import Exact, FabricPlan, TableEntry
from controller.plan import p4names as n
from controller.topology import PortLink, Role
from protocol import constants as c

_ARG_BITS = 128 - c.USID_BLOCK_BITS - c.USID_BITS  # 80: what follows block:uSID
_ARG_MASK = (1 << _ARG_BITS) - 1


def entries_by_table(plan: FabricPlan, device: str) -> dict[str, dict[tuple, TableEntry]]:
    """A device's table entries: table -> match values -> entry (duplicate keys fail)."""
    tables: dict[str, dict[tuple, TableEntry]] = {}
    for entity in plan.device_entities(device):
        if isinstance(entity, TableEntry):
            values = tuple(m.value if isinstance(m, Exact) else (m.value, m.prefix_len)
                           for _, m in entity.match)
            table = tables.setdefault(entity.table, {})
            assert values not in table, f"{device}: two {entity.table} entries for {values}"
            table[values] = entity
    return tables


def params(entry: TableEntry) -> dict[str, int]:
    return dict(entry.params)


@dataclass
class Walker:
    plan: FabricPlan
    _tables: dict[str, dict[str, dict[tuple, TableEntry]]] = field(default_factory=dict)

    def tables(self, device: str) -> dict[str, dict[tuple, TableEntry]]:
        if device not in self._tables:
            self._tables[device] = entries_by_table(self.plan, device)
        return self._tables[device]

    def carrier(self, nic: str, qp_index: int, ev_id: int) -> tuple[int, int, int]:
        """(plane, port, carrier) of a packet NIC ``nic`` sends on EV id ``ev_id`` of QP
        ``qp_index``, from its tables alone."""
        tables = self.tables(nic)
        t1_usid = params(tables[n.QP_EV][qp_index, ev_id])["t1_usid"]
        plane = c.ev_plane(c.ev_value(t1_usid, ev_id))
        return plane, *self.reply_carrier(nic, qp_index, plane, t1_usid)

    def reply_carrier(self, nic: str, qp_index: int, plane: int,
                      t1_usid: int) -> tuple[int, int]:
        """(port, carrier) toward QP ``qp_index``'s peer through T1 ``t1_usid``."""
        tables = self.tables(nic)
        port = params(tables[n.PLANE_PORT][(plane,)])
        path = params(tables[n.QP_PLANE][qp_index, plane])
        value = port["usid_block"]
        for usid in (port["src_t0_usid"], t1_usid, path["dst_t0_usid"], path["down_usid"]):
            value = value << c.USID_BITS | usid
        value <<= c.USID_BITS * (c.USID_MAX_PER_CARRIER - 4)
        return port["port"], value

    def forward(self, nic: str, port: int, carrier: int) -> Delivery:
        """Send ``carrier`` out of ``nic``'s ``port`` and follow it to the NIC it reaches."""
        nic_node = self.plan.fabric.nic(nic)
        plane = nic_node.ports.index(port)
        link = self.plan.fabric.nic_link(nic, plane)
        assert link.port == port
        device, address, hops = link.peer, carrier, []
        for _ in range(8):
            address = self._un(device, address)
            route = self.tables(device)[n.USID_ROUTE].get((address >> _ARG_BITS,))
            assert route is not None, f"{device}: no usid_route for {address:#034x}"
            out = params(route)
            cable = self._cable(device, out["port"])
            assert out["next_hop_mac"] == cable.peer_mac, f"{device}: wrong next-hop MAC"
            hops.append((device, out["port"]))
            if cable.peer_role is Role.NIC:
                return Delivery(nic=cable.peer, port=cable.peer_port, address=address,
                                hops=tuple(hops))
            device = cable.peer
        raise AssertionError(f"carrier {carrier:#034x} loops: {hops}")

    def _un(self, device: str, address: int) -> int:
        """my_sid must match (LPM /48), and the carrier must go on: shift it."""
        hits = [prefix_len for ((value, prefix_len),) in self.tables(device)[n.MY_SID]
                if address >> (128 - prefix_len) == value >> (128 - prefix_len)]
        assert hits, f"{device}: my_sid misses {address:#034x}"
        assert address & _ARG_MASK, f"{device}: the carrier ends at a switch"
        block = address >> (128 - c.USID_BLOCK_BITS) << (128 - c.USID_BLOCK_BITS)
        return block | (address & _ARG_MASK) << c.USID_BITS

    def _cable(self, device: str, port: int) -> PortLink:
        links = [link for link in self.plan.fabric.switch_links(device) if link.port == port]
        assert len(links) == 1, f"{device}: port {port} is not cabled"
        return links[0]


@dataclass(frozen=True)
class Delivery:
    nic: str
    port: int
    address: int  # the outer DA as the NIC receives it
    hops: tuple[tuple[str, int], ...]  # (switch, egress port)

    @property
    def carrier_used_up(self) -> bool:
        return self.address & _ARG_MASK == 0
