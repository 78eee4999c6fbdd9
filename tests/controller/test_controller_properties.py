"""Property-based tests of the plan over random small Clos shapes and QPs, each shape
written both ways (generated ``clos`` and listed device by device)."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import yaml
from fabric_shapes import Shape, clos_document, listed_document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plan_walk import Walker, params

from controller.plan import FabricPlan, make_plan, summarize
from controller.plan import p4names as n
from controller.plan.entities import entity_kind
from controller.plan.usids import DOWN_USID_BASE, PLANE_USID_SPAN
from controller.topology import Role, parse_topology
from protocol import constants as c

shapes = st.builds(Shape, planes=st.integers(1, 4), t1=st.integers(1, 4),
                   t0=st.integers(1, 3), nics_per_t0=st.integers(1, 3))


@st.composite
def fabrics(draw: st.DrawFn) -> tuple[Shape, list[dict]]:
    """A shape with NICs enough for QPs, and up to four QPs between distinct NICs."""
    shape = draw(shapes.filter(lambda s: s.nics >= 2))
    qps = []
    for q in range(draw(st.integers(0, 4))):
        a, b = draw(st.lists(st.integers(0, shape.nics - 1), min_size=2, max_size=2,
                             unique=True))
        qps.append({
            "name": f"q{q}", "endpoints": [f"nic{a}", f"nic{b}"],
            "evs_per_plane": draw(st.integers(1, 4)),
            "backups_per_plane": draw(st.integers(0, 3)),
        })
    return shape, qps


def plan_of(document: dict) -> FabricPlan:
    return make_plan(parse_topology(yaml.safe_dump(document), "generated.yaml"))


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(fabrics())
def test_usids_unique_per_plane_and_carry_their_plane(fabric: tuple[Shape, list[dict]]) -> None:
    plan = plan_of(clos_document(*fabric))
    by_plane: dict[int, list[int]] = {}
    for switch in plan.fabric.switches():
        usid = plan.usids.node(switch.name)
        assert usid >> c.USID_PLANE_SHIFT == switch.plane
        assert 0 < usid % PLANE_USID_SPAN < DOWN_USID_BASE
        by_plane.setdefault(switch.plane, []).append(usid)
    for usids in by_plane.values():
        assert len(usids) == len(set(usids))


@SETTINGS
@given(fabrics())
def test_every_nic_reaches_every_nic_on_every_plane(fabric: tuple[Shape, list[dict]]) -> None:
    plan = plan_of(clos_document(*fabric))
    walker = Walker(plan)
    nics = [nic.name for nic in plan.fabric.nics()]
    for src, dst in permutations(nics, 2):
        for plane in range(plan.fabric.planes):
            out = params(walker.tables(src)[n.PLANE_PORT][(plane,)])
            into = params(walker.tables(dst)[n.PLANE_PORT][(plane,)])
            t0 = plan.fabric.nic_link(dst, plane)
            down = next(key & 0xFFFF for (key,), e in walker.tables(t0.peer)[n.USID_ROUTE].items()
                        if params(e)["port"] == t0.peer_port)
            for t1 in plan.fabric.common_t1s(plane, plan.fabric.nic_link(src, plane).peer,
                                             t0.peer):
                carrier = out["usid_block"]
                for usid in (out["src_t0_usid"], plan.usids.node(t1.name),
                             into["src_t0_usid"], down):
                    carrier = carrier << 16 | usid
                delivery = walker.forward(src, out["port"], carrier << 32)
                assert (delivery.nic, delivery.port) == (dst, into["port"])
                assert delivery.carrier_used_up and len(delivery.hops) == 3
                assert delivery.hops[1][0] == t1.name


@SETTINGS
@given(fabrics())
def test_qp_evs_split_equally_backups_same_plane_and_all_reach_the_peer(
        fabric: tuple[Shape, list[dict]]) -> None:
    plan = plan_of(clos_document(*fabric))
    walker = Walker(plan)
    planes = plan.fabric.planes
    for qp in plan.fabric.qps:
        for side, local in enumerate(qp.ends):
            remote = qp.ends[1 - side]
            tables = walker.tables(local.nic)
            ids = sorted(ev_id for (index, ev_id) in tables[n.QP_EV] if index == local.qp_index)
            slots = params(tables[n.QP_CONTEXT][(local.qpn,)])["ev_slots"]
            assert ids[:slots] == list(range(slots))
            per_plane: Counter[int] = Counter()
            for ev_id in ids:
                plane, port, carrier = walker.carrier(local.nic, local.qp_index, ev_id)
                if ev_id < slots:
                    per_plane[plane] += 1
                else:
                    offset = ev_id - c.NIC_EV_BACKUP_BASE
                    assert 0 <= offset < planes * qp.backup_ids_per_plane
                    assert plane == offset // qp.backup_ids_per_plane
                    assert offset % qp.backup_ids_per_plane < qp.backups_per_plane
                delivery = walker.forward(local.nic, port, carrier)
                assert delivery.nic == remote.nic and delivery.carrier_used_up
            assert per_plane == {p: qp.evs_per_plane for p in range(planes)}
            assert len(ids) == slots + planes * qp.backups_per_plane


@SETTINGS
@given(fabrics())
def test_listed_twin_plans_the_same_entries_and_sizes(fabric: tuple[Shape, list[dict]]) -> None:
    generated = plan_of(clos_document(*fabric))
    listed = plan_of(listed_document(*fabric))
    assert list(generated.device_names()) == list(listed.device_names())
    streamed: Counter[tuple[Role, str]] = Counter()
    for device in generated.device_names():
        entities = generated.device_entities(device)
        assert entities == listed.device_entities(device)
        # One entity per key: P4Runtime would refuse a second insert of the same key.
        assert len({e.key for e in entities}) == len(entities)
        role = generated.role_of(device)
        streamed.update((role, entity_kind(e)) for e in entities)
    # The summary counts one device per group; a walk over every device agrees.
    for plan in (generated, listed):
        summarized = Counter({(r.role, t.kind): t.total
                              for r in summarize(plan).roles for t in r.tables if t.total})
        assert summarized == streamed


@st.composite
def fixed_usids(draw: st.DrawFn) -> tuple[Shape, list[dict], dict[str, int]]:
    """A fabric in which some switches fix their uSID (any node value of their plane)."""
    shape, qps = draw(fabrics())
    fixed: dict[str, int] = {}
    for p in range(shape.planes):
        names = [f"p{p}-t1-{i}" for i in range(shape.t1)] + [
            f"p{p}-t0-{j}" for j in range(shape.t0)]
        chosen = draw(st.lists(st.sampled_from(names), unique=True))
        values = draw(st.lists(st.integers(1, DOWN_USID_BASE - 1), min_size=len(chosen),
                               max_size=len(chosen), unique=True))
        for name, value in zip(chosen, values, strict=True):
            fixed[name] = p << c.USID_PLANE_SHIFT | value
    return shape, qps, fixed


@SETTINGS
@given(fixed_usids())
def test_fixed_usids_are_kept_and_the_others_step_around_them(
        fabric: tuple[Shape, list[dict], dict[str, int]]) -> None:
    shape, qps, fixed = fabric
    plan = plan_of(listed_document(shape, qps, fixed))
    by_plane: dict[int, set[int]] = {}
    for switch in plan.fabric.switches():
        usid = plan.usids.node(switch.name)
        assert usid == fixed.get(switch.name, usid)
        assert usid >> c.USID_PLANE_SHIFT == switch.plane
        assert usid not in by_plane.setdefault(switch.plane, set())
        by_plane[switch.plane].add(usid)
    walker = Walker(plan)
    for qp in plan.fabric.qps:
        local, remote = qp.ends
        for (index, ev_id) in walker.tables(local.nic)[n.QP_EV]:
            if index == local.qp_index:
                _, port, carrier = walker.carrier(local.nic, index, ev_id)
                assert walker.forward(local.nic, port, carrier).nic == remote.nic


@st.composite
def renumbered(draw: st.DrawFn) -> tuple[Shape, list[dict], dict[str, list[int]]]:
    """A fabric whose every device numbers its ports at random (no CPU/drop port)."""
    shape, qps = draw(fabrics())
    usable = st.integers(1, 300).filter(lambda port: port != c.CPU_PORT)

    def ports(count: int) -> list[int]:
        return draw(st.lists(usable, min_size=count, max_size=count, unique=True))

    numbers: dict[str, list[int]] = {}
    for p in range(shape.planes):
        for i in range(shape.t1):
            numbers[f"p{p}-t1-{i}"] = ports(shape.t0)
        for j in range(shape.t0):
            numbers[f"p{p}-t0-{j}"] = ports(shape.nics_per_t0 + shape.t1)
    for nic in range(shape.nics):
        numbers[f"nic{nic}"] = ports(shape.planes)
    return shape, qps, numbers


@SETTINGS
@given(renumbered())
def test_any_port_numbering_delivers_every_qp_ev(
        fabric: tuple[Shape, list[dict], dict[str, list[int]]]) -> None:
    shape, qps, numbers = fabric
    plan = plan_of(listed_document(shape, qps, port_numbers=numbers))
    walker = Walker(plan)
    for qp in plan.fabric.qps:
        for side, local in enumerate(qp.ends):
            remote = plan.fabric.nic(qp.ends[1 - side].nic)
            for (index, ev_id) in walker.tables(local.nic)[n.QP_EV]:
                if index != local.qp_index:
                    continue
                plane, port, carrier = walker.carrier(local.nic, index, ev_id)
                assert port == numbers[local.nic][plane]
                delivery = walker.forward(local.nic, port, carrier)
                assert (delivery.nic, delivery.port) == (remote.name, remote.ports[plane])
