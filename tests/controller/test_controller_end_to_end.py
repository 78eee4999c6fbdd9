"""The small fabric planned and run end to end with the real programs (bm, in-process):
writes posted on one NIC's host port travel over every planned EV, through T0, T1 and
T0, and reach the peer's host; the peer's SACKs find their way back."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from planned_fabric import PlannedFabric
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from controller.plan import make_plan
from controller.topology import load_topology
from protocol import constants as c
from protocol.headers import BTH, METH, RETH, MrcSack

ROOT = Path(__file__).resolve().parents[2]


def _address(value: int) -> str:
    return str(ipaddress.IPv6Address(value))


def _ev(frame: Ether) -> int:
    """The EV of an encapsulated frame: UDP sport, then the outer flow label's low bits."""
    return frame[UDP].sport << 16 | (frame[IPv6].fl & 0xFFFF)


@pytest.mark.parametrize("qp_name", ["qp-a", "qp-b", "qp-c"])
@pytest.mark.parametrize("side", [0, 1])
def test_writes_cross_the_planned_fabric_on_every_ev(qp_name: str, side: int) -> None:
    plan = make_plan(load_topology(ROOT / "controller" / "examples" / "small.yaml"))
    fabric = PlannedFabric.build(plan)
    qp = plan.qp(qp_name)
    local, remote = qp.ends[side], qp.ends[1 - side]
    source, target = plan.fabric.nic(local.nic), plan.fabric.nic(remote.nic)
    end = plan.qp_end(qp, side)
    # One rotation: ev_slots is a power of two here, so every slot is used once.
    payloads = [f"write {i} of {qp_name}".encode() for i in range(end.ev_slots)]
    for i, payload in enumerate(payloads):
        fabric.post(local.nic, bytes(
            # Explicit MACs: scapy would otherwise try to resolve them on the host.
            Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
            / IPv6(src=_address(source.ipv6), dst=_address(target.ipv6))
            / UDP(dport=c.MRC_UDP_PORT)
            / BTH(opcode=c.OPCODE_WRITE_ONLY, dest_qp=local.qpn)
            / METH(msg_seq=i) / RETH(virtual_addr=0x1000 * i, rkey=1, dma_len=len(payload))
            / payload))

    sent_evs = {_ev(Ether(frame)) for nic, _, frame in fabric.sent
                if nic == local.nic and BTH in Ether(frame)
                and Ether(frame)[BTH].opcode == c.OPCODE_WRITE_ONLY}
    assert sent_evs == {path.ev for path in end.evs if path.slot is not None}

    data = [Ether(frame) for nic, frame in fabric.delivered
            if nic == remote.nic and Ether(frame)[BTH].opcode == c.OPCODE_WRITE_ONLY]
    assert sorted(bytes(f[RETH].payload) for f in data) == sorted(payloads)
    for frame in data:
        assert frame[IPv6].dst == _address(target.ipv6)
        assert frame[BTH].dest_qp == remote.qpn

    sacks = [Ether(frame) for nic, frame in fabric.delivered
             if nic == local.nic and Ether(frame)[BTH].opcode == c.OPCODE_SACK]
    assert len(sacks) >= end.ev_slots // max(qp.sack_every, 1)
    assert {s[MrcSack].echoed_ev for s in sacks} <= sent_evs
    assert max(s[MrcSack].cumulative_psn for s in sacks) == end.ev_slots - 1
