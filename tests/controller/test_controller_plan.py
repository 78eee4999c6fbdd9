"""The plan of the shipped example fabrics: uSIDs, reachability over the planned tables,
EV sets, port policies, and the size report."""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
from plan_walk import Walker, entries_by_table, params

from controller.plan import FabricPlan, make_plan, summarize
from controller.plan import p4names as n
from controller.plan.entities import MulticastGroup, entity_kind
from controller.plan.usids import DOWN_USID_BASE, PLANE_USID_SPAN
from controller.topology import Role, load_topology, parse_topology
from protocol import constants as c

EXAMPLES = Path(__file__).resolve().parents[2] / "controller" / "examples"


@pytest.fixture(scope="module")
def production() -> FabricPlan:
    return make_plan(load_topology(EXAMPLES / "production.yaml"))


def test_usids_are_unique_per_plane_non_zero_and_name_their_plane(small: FabricPlan) -> None:
    seen: dict[int, set[int]] = {}
    for switch in small.fabric.switches():
        usid = small.usids.node(switch.name)
        assert usid != 0
        assert usid >> c.USID_PLANE_SHIFT == switch.plane
        assert 0 < usid % PLANE_USID_SPAN < DOWN_USID_BASE  # never a downlink's value
        assert usid not in seen.setdefault(switch.plane, set())
        seen[switch.plane].add(usid)
    assert small.usids.node("p0-t1-0") == 0x0001
    assert small.usids.node("p1-t0-1") == 0x2802


def test_every_switch_has_its_usid_in_my_sid(small: FabricPlan) -> None:
    for switch in small.fabric.switches():
        my_sid = entries_by_table(small, switch.name)[n.MY_SID]
        assert list(my_sid) == [((small.usids.locator(small.usids.node(switch.name)), 48),)]
        assert params(next(iter(my_sid.values()))) == {"end_to_cpu": 0}


def _downlink_usid(plan: FabricPlan, walker: Walker, nic: str, plane: int) -> int:
    """The downlink uSID toward ``nic`` on ``plane``, read from its T0's usid_route."""
    link = plan.fabric.nic_link(nic, plane)
    routes = [key for (key,), entry in walker.tables(link.peer)[n.USID_ROUTE].items()
              if params(entry)["port"] == link.peer_port]
    assert len(routes) == 1
    return routes[0] & 0xFFFF


def test_every_nic_reaches_every_nic_on_every_plane_through_every_t1(small: FabricPlan) -> None:
    walker = Walker(small)
    fabric = small.fabric
    t1s = {p: [small.usids.node(s.name) for s in fabric.switches()
               if s.role is Role.T1 and s.plane == p] for p in range(fabric.planes)}
    nics = [nic.name for nic in fabric.nics()]
    for src, dst in permutations(nics, 2):
        for plane in range(fabric.planes):
            out = params(walker.tables(src)[n.PLANE_PORT][(plane,)])
            into = params(walker.tables(dst)[n.PLANE_PORT][(plane,)])
            down = _downlink_usid(small, walker, dst, plane)
            for t1 in t1s[plane]:
                carrier = out["usid_block"]
                for usid in (out["src_t0_usid"], t1, into["src_t0_usid"], down):
                    carrier = carrier << 16 | usid
                carrier <<= 32
                delivery = walker.forward(src, out["port"], carrier)
                assert (delivery.nic, delivery.port) == (dst, into["port"])
                assert delivery.carrier_used_up
                assert len(delivery.hops) == 3


def test_every_qp_ev_reaches_the_peer_and_its_reply_comes_back(small: FabricPlan) -> None:
    walker = Walker(small)
    for qp in small.fabric.qps:
        for side in (0, 1):
            local, remote = qp.ends[side], qp.ends[1 - side]
            tables = walker.tables(local.nic)
            for (qp_index, ev_id) in tables[n.QP_EV]:
                if qp_index != local.qp_index:
                    continue
                plane, port, carrier = walker.carrier(local.nic, qp_index, ev_id)
                there = walker.forward(local.nic, port, carrier)
                peer = walker.tables(remote.nic)
                assert (there.nic, there.port) == (remote.nic,
                                                   params(peer[n.PLANE_PORT][(plane,)])["port"])
                assert there.carrier_used_up
                # The receiver knows the QP by the QPN the sender writes (remote_qpn)...
                context = params(tables[n.QP_CONTEXT][(local.qpn,)])
                assert context["remote_qpn"] == remote.qpn
                assert (remote.qpn,) in peer[n.QP_CONTEXT]
                assert peer[n.NIC_ADDRESS]  # and accepts its own address
                # ...and replies on the same plane through the same T1 (docs/mrc-nic.md 4).
                t1_usid = params(tables[n.QP_EV][qp_index, ev_id])["t1_usid"]
                back_port, back = walker.reply_carrier(remote.nic, remote.qp_index, plane,
                                                       t1_usid)
                home = walker.forward(remote.nic, back_port, back)
                assert (home.nic, home.port) == (local.nic, port)
                assert there.hops[1][0] == home.hops[1][0]  # the same T1


def test_evs_are_split_equally_over_planes_and_backups_stay_in_their_plane(
        small: FabricPlan) -> None:
    planes = small.fabric.planes
    for qp in small.fabric.qps:
        for end in qp.ends:
            tables = entries_by_table(small, end.nic)
            context = params(tables[n.QP_CONTEXT][(end.qpn,)])
            evs = {ev_id: c.ev_value(params(e)["t1_usid"], ev_id)
                   for (index, ev_id), e in tables[n.QP_EV].items() if index == end.qp_index}
            slots = context["ev_slots"]
            assert slots == qp.evs_per_plane * planes
            mask = context["ev_mask"]
            assert mask + 1 >= slots and mask & (mask + 1) == 0  # a power of two, - 1
            per_plane = Counter(c.ev_plane(evs[s]) for s in range(slots))
            assert per_plane == {p: qp.evs_per_plane for p in range(planes)}
            # qp_context holds the size of each plane's backup-id range; the plan
            # configures the first backups_per_plane ids of each range (the rest are
            # for top-ups).
            id_range = context["backups_per_plane"]
            assert id_range == qp.backup_ids_per_plane >= qp.backups_per_plane
            assert c.NIC_EV_BACKUP_BASE + id_range * planes <= c.NIC_EV_IDS
            backups = {i for i in evs if i >= c.NIC_EV_BACKUP_BASE}
            assert len(backups) == qp.backups_per_plane * planes
            for p in range(planes):
                for i in range(qp.backups_per_plane):
                    ev = evs[c.NIC_EV_BACKUP_BASE + p * id_range + i]
                    assert c.ev_plane(ev) == p
                    assert c.ev_id_of(ev) == c.NIC_EV_BACKUP_BASE + p * id_range + i
            assert set(evs) == set(range(slots)) | backups


def test_nic_facing_ports_trim_as_last_hop_and_never_mark_ecn(small: FabricPlan) -> None:
    fabric = small.fabric
    for switch in fabric.switches():
        tables = entries_by_table(small, switch.name)
        for link in fabric.switch_links(switch.name):
            trim = tables[n.TRIM_CONFIG][(link.port,)]
            ecn = tables[n.ECN_CONFIG][(link.port,)]
            to_nic = link.peer_role is Role.NIC
            assert params(trim) == {"threshold": fabric.trim_threshold, "last_hop": int(to_nic)}
            if to_nic:
                assert ecn.action == n.DISABLE_ECN_MARKING
            else:
                assert ecn.action == n.SET_ECN_THRESHOLDS
                assert params(ecn) == {"low": fabric.ecn_low, "high": fabric.ecn_high}


def test_nic_reply_groups_hold_the_host_and_the_plane_port(small: FabricPlan) -> None:
    nic = small.fabric.nic("nic3")
    groups = [e for e in small.device_entities("nic3") if isinstance(e, MulticastGroup)]
    assert [(g.group_id, [(r.port, r.instance) for r in g.replicas]) for g in groups] == [
        (c.NIC_REPLY_MCAST_BASE + p, [(c.NIC_HOST_PORT, 0), (port, 1)])
        for p, port in enumerate(nic.ports)]
    assert sum(entity_kind(e) == "digest" for e in small.device_entities("nic3")) == 1


def test_summary_counts_every_entity(small: FabricPlan) -> None:
    counted = Counter(entity_kind(e) for d in small.device_names()
                      for e in small.device_entities(d))
    summary = summarize(small)
    assert summary.total == sum(counted.values()) == 170
    by_table: Counter[str] = Counter()
    for role in summary.roles:
        for table in role.tables:
            by_table[table.kind] += table.total
    assert by_table == counted


def test_production_shape_is_sized_without_building_every_device(
        production: FabricPlan) -> None:
    summary = summarize(production)
    roles = {str(r.role): r for r in summary.roles}
    assert (roles["t1"].devices, roles["t0"].devices, roles["nic"].devices) == (
        8 * 256, 8 * 512, 131_072)
    # A T1: my_sid, then a route, a trim and an ECN entry per T0 (512 ports).
    assert roles["t1"].min_per_device == roles["t1"].max_per_device == 1 + 3 * 512
    # A T0: 256 NIC downlinks and 256 uplinks.
    assert roles["t0"].min_per_device == roles["t0"].max_per_device == 1 + 3 * 512
    # A NIC without QPs: address, 8 plane ports, 8 reply groups, the digest.
    assert roles["nic"].min_per_device == 18
    assert len(production.device_entities("p7-t0-511")) == 1537
    assert len(production.device_entities("nic131071")) == 18 + 1 + (32 + 4) * 8 + 8
    assert summary.total == 8 * (256 + 512) * 1537 + 131_072 * 18 + sum(
        1 + (qp.evs_per_plane + qp.backups_per_plane + 1) * 8
        for qp in production.fabric.qps for _ in qp.ends)


def test_production_paths_cross_three_switches(production: FabricPlan) -> None:
    walker = Walker(production)
    qp = production.qp("ring-1")
    end = qp.ends[0]
    for ev_id in (0, 7, 255, c.NIC_EV_BACKUP_BASE + 3):
        plane, port, carrier = walker.carrier(end.nic, end.qp_index, ev_id)
        delivery = walker.forward(end.nic, port, carrier)
        assert (delivery.nic, delivery.port) == (qp.ends[1].nic, plane + 1)
        assert [hop[0].split("-")[1] for hop in delivery.hops] == ["t0", "t1", "t0"]


def _small_with(old: str, new: str) -> FabricPlan:
    text = (EXAMPLES / "small.yaml").read_text()
    assert old in text
    return make_plan(parse_topology(text.replace(old, new, 1), "small-variant.yaml"))


def test_parallel_links_route_on_the_lowest_port_and_are_all_configured() -> None:
    plan = _small_with("  - [p0-t0-0:4, p0-t1-1:1]\n",
                       "  - [p0-t0-0:4, p0-t1-1:1]\n  - [p0-t0-0:9, p0-t1-1:7]\n")
    tables = entries_by_table(plan, "p0-t0-0")
    t1_route = tables[n.USID_ROUTE][(plan.usids.route_prefix(plan.usids.node("p0-t1-1")),)]
    assert params(t1_route)["port"] == 4
    assert (9,) in tables[n.TRIM_CONFIG] and (9,) in tables[n.ECN_CONFIG]
    assert (7,) in entries_by_table(plan, "p0-t1-1")[n.TRIM_CONFIG]
    # The T1 side: its route to p0-t0-0 is the lower of ports 1 and 7.
    t0_route = entries_by_table(plan, "p0-t1-1")[n.USID_ROUTE][
        (plan.usids.route_prefix(plan.usids.node("p0-t0-0")),)]
    assert params(t0_route)["port"] == 1


def test_qp_paths_use_only_t1s_cabled_to_both_t0s() -> None:
    # p0-t0-1 loses its link to p0-t1-0: on plane 0 only p0-t1-1 joins nic0 and nic2.
    plan = _small_with("  - [p0-t0-1:3, p0-t1-0:2]\n", "")
    walker = Walker(plan)
    qp = plan.qp("qp-a")
    for side, end in enumerate(qp.ends):
        evs = plan.qp_end(qp, side).evs
        assert {ev.t1 for ev in evs if ev.plane == 0} == {"p0-t1-1"}
        assert {ev.t1 for ev in evs if ev.plane == 1} == {"p1-t1-0", "p1-t1-1"}
        for ev in evs:
            _, port, carrier = walker.carrier(end.nic, end.qp_index, ev.ev_id)
            assert walker.forward(end.nic, port, carrier).nic == qp.ends[1 - side].nic
