#!/usr/bin/env python3
"""Write pcaps of real MRC traffic, recorded by bm's ``--pcap`` option while the NIC
and switch programs run, for looking at with Wireshark/tshark and the MRC dissector.

    python tools/wireshark/capture.py /tmp/mrc-pcap
    tshark -X lua_script:tools/wireshark/mrc.lua -r /tmp/mrc-pcap/nic/port1_out.pcap

1. The NIC: ``python -m behavioral_model switch p4src/mrc_nic.p4 --pcap DIR/nic``
   (nanomsg packet I/O on a socket in that folder, P4Runtime on a free loopback port),
   programmed over P4Runtime as docs/mrc-nic.md section 2 says: one QP, 2 EVs on each
   of 2 planes, plane 0 on port 1 and plane 1 on port 2, the host on port 0. It plays a
   short exchange built with protocol/'s scapy layers: the host posts every write
   opcode, a probe and a loss report; the peer sends data (asking for an ACK, ECN-CE,
   trimmed, trimmed on the last hop, far out of the window), a probe, a SACK with each
   mark and a NACK with each reason. The pcaps hold the NIC's answers: encapsulated
   data with uSID carriers, SACKs, NACKs and decapsulated deliveries.
2. Plane 0's T0: ``p4src/srv6_switch.p4 --pcap DIR/t0``. Every frame the NIC sent on
   plane 0 enters on port 3; the T0 shifts its own uSID out of the carrier and forwards
   by the T1 uSID, trimming (DSCP 12, payload cut) on port 1.

Each folder gets portN_in.pcap and portN_out.pcap per port, and the switch's log.
"""

from __future__ import annotations

import argparse
import ipaddress
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pynng
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from behavioral_model.ports.nn import (
    MSG_PACKET_IN,
    MSG_PACKET_OUT,
    pack_message,
    unpack_message,
)
from behavioral_model.ports.pcap import read_pcap
from fabric.back_to_back import plane_usid
from fabric.procs.free_ports import free_tcp_port
from p4rt_client import P4InfoHelper, P4RuntimeSession, update, wait_for_grpc
from protocol import constants as c
from protocol.headers import (
    BTH,
    METH,
    RETH,
    ImmDt,
    MrcNack,
    MrcProbe,
    MrcSack,
    MrcSackCongestion,
    carrier_usids,
    dscp_ecn_tc,
    usid_carrier,
)

ROOT = Path(__file__).resolve().parents[2]
NIC_PROGRAM = ROOT / "p4src" / "mrc_nic.p4"
SWITCH_PROGRAM = ROOT / "p4src" / "srv6_switch.p4"
START_TIMEOUT = 120.0  # s for the switch to compile the program and answer on gRPC
FRAME_TIMEOUT = 20.0   # s to wait for each frame the NIC must send

NIC = "2001:db8:a::1"
PEER = "2001:db8:b::1"
LOCAL_QPN, REMOTE_QPN = 0xA00001, 0xB00001
PLANES = (0, 1)
EVS_PER_PLANE = 2
HOST_MAC, NIC_HOST_MAC = "00:00:00:00:00:a0", "00:00:00:00:00:a1"
# A PSN beyond any receive window, but less than 2**23 ahead (not "behind").
FAR_PSN = 1 << 22
# The RETH address of the last write the host posts: its frame out of the NIC closes the
# capture (the switch sends in the order it processes, so everything before it is out).
BARRIER_ADDR = 0xBA44_1E40_0000_0000


def slot_ev(slot: int) -> int:
    """The EV of EV id ``slot``: plane ``slot % 2``, its own T1."""
    return c.ev_value(plane_usid(slot % len(PLANES), 0x100 + slot), slot)


@dataclass(frozen=True)
class Step:
    """A frame into ``port``."""

    what: str
    port: int
    frame: Packet


# ---- programming (docs/mrc-nic.md section 2) ------------------------------------------
def program_nic(session: P4RuntimeSession) -> None:
    p4 = P4InfoHelper(session.get_p4info())
    slots = len(PLANES) * EVS_PER_PLANE
    updates = [p4.table_entry("NicIngress.lookup.nic_address",
                              {"dst_addr": int(ipaddress.IPv6Address(NIC))}, "accept_local"),
               p4.table_entry("NicIngress.lookup.qp_context", {"local_qpn": LOCAL_QPN},
                              "set_qp", {"qp_index": 0, "remote_qpn": REMOTE_QPN,
                                         "ev_slots": slots, "ev_mask": slots - 1,
                                         "min_active": 1, "backups_per_plane": 1,
                                         "sack_every": 4, "probe_threshold": 2})]
    for slot in range(slots):
        updates.append(p4.table_entry("NicIngress.ev.qp_ev", {"qp_index": 0, "ev_id": slot},
                                      "set_ev", {"t1_usid": slot_ev(slot) >> c.USID_BITS}))
    for plane in PLANES:
        port = 1 + plane
        updates += [
            p4.table_entry("NicIngress.path.plane_port", {"plane": plane}, "set_plane_port",
                           {"port": port, "nic_mac": 0x0200000000_00 | port,
                            "next_hop_mac": 0x0200000001_00 | port,
                            "usid_block": c.USID_BLOCK_DEFAULT,
                            "src_t0_usid": plane_usid(plane, 0x10)}),
            p4.table_entry("NicIngress.path.qp_plane", {"qp_index": 0, "plane": plane},
                           "set_qp_path", {"dst_t0_usid": plane_usid(plane, 0x11),
                                           "down_usid": plane_usid(plane, 0x21)}),
            p4.multicast_group_entry(c.NIC_REPLY_MCAST_BASE + plane,
                                     [(c.NIC_HOST_PORT, 0), (port, 1)]),
        ]
    session.write([update(p4runtime_pb2.Update.INSERT, u) for u in updates])




# ---- the exchange ----------------------------------------------------------------------
def _posted(transport: Packet, sport: int = 0xC000, flow: int = 0) -> Packet:
    """A frame the host posts on the host port."""
    return (Ether(src=HOST_MAC, dst=NIC_HOST_MAC) / IPv6(src=NIC, dst=PEER, fl=flow)
            / UDP(sport=sport, dport=c.MRC_UDP_PORT, chksum=0) / transport)


def _arriving(transport: Packet, ev: int, dscp: int = c.DSCP_TRIMMABLE,
              ecn: int = c.ECN_ECT0) -> Packet:
    """A frame from the peer NIC, arriving from the fabric on EV ``ev`` (its carrier
    shifted down to the last uSID: this NIC's downlink)."""
    plane = c.ev_plane(ev)
    carrier = usid_carrier(c.USID_BLOCK_DEFAULT, [plane_usid(plane, 0x21)])
    flow = ev & 0xFFFF
    return (Ether(src="02:00:00:00:01:01", dst="02:00:00:00:00:01")
            / IPv6(src=PEER, dst=carrier, nh=c.IP_PROTO_IPV6, fl=flow,
                   tc=dscp_ecn_tc(dscp, ecn), hlim=61)
            / IPv6(src=PEER, dst=NIC, fl=flow, tc=dscp_ecn_tc(dscp, ecn))
            / UDP(sport=ev >> c.USID_BITS, dport=c.MRC_UDP_PORT, chksum=0) / transport)


def _trimmed(opcode: int, psn: int) -> Packet:
    """A data packet a switch trimmed: the headers through RETH, no payload."""
    return BTH(opcode=opcode, dest_qp=LOCAL_QPN, psn=psn) / METH(msg_seq=1) / RETH(
        virtual_addr=0x10000 + 256 * psn, rkey=0x77, dma_len=256)


def _values(prefix: str) -> list[int]:
    """The values of the constants named PREFIX*."""
    return [v for k, v in vars(c).items() if k.startswith(prefix) and isinstance(v, int)]


def _write(opcode: int, psn: int = 0, **bth: int) -> Packet:
    data = (BTH(opcode=opcode, dest_qp=LOCAL_QPN, psn=psn, **bth) / METH(msg_seq=1)
            / RETH(virtual_addr=0x10000 + 256 * psn, rkey=0x77, dma_len=256))
    if opcode in c.IMM_OPCODES:
        data = data / ImmDt(imm_data=0xC0FFEE00 | psn)
    return data / Raw(bytes(range(256)))


def steps() -> list[Step]:
    """The exchange, in order (docs/mrc-nic.md sections 3 and 4)."""
    port = {plane: 1 + plane for plane in PLANES}
    ev0, ev1 = slot_ev(0), slot_ev(1)
    out: list[Step] = []
    for opcode in sorted(c.WRITE_OPCODES):
        out.append(Step(f"host posts opcode {opcode:#x}", c.NIC_HOST_PORT,
                        _posted(_write(opcode))))
    out.append(Step("host posts a probe", c.NIC_HOST_PORT,
                    _posted(BTH(opcode=c.OPCODE_PROBE, dest_qp=LOCAL_QPN)
                            / MrcProbe(probe_id=7, src_conn_id=LOCAL_QPN & 0xFFFF,
                                       dst_conn_id=REMOTE_QPN & 0xFFFF, tx_timestamp=1234),
                            sport=ev1 >> c.USID_BITS, flow=ev1 & 0xFFFF)))
    out.append(Step("host reports PSN 2 lost", c.NIC_HOST_PORT,
                    _posted(BTH(opcode=c.OPCODE_NACK, dest_qp=LOCAL_QPN)
                            / MrcNack(reason=c.NACK_HOST_LOSS_REPORT, nack_psn=2))))
    out += [
        Step("peer data PSN 0, ack requested", port[0],
             _arriving(_write(c.OPCODE_WRITE_FIRST, 0, ack_req=1), ev0)),
        Step("peer data PSN 1, ECN CE", port[1],
             _arriving(_write(c.OPCODE_WRITE_LAST_IMM, 1), ev1, ecn=c.ECN_CE)),
        Step("peer data PSN 2, trimmed", port[0],
             _arriving(_trimmed(c.OPCODE_WRITE_ONLY, 2), ev0, dscp=c.DSCP_TRIMMED)),
        Step("peer data PSN 3, trimmed on the last hop", port[1],
             _arriving(_trimmed(c.OPCODE_WRITE_ONLY, 3), ev1, dscp=c.DSCP_TRIMMED_LASTHOP)),
        Step("peer data far ahead of the window", port[0],
             _arriving(_write(c.OPCODE_WRITE_MIDDLE, FAR_PSN), ev0)),
        Step("peer probe", port[1],
             _arriving(BTH(opcode=c.OPCODE_PROBE, dest_qp=LOCAL_QPN)
                       / MrcProbe(probe_id=9, tx_timestamp=77), ev1)),
    ]
    for mark in sorted(_values("SACK_MARK_")):
        out.append(Step(f"peer SACK mark {mark}", port[0], _arriving(
            BTH(opcode=c.OPCODE_SACK, dest_qp=LOCAL_QPN, psn=5)
            / MrcSack(mark=mark, ack_psn_offset=-1, echoed_ev=ev0, cumulative_psn=4,
                      sack_offset=1, sack_bitmap=0b101, src_conn_id=1, dst_conn_id=2)
            / MrcSackCongestion(ooo_count=3, received_bytes=4096),
            ev0, dscp=c.DSCP_CONTROL, ecn=c.ECN_NOT_ECT)))
    for reason in sorted(_values("NACK_")):
        out.append(Step(f"peer NACK reason {reason:#x}", port[1], _arriving(
            BTH(opcode=c.OPCODE_NACK, dest_qp=LOCAL_QPN, psn=6)
            / MrcNack(reason=reason, echoed_ev=ev1, nack_psn=6, tx_timestamp=99),
            ev1, dscp=c.DSCP_CONTROL, ecn=c.ECN_NOT_ECT)))
    return out


# ---- the T0 switch (p4src/srv6_switch.p4) --------------------------------------------
def program_t0(session: P4RuntimeSession, t1_usids: list[int]) -> None:
    """Plane 0's T0 as the NIC's carriers expect it: its own uSID (the NIC's source T0)
    is shifted out (uN), the first of ``t1_usids`` is behind port 1, every other T1
    behind port 2, and port 1 trims every trimmable packet (threshold 0), as a
    congested uplink would."""
    p4 = P4InfoHelper(session.get_p4info())
    block_bits = c.USID_BLOCK_BITS + c.USID_BITS
    my_usid = c.USID_BLOCK_DEFAULT << (128 - c.USID_BLOCK_BITS) | plane_usid(0, 0x10) << (
        128 - block_bits)
    updates = [p4.table_entry("my_sid", {"dst_addr": (my_usid, block_bits)}, "usid_un",
                              {"end_to_cpu": 0}),
               p4.table_entry("trim_config", {"egress_port": 1}, "set_trim_threshold",
                              {"threshold": 0, "last_hop": 0})]
    for index, t1 in enumerate(t1_usids):
        port = 1 if index == 0 else 2
        updates.append(p4.table_entry(
            "usid_route", {"dst_usid_prefix": c.USID_BLOCK_DEFAULT << c.USID_BITS | t1},
            "set_next_hop", {"port": port, "next_hop_mac": 0x0200000002_00 | port}))
    session.write([update(p4runtime_pb2.Update.INSERT, u) for u in updates])


def _t1_of(frame: bytes) -> int:
    """The T1 uSID of a frame the NIC sent: the second uSID of its carrier."""
    return carrier_usids(Ether(frame)[IPv6].dst)[1][1]


# ---- running ---------------------------------------------------------------------------
@contextmanager
def device(directory: Path, program: Path) -> Iterator[tuple[P4RuntimeSession, pynng.Pair0]]:
    """``python -m behavioral_model switch PROGRAM --pcap DIRECTORY``: yields a P4Runtime
    session and a nanomsg socket on its ports; stops the process on exit."""
    directory.mkdir(parents=True, exist_ok=True)
    grpc_addr = f"127.0.0.1:{free_tcp_port()}"
    ipc = f"ipc://{directory / 'ports.ipc'}"
    with (directory / "switch.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "behavioral_model", "switch", str(program),
             "--packet-in", ipc, "--grpc-server-addr", grpc_addr, "--pcap", str(directory),
             "--priority-queues", "8", "--log-level", "warn", "--log-console"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_grpc(grpc_addr, timeout=START_TIMEOUT, alive=lambda: proc.poll() is None)
            with P4RuntimeSession(grpc_addr) as session, pynng.Pair0(
                    recv_timeout=int(FRAME_TIMEOUT * 1000), send_timeout=5000) as ports:
                session.connect()
                ports.dial(ipc, block=True)
                yield session, ports
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _send(ports: pynng.Pair0, port: int, frame: bytes) -> None:
    ports.send(pack_message(MSG_PACKET_IN, port, len(frame), frame))


def _receive(ports: pynng.Pair0, what: str) -> tuple[int, bytes]:
    """The next frame a device sends: (port, frame)."""
    try:
        msg_type, port, _, body = unpack_message(ports.recv())
    except pynng.Timeout:
        raise RuntimeError(f"no frame from the {what} within {FRAME_TIMEOUT:.0f} s") from None
    if msg_type != MSG_PACKET_OUT:
        raise RuntimeError(f"the {what} sent nanomsg message type {msg_type}")
    return port, body


def run_nic(directory: Path, program: Path = NIC_PROGRAM) -> list[bytes]:
    """The exchange through the NIC, recorded in ``directory``; returns the frames the
    NIC sent on plane 0's port."""
    barrier = _posted(_write(c.OPCODE_WRITE_ONLY))
    barrier[RETH].virtual_addr = BARRIER_ADDR
    plane0: list[bytes] = []
    with device(directory, program) as (session, ports):
        program_nic(session)
        for step in [*steps(), Step("barrier", c.NIC_HOST_PORT, barrier)]:
            _send(ports, step.port, bytes(step.frame))
        while True:
            port, frame = _receive(ports, "NIC")
            if port == 1 + PLANES[0]:
                plane0.append(frame)
            if _is_barrier(frame):
                return plane0


def run_t0(directory: Path, frames: list[bytes], program: Path = SWITCH_PROGRAM) -> None:
    """``frames`` (from the NIC) into plane 0's T0 on its NIC-facing port 3, recorded in
    ``directory``; every frame comes out, shifted, the data trimmed on port 1."""
    with device(directory, program) as (session, ports):
        # The first frame is data: its T1 goes behind the trimming port.
        t1s = [_t1_of(f) for f in frames]
        program_t0(session, sorted(set(t1s), key=t1s.index))
        for frame in frames:
            _send(ports, 3, frame)
        for count in range(len(frames)):
            _receive(ports, f"T0 switch ({count} of {len(frames)} frames came out)")


def capture(directory: Path, nic_program: Path = NIC_PROGRAM,
            switch_program: Path = SWITCH_PROGRAM) -> dict[str, int]:
    """Both captures: DIRECTORY/nic/ and DIRECTORY/t0/; returns {pcap path relative to
    DIRECTORY: frames}."""
    frames = run_nic(directory / "nic", nic_program)
    run_t0(directory / "t0", frames, switch_program)
    return {str(p.relative_to(directory)): len(read_pcap(p))
            for p in sorted(directory.glob("*/*.pcap"))}


def _is_barrier(frame: bytes) -> bool:
    reth = Ether(frame).getlayer(RETH)
    return reth is not None and reth.virtual_addr == BARRIER_ADDR


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write pcaps of real MRC traffic for tshark -X "
                    "lua_script:tools/wireshark/mrc.lua (docs/wireshark.md). The NIC "
                    "program runs in a bm switch process with --pcap DIR/nic and plays a "
                    "short exchange (every write opcode, probes, SACKs with every mark, "
                    "NACKs with every reason); the frames it sends on plane 0 then cross "
                    "the T0 switch program (--pcap DIR/t0), which shifts their carriers "
                    "and trims the data on one port. Each folder gets portN_in.pcap and "
                    "portN_out.pcap per port.",
        epilog="Then, for example: tshark -X lua_script:tools/wireshark/mrc.lua -r "
               "DIR/nic/port1_out.pcap")
    parser.add_argument("directory", metavar="DIR", type=Path,
                        help="where to write the pcaps (created if missing)")
    parser.add_argument("--nic-program", type=Path, default=NIC_PROGRAM,
                        help="the NIC program (default: p4src/mrc_nic.p4; "
                             "p4src/pna/mrc_nic.p4 is the PNA build)")
    parser.add_argument("--switch-program", type=Path, default=SWITCH_PROGRAM,
                        help="the switch program (default: p4src/srv6_switch.p4)")
    args = parser.parse_args(argv)
    for program in (args.nic_program, args.switch_program):
        if not program.is_file():
            parser.error(f"{program}: no such file")
    try:
        counts = capture(args.directory, args.nic_program, args.switch_program)
    except (OSError, RuntimeError, TimeoutError) as error:
        print(f"capture failed: {error}", file=sys.stderr)
        return 1
    for name, frames in counts.items():
        print(f"{args.directory / name}: {frames} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
