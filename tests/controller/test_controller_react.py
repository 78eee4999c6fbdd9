"""The controller's reactions without devices: the probe schedule, the top-up book and
what a NIC's tables say about it, the diff, and the reactor's answer to each EV event
(its device links replaced by recorders)."""

from __future__ import annotations

from pathlib import Path

import pytest
from p4.v1 import p4runtime_pb2

from controller.device import DeviceLink
from controller.device.encoding import desired_state
from controller.device.reconcile import diff
from controller.events import EventLog
from controller.plan import FabricPlan, backup_ev_id, make_plan
from controller.plan import p4names as n
from controller.plan.entities import entity_kind
from controller.react import ProbeSchedule, Reactor
from controller.react.probes import ProbeKey, ProbeTask
from controller.topology import TopologyError, parse_topology
from controller.topups import TopUpBook, found_top_ups
from host.codec import ProbePacket, decode_frame
from p4rt_client import P4InfoHelper
from protocol import constants as c

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def task(ev: int = 0x00020001) -> ProbeTask:
    return ProbeTask(ProbeKey("nic0", 0, ev), local_qpn=0x100, remote_qpn=0x200,
                     src=bytes(15) + b"\x01", dst=bytes(15) + b"\x03", nic_mac=bytes(6))


def test_probes_back_off_and_give_up_after_the_bound() -> None:
    clock = Clock()
    schedule = ProbeSchedule(first_interval_s=0.1, max_interval_s=0.4, max_probes=4,
                             clock=clock)
    schedule.start(task())
    gaps = []
    for _ in range(4):
        clock.now = schedule.next_due() or clock.now
        send, given_up = schedule.take_due()
        assert len(send) == 1 and given_up == []
        gaps.append(round((schedule.next_due() or 0) - clock.now, 3))
    assert gaps == [0.1, 0.2, 0.4, 0.4]
    clock.now = schedule.next_due() or clock.now
    send, given_up = schedule.take_due()
    assert send == [] and [t.sent for t in given_up] == [4]
    assert schedule.next_due() is None


def test_a_restored_ev_is_probed_no_more_and_a_retired_one_keeps_its_schedule() -> None:
    clock = Clock()
    schedule = ProbeSchedule(clock=clock)
    first = task()
    schedule.start(first)
    schedule.take_due()
    schedule.start(task())  # retired again before it was restored: same schedule
    assert schedule.tasks[first.key] is first and first.sent == 1
    assert schedule.restored(first.key) is first
    assert schedule.next_due() is None and schedule.restored(first.key) is None


def test_a_probe_frame_is_what_the_host_would_post() -> None:
    frame = decode_frame(task(0x2002_0101).frame())
    assert isinstance(frame, ProbePacket)
    assert (frame.sport, frame.flow_label & 0xFFFF) == (0x2002, 0x0101)
    assert frame.dest_qp == 0x100


def test_top_ups_take_the_next_backup_ids_of_the_plane_with_their_planned_paths(
        small: FabricPlan) -> None:
    qp = small.qp("qp-b")
    assert qp is not None and qp.backups_per_plane == 2
    assert qp.backup_ids_per_plane == (c.NIC_EV_IDS - c.NIC_EV_BACKUP_BASE) // 2
    nic, index = qp.ends[0].nic, qp.ends[0].qp_index
    book = TopUpBook()
    first = book.take_next(small, nic, index, 1)
    second = book.take_next(small, nic, index, 1)
    assert first is not None and second is not None
    assert (first.ev_id, second.ev_id) == (backup_ev_id(qp, 1, 2), backup_ev_id(qp, 1, 3))
    assert first.plane == second.plane == 1 and c.ev_plane(first.ev) == 1
    assert book.of(nic) == {index: {1: 2}}
    # The NIC's desired state now holds exactly these two more qp_ev entries.
    planned = {e for e in small.device_entities(nic) if entity_kind(e) == n.QP_EV}
    topped = {e for e in small.device_entities(nic, book.of(nic)) if entity_kind(e) == n.QP_EV}
    added = {dict(e.match)["ev_id"].value: dict(e.params)["t1_usid"] for e in topped - planned}
    assert added == {first.ev_id: first.t1_usid, second.ev_id: second.t1_usid}
    assert book.take_next(small, nic, 99, 0) is None  # no such QP


def test_top_ups_stop_when_the_plane_range_is_full() -> None:
    text = SMALL.read_text().replace(
        "probe_threshold: 3", "probe_threshold: 3\n  backup_ids_per_plane: 2")
    plan = make_plan(parse_topology(text, "small-2.yaml"))
    qp = plan.qp("qp-a")
    assert qp is not None and (qp.backups_per_plane, qp.backup_ids_per_plane) == (1, 2)
    book = TopUpBook()
    end = qp.ends[0]
    assert book.take_next(plan, end.nic, end.qp_index, 0) is not None
    assert book.take_next(plan, end.nic, end.qp_index, 0) is None


def test_backups_that_do_not_fit_their_range_are_bad_input() -> None:
    text = SMALL.read_text().replace(
        "probe_threshold: 3", "probe_threshold: 3\n  backup_ids_per_plane: 1")
    with pytest.raises(TopologyError, match=r"qps\[1\]\.backups_per_plane: 2 backups per "
                                            r"plane do not fit in backup_ids_per_plane"):
        parse_topology(text, "small-1.yaml")


def test_top_ups_found_on_a_nic_are_the_contiguous_planned_ones(
        small: FabricPlan, nic_helper: P4InfoHelper) -> None:
    nic = "nic1"
    held = desired_state(nic_helper, small.device_entities(nic, {0: {0: 3, 1: 1}}))
    assert found_top_ups(small, nic, nic_helper, held) == {0: {0: 3, 1: 1}}
    qp = small.qp("qp-b")
    assert qp is not None
    # A gap (the second top-up of plane 0 missing) ends what is taken as topped up.
    gap = next(k for k in held if k[0] == "table" and any(
        f[2] == backup_ev_id(qp, 0, qp.backups_per_plane + 1) for f in k[3]))
    del held[gap]
    assert found_top_ups(small, nic, nic_helper, held) == {0: {0: 1, 1: 1}}


def test_diff_deletes_extra_modifies_changed_and_inserts_missing(
        small: FabricPlan, nic_helper: P4InfoHelper) -> None:
    desired = desired_state(nic_helper, small.device_entities("nic2"))
    current = desired_state(nic_helper, small.device_entities("nic0"))
    updates, counts = diff(desired, current)
    kinds = [u.type for u in updates]
    # deletes come first, then modifies, then inserts
    assert kinds == sorted(kinds, key=[p4runtime_pb2.Update.DELETE,
                                       p4runtime_pb2.Update.MODIFY,
                                       p4runtime_pb2.Update.INSERT].index)
    assert counts.total == len(updates) > 0
    assert diff(desired, dict(desired)) == ([], type(counts)())


def ev_event(local_qpn: int, qp_index: int, slot: int, old_ev: int, new_ev: int,
             reason: int) -> p4runtime_pb2.DigestList:
    digest = p4runtime_pb2.DigestList(digest_id=1, list_id=1)
    data = digest.data.add()
    for value in (local_qpn, qp_index, slot, old_ev, new_ev, reason):
        member = data.struct.members.add()
        member.bitstring = value.to_bytes(4, "big")
    return digest


class Recorder:
    """Stands in for a device link: keeps what would have been written and sent."""

    def __init__(self, link: DeviceLink) -> None:
        self.link = link
        self.writes: list[p4runtime_pb2.Update] = []
        self.packets: list[tuple[bytes, int]] = []

    def install(self) -> None:
        self.link.write = self.writes.extend  # type: ignore[method-assign]
        self.link.packet_out = lambda payload, port: self.packets.append(  # type: ignore[method-assign]
            (payload, port))


def test_the_reactor_tops_up_probes_and_records_the_recovery(small: FabricPlan) -> None:
    reactor = Reactor(small, EventLog(out=None))  # not started: no connections
    recorder = Recorder(reactor.links["nic0"])
    recorder.install()
    qp = small.qp("qp-a")
    assert qp is not None
    end = qp.ends[0]
    retired = 0x0001_0002  # slot 2's EV (plane 0)
    backup = 0x0002_0100
    reactor.handle_digest("nic0", ev_event(end.qpn, end.qp_index, 2, retired, backup,
                                           c.EV_EVENT_ALWAYS_SKIP))
    log = reactor.log
    assert log.count("top-up", device="nic0", plane=0, ev_id=backup_ev_id(qp, 0, 1),
                     backup_taken=True, written=True) == 1
    (write,) = recorder.writes
    assert write.type == p4runtime_pb2.Update.INSERT
    assert write.entity.table_entry.table_id == reactor.links["nic0"].helper.get_id(
        "tables", n.QP_EV)
    reactor.send_due_probes()
    (payload, port), = recorder.packets
    assert port == c.PACKET_OUT_TRANSMIT
    probe = decode_frame(payload)
    assert isinstance(probe, ProbePacket) and probe.sport == retired >> 16
    reactor.handle_digest("nic0", ev_event(end.qpn, end.qp_index, 2, 0, retired,
                                           c.EV_EVENT_RESTORED))
    assert log.count("restored", device="nic0", back_in_slot=True) == 1
    assert reactor.probes.next_due() is None
    (recovery,) = reactor.recoveries
    assert recovery.ev == retired and recovery.restored_at is not None


def test_a_floor_event_is_only_logged(small: FabricPlan) -> None:
    reactor = Reactor(small, EventLog(out=None))
    recorder = Recorder(reactor.links["nic2"])
    recorder.install()
    qp = small.qp("qp-a")
    assert qp is not None
    end = qp.ends[1]
    reactor.handle_digest("nic2", ev_event(end.qpn, end.qp_index, 1, 0x2001_0001, 0,
                                           c.EV_EVENT_FLOOR))
    assert recorder.writes == [] and reactor.probes.next_due() is None
    assert reactor.log.count("digest", device="nic2", reason="floor") == 1

