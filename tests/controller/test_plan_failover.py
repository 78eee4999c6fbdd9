"""Plane failover in the plan (controller/plan/failover.py, docs/mrc-nic.md 3.1): the
``nic_planes`` entry and the port-status updates a NIC sends its QPs' peers."""

from __future__ import annotations

import ipaddress

import pytest

from controller.device.encoding import encode
from controller.plan import FabricPlan, nic_planes_entry, planes_mask, port_status_frames
from controller.plan import p4names as n
from host.codec import NackPacket, decode_frame
from p4rt_client import P4InfoHelper
from protocol import constants as c


def test_planes_mask() -> None:
    assert planes_mask([]) == 0
    assert planes_mask([0, 2, 2]) == 0b101
    with pytest.raises(ValueError, match="plane 8"):
        planes_mask([8])


def test_nic_planes_entry_encodes(small: FabricPlan, nic_helper: P4InfoHelper) -> None:
    nic = next(iter(small.qp_sides))
    entry = nic_planes_entry(small.fabric, nic, 0b10)
    assert (entry.table, entry.action, entry.params) == (
        n.NIC_PLANES, n.SET_PLANES_DOWN, (("down_mask", 0b10),))
    here = small.fabric.nic(nic)
    assert here is not None
    assert entry.match == (("src_addr", (int(ipaddress.IPv6Address(here.ipv6)),)),)
    assert encode(nic_helper, entry).table_entry.action.action.params[0].value == b"\x02"
    with pytest.raises(KeyError):
        nic_planes_entry(small.fabric, "no-such-nic", 1)


def test_port_status_frames(small: FabricPlan) -> None:
    nic = next(iter(small.qp_sides))
    sides = small.qp_sides[nic]
    planes = small.fabric.planes
    assert planes >= 2
    frames = [decode_frame(f) for f in port_status_frames(small, nic, 0b01)]
    # One update per QP end of the NIC on every surviving plane: here plane 0 is down.
    assert len(frames) == len(sides) * (planes - 1)
    for frame in frames:
        assert isinstance(frame, NackPacket)
        assert (frame.reason, frame.vendor, frame.nack_psn) == (c.NACK_PORT_STATUS, 0b01, 0)
        assert c.ev_plane(frame.echoed_ev) != 0
        # Sent on that EV: UDP source port EV[31:16], flow label EV[15:0].
        assert (frame.sport, frame.flow_label) == (frame.echoed_ev >> 16,
                                                   frame.echoed_ev & 0xFFFF)
    local_qpns = {qp.ends[side].qpn for qp, side in sides}
    assert {f.dest_qp for f in frames} == local_qpns
    assert port_status_frames(small, nic, (1 << planes) - 1) == []
