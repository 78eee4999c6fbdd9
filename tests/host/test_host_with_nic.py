"""The host against the real NIC pipeline: two ``p4src/mrc_nic.p4`` devices on bm, wired
back to back on plane 0, each with an endpoint on its host port (docs/mrc-nic.md 1).
No switch: the carrier is not consumed on the way, which the receiving NIC does not look
at (it accepts by inner DA and DestQP, section 4). Tables are written with STF commands,
as in tests/stf_nic."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from behavioral_model.pipeline.v1model import V1ModelDevice
from behavioral_model.program import P4Program, load_program
from behavioral_model.stf.cli_commands import CliCommands
from behavioral_model.stf.parse import parse_stf
from behavioral_model.stf.run_context import RunContext
from behavioral_model.stf.table_commands import TableCommands
from host.clock import ManualClock
from host.config import TransportConfig
from host.endpoint import Endpoint
from host.memory import MemoryRegion
from host.ports.inprocess import InProcessPort
from protocol.constants import NIC_HOST_PORT

ROOT = Path(__file__).resolve().parents[2]
PLANE_PORT = 1
A, B = "2001:db8:a::1", "2001:db8:b::1"
QPN_A, QPN_B = 0xA00001, 0xB00001
RKEY = 7


def nic_tables(address: str, my_t0: int, peer_t0: int, local_qpn: int, remote_qpn: int,
               mac: int, peer_mac: int) -> str:
    """One QP over 4 EVs of plane 0 (T1 uSIDs 0x1000..0x1003) and 2 backups."""
    evs = "\n".join(f"add NicIngress.ev.qp_ev qp_index:1 ev_id:{ev_id} "
                    f"set_ev(t1_usid:{t1:#x})"
                    for ev_id, t1 in [(0, 0x1000), (1, 0x1001), (2, 0x1002), (3, 0x1003),
                                      (256, 0x1100), (257, 0x1101)])
    return f"""
add NicIngress.lookup.nic_address dst_addr:{address} accept_local()
add NicIngress.path.plane_port plane:0 set_plane_port(port:{PLANE_PORT}, nic_mac:{mac:#x}, next_hop_mac:{peer_mac:#x}, usid_block:0xfcbbbb00, src_t0_usid:{my_t0:#x})
mc_mgrp_create 1
mc_node_create 0 {NIC_HOST_PORT}
mc_node_create 1 {PLANE_PORT}
mc_node_associate 1 0
mc_node_associate 1 1
add NicIngress.lookup.qp_context local_qpn:{local_qpn:#x} set_qp(qp_index:1, remote_qpn:{remote_qpn:#x}, ev_slots:4, ev_mask:3, min_active:1, backups_per_plane:2, sack_every:1, probe_threshold:2)
{evs}
add NicIngress.path.qp_plane qp_index:1 plane:0 set_qp_path(dst_t0_usid:{peer_t0:#x}, down_usid:{peer_t0 + 1:#x})
"""  # noqa: E501 - STF lines


def programmed_nic(program: P4Program, tables: str) -> V1ModelDevice:
    context = RunContext(program, "<nic tables>", None)
    table_commands = TableCommands(context)
    handlers = {**table_commands.handlers(), **CliCommands(context, table_commands).handlers()}
    for command in parse_stf(tables):
        handlers[type(command)](command)
    assert context.result.passed, context.result.report()
    return context.device


@pytest.fixture(scope="module")
def program() -> P4Program:
    return load_program(ROOT / "p4src" / "mrc_nic.p4", [ROOT / "p4src" / "include"])


class NicPair:
    """Hosts a and b, each on its NIC; ``loss`` is the chance a frame between the NICs
    is lost."""

    def __init__(self, program: P4Program, loss: float = 0.0, seed: int = 0) -> None:
        self.clock = ManualClock()
        config = TransportConfig(rto=0.001)
        self.a = Endpoint(InProcessPort(), A, clock=self.clock, config=config)
        self.b = Endpoint(InProcessPort(), B, clock=self.clock, config=config)
        self.a.open_qp(QPN_A, B, remote_qpn=QPN_B)
        self.b.open_qp(QPN_B, A, remote_qpn=QPN_A)
        self.nics = (
            programmed_nic(program, nic_tables("0x20010db8000a00000000000000000001", 0x0100,
                                               0x0200, QPN_A, QPN_B, 0xA0001, 0xB0001)),
            programmed_nic(program, nic_tables("0x20010db8000b00000000000000000001", 0x0200,
                                               0x0100, QPN_B, QPN_A, 0xB0001, 0xA0001)))
        self.hosts = (self.a, self.b)
        for host in self.hosts:
            host.port.set_receiver(host.handle_frame)
        self.loss = loss
        self.rng = random.Random(seed)
        self.host_port_outputs = 0  # frames the NICs gave their hosts

    def run(self, max_rounds: int = 10_000) -> None:
        """Move frames until nothing moves and no timer is due; jump the clock to the
        next timer when idle."""
        between: list[tuple[int, bytes]] = []  # (receiving NIC, frame) on the plane
        for _ in range(max_rounds):
            work = [(index, NIC_HOST_PORT, frame)
                    for index, host in enumerate(self.hosts)
                    for frame in host.port.take_sent()]
            work += [(index, PLANE_PORT, frame) for index, frame in between]
            between = []
            for index, port, frame in work:
                for out in self.nics[index].process(frame, port):
                    if out.port == NIC_HOST_PORT:
                        self.host_port_outputs += 1
                        self.hosts[index].port.deliver(out.data)
                    elif out.port == PLANE_PORT and self.rng.random() >= self.loss:
                        between.append((1 - index, out.data))
            delivered = sum(host.port.poll() for host in self.hosts)
            if work or delivered:
                continue
            deadlines = [d for h in self.hosts if (d := h.next_deadline()) is not None]
            if not deadlines:
                return
            self.clock.set(max(self.clock.now(), min(deadlines)))
            for host in self.hosts:
                host.on_timer()
        raise AssertionError("the hosts never went idle")


@pytest.mark.parametrize("loss", [0.0, 0.1])
def test_write_through_two_nics(program: P4Program, loss: float) -> None:
    pair = NicPair(program, loss, seed=3)
    region = pair.b.register(MemoryRegion(0, 1 << 20, RKEY))
    data = random.Random(4).randbytes(150_000)
    handle = pair.a.write(QPN_A, data, 0x10, rkey=RKEY, imm=0x99)
    pair.run()
    assert handle.ok
    assert region.read(0x10, len(data)) == data
    (completion,) = pair.b.poll_completions()
    assert (completion.addr, completion.length, completion.imm) == (0x10, len(data), 0x99)
    stats = pair.a.qp_stats(QPN_A)
    endpoint_stats = (pair.a.stats, pair.b.stats)
    assert all(s.malformed == s.wrong_address == s.unknown_qp == 0 for s in endpoint_stats)
    if loss == 0.0:
        assert stats.retransmits == 0 and stats.sacks == stats.packets_sent
    else:
        assert stats.loss_reports > 0 and stats.retransmits >= stats.loss_reports
    # Loss reports are consumed by the NIC: the hosts received data and SACKs only.
    assert pair.host_port_outputs == (pair.a.stats.frames_received
                                      + pair.b.stats.frames_received)


def test_probe_is_answered_through_two_nics(program: P4Program) -> None:
    pair = NicPair(program)
    answers: list[tuple[int, int]] = []
    pair.a.on_probe_answer = lambda qp, ev: answers.append((qp, ev))
    ev = 0x1001 << 16 | 1  # EV id 1 through T1 0x1001
    pair.a.probe(QPN_A, ev)
    pair.run()
    assert answers == [(QPN_A, ev)]
