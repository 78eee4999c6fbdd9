"""The planned switch entries in the real ``srv6_switch.p4`` (run by our bm target,
in-process): a data packet a NIC would send on each EV of each QP crosses T0, T1 and
T0 and leaves toward the peer NIC's port with its carrier used up."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from plan_walk import Walker
from planned_fabric import program_device, programs
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from controller.plan import FabricPlan
from controller.topology import Role
from controller.topology.values import format_mac
from protocol import constants as c
from protocol.headers import BTH, METH, RETH, dscp_ecn_tc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def switches(small: FabricPlan) -> dict:
    """Every switch of the small fabric as a bm device holding its planned entries."""
    program, _ = programs()
    devices = {}
    for switch in small.fabric.switches():
        devices[switch.name] = program.new_device()
        program_device(devices[switch.name], small.device_entities(switch.name))
    return devices


def test_every_qp_ev_crosses_the_real_switch_program(small: FabricPlan, switches: dict) -> None:
    walker = Walker(small)
    fabric = small.fabric
    for qp in fabric.qps:
        for side, local in enumerate(qp.ends):
            remote = fabric.nic(qp.ends[1 - side].nic)
            source = fabric.nic(local.nic)
            for path in small.qp_end(qp, side).evs:
                plane, port, carrier = walker.carrier(local.nic, local.qp_index, path.ev_id)
                link = fabric.nic_link(local.nic, plane)
                frame = (
                    Ether(src=format_mac(source.macs[plane]), dst=format_mac(link.peer_mac))
                    / IPv6(src=_ip(source.ipv6), dst=_ip(carrier), nh=c.IP_PROTO_IPV6,
                           hlim=c.NIC_HOP_LIMIT, tc=dscp_ecn_tc(c.DSCP_TRIMMABLE, c.ECN_ECT0))
                    / IPv6(src=_ip(source.ipv6), dst=_ip(remote.ipv6))
                    / UDP(sport=path.ev >> 16, dport=c.MRC_UDP_PORT)
                    / BTH(dest_qp=qp.ends[1 - side].qpn) / METH() / RETH(dma_len=4) / b"data")
                device, in_port, hops = link.peer, link.peer_port, 0
                while True:
                    outputs = switches[device].process(bytes(frame), in_port)
                    assert len(outputs) == 1, f"{device} dropped EV {path.ev:#x}"
                    frame = Ether(outputs[0].data)
                    hops += 1
                    cable = next(link for link in fabric.switch_links(device)
                                 if link.port == outputs[0].port)
                    if cable.peer_role is Role.NIC:
                        break
                    device, in_port = cable.peer, cable.peer_port
                assert (cable.peer, cable.peer_port) == (remote.name, remote.ports[plane])
                assert hops == 3
                outer = frame[IPv6]
                assert outer.hlim == c.NIC_HOP_LIMIT - 3
                assert frame.dst == format_mac(remote.macs[plane])
                arrived = int(ipaddress.IPv6Address(outer.dst))
                assert arrived & ((1 << 80) - 1) == 0  # the carrier is used up
                assert arrived >> 96 == small.usids.block


def _ip(value: int) -> str:
    return str(ipaddress.IPv6Address(value))
