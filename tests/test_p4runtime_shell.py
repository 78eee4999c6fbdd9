"""Interop with p4runtime-shell, the client users reach for: push a pipeline (P4Info
file + our P4 source bundle as the "binary"), insert/read/modify/delete entries,
multicast groups, counters, packet-out and packet-in, all through its Python API.

Two set-ups: the P4Runtime server in-process (``harness``), and the real switch
process (``python -m behavioral_model switch --no-p4``) in a subprocess, with its
packets exchanged over the nanomsg socket exactly as PTF or BMv2 users would."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_p4runtime_helpers import SWITCH, Harness, frame

from behavioral_model.frontend.p4info import generate_p4info, write_p4info
from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.program import load_program
from p4rt_client.channel import wait_for_grpc

sh = pytest.importorskip("p4runtime_sh.shell")
P4RuntimeWriteException = pytest.importorskip("p4runtime_sh.p4runtime").P4RuntimeWriteException
pynng = pytest.importorskip("pynng")
grpc = pytest.importorskip("grpc")

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "tests" / "p4" / "ptf_smoke.p4"
CPU_PORT = 255
NN_HEADER = struct.Struct("<iii")  # type, port, more (BMv2's packet-in framing)
NN_PACKET_IN, NN_PACKET_OUT = 3, 4


def test_p4runtime_shell_session(harness: Harness, tmp_path: Path) -> None:
    p4info_path = tmp_path / "switch.p4info.txtpb"
    write_p4info(generate_p4info(load_program(SWITCH).checked), p4info_path)
    bundle_path = tmp_path / "switch.bundle.json"
    bundle_path.write_bytes(make_bundle(SWITCH))
    sh.setup(device_id=1, grpc_addr=f"127.0.0.1:{harness.server.port}", election_id=(0, 1),
             config=sh.FwdPipeConfig(str(p4info_path), str(bundle_path)), verbose=False)
    try:
        te = sh.TableEntry("SwIngress.l2")(action="SwIngress.forward")
        te.match["hdr.ethernet.dst_addr"] = "00:00:00:00:00:0a"
        te.action["port"] = "4"
        te.insert()
        cpu = sh.TableEntry("SwIngress.l2")(action="SwIngress.to_cpu")
        cpu.match["hdr.ethernet.dst_addr"] = "00:00:00:00:00:0b"
        cpu.insert()
        read = list(sh.TableEntry("SwIngress.l2").read())
        assert len(read) == 2
        assert harness.target.send(1, frame(0x0A, 1)) == [(4, frame(0x0A, 1))]
        assert harness.target.get_output() == (4, frame(0x0A, 1))
        packet_in = sh.PacketIn()
        harness.target.send(6, frame(0x0B, 1))
        (msg,) = list(packet_in.sniff(timeout=2))
        assert msg.packet.payload == frame(0x0B, 1)
        assert [m.value for m in msg.packet.metadata][0] == b"\x06"
        sh.PacketOut(frame(0x0C, 2), egress_port="3", _pad="0").send()
        assert harness.target.get_output(timeout=5) == (3, frame(0x0C, 2))
        te.delete()
        assert len(list(sh.TableEntry("SwIngress.l2").read())) == 1
        counter = sh.CounterEntry("SwIngress.port_pkts")
        counter.index = 1
        (cell,) = list(counter.read())
        assert cell.data.packet_count == 1
    finally:
        sh.teardown()


# -- the switch process ------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SwitchProcess:
    """``python -m behavioral_model switch --no-p4`` with a nanomsg peer (our end of
    BMv2's packet-in socket) and the gRPC address it serves."""

    def __init__(self, tmp: Path) -> None:
        self.grpc_addr = f"127.0.0.1:{_free_port()}"
        self.ipc = f"ipc://{tmp}/bm.ipc"
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "behavioral_model", "switch", "--no-p4",
             "--device-id", "0", "--packet-in", self.ipc,
             "--grpc-server-addr", self.grpc_addr, "--cpu-port", str(CPU_PORT)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_grpc()
        self.peer = pynng.Pair0(recv_timeout=3000, send_timeout=3000)
        self.peer.dial(self.ipc, block=True)

    def wait_grpc(self, timeout: float = 120.0) -> None:
        try:
            wait_for_grpc(self.grpc_addr, timeout, alive=lambda: self.proc.poll() is None)
        except TimeoutError:
            if self.proc.poll() is not None:
                raise AssertionError(f"switch exited: {self.proc.communicate()}") from None
            raise AssertionError("switch does not answer on gRPC") from None

    def send(self, port: int, data: bytes) -> None:
        self.peer.send(NN_HEADER.pack(NN_PACKET_IN, port, len(data)) + data)

    def receive(self) -> tuple[int, bytes]:
        """The next frame the switch sends out: (port, bytes); pynng.Timeout if none."""
        while True:
            msg = self.peer.recv()
            kind, port, more = NN_HEADER.unpack_from(msg)
            if kind == NN_PACKET_OUT:
                body = msg[NN_HEADER.size:]
                assert len(body) == more
                return port, body

    def expect_nothing(self, wait_ms: int = 300) -> None:
        self.peer.recv_timeout = wait_ms
        try:
            with pytest.raises(pynng.Timeout):
                self.receive()
        finally:
            self.peer.recv_timeout = 3000

    def stop(self) -> tuple[str, str]:
        self.peer.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"switch did not stop on SIGTERM: {err}") from None
        return out, err


@pytest.fixture()
def switch_process(tmp_path: Path) -> Iterator[SwitchProcess]:
    proc = SwitchProcess(tmp_path)
    try:
        yield proc
    finally:
        out, err = proc.stop()
        assert proc.proc.returncode == 0, err
        assert "Traceback" not in err, err


def eth(dst: str, src: str, ether_type: int = 0x88B5, size: int = 64) -> bytes:
    header = (bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
              + ether_type.to_bytes(2, "big"))
    return header + bytes(range(size - len(header)))


def test_p4runtime_shell_against_the_switch_process(switch_process: SwitchProcess,
                                                    tmp_path: Path) -> None:
    """p4runtime-shell drives ``python -m behavioral_model switch`` like it drives
    simple_switch_grpc: pipeline push, entries, multicast, counters, packet I/O."""
    p4info_path = tmp_path / "ptf_smoke.p4info.txtpb"
    write_p4info(generate_p4info(load_program(SMOKE).checked), p4info_path)
    bundle_path = tmp_path / "ptf_smoke.bundle.json"
    bundle_path.write_bytes(make_bundle(SMOKE))
    sw = switch_process
    sh.setup(device_id=0, grpc_addr=sw.grpc_addr, election_id=(0, 1),
             config=sh.FwdPipeConfig(str(p4info_path), str(bundle_path)), verbose=False)
    try:
        # The pipeline it pushed is the one the device now runs.
        assert {t.name for t in sh.P4Objects(sh.P4Type.table)} >= {
            "SmokeIngress.l2_fwd", "SmokeIngress.ipv4_lpm", "SmokeIngress.acl"}

        host1, host2 = "00:00:00:00:00:01", "00:00:00:00:00:02"
        learn = sh.TableEntry("SmokeIngress.smac")(action="NoAction")
        learn.match["hdr.ethernet.src_addr"] = host1
        learn.insert()
        fwd = sh.TableEntry("SmokeIngress.l2_fwd")(action="SmokeIngress.forward")
        fwd.match["hdr.ethernet.dst_addr"] = host2
        fwd.action["port"] = "2"
        fwd.insert()
        route = sh.TableEntry("SmokeIngress.ipv4_lpm")(action="SmokeIngress.route")
        route.match["hdr.ipv4.dst_addr"] = "10.0.2.0/24"
        route.action["port"] = "3"
        route.action["dst_mac"] = "00:00:00:00:02:02"
        route.action["src_mac"] = "00:aa:bb:00:00:01"
        route.insert()
        acl = sh.TableEntry("SmokeIngress.acl")(action="SmokeIngress.punt")
        acl.match["std.ingress_port"] = "4&&&0x1ff"
        acl.match["hdr.ethernet.ether_type"] = "0x88cc&&&0xffff"
        acl.priority = 10
        acl.insert()

        # Read back what it wrote, as p4runtime-shell objects.
        (l2,) = sh.TableEntry("SmokeIngress.l2_fwd").read()
        assert l2.action.action_name == "SmokeIngress.forward"
        assert l2.msg().action.action.params[0].value.lstrip(b"\0") == b"\x02"
        (lpm,) = sh.TableEntry("SmokeIngress.ipv4_lpm").read()
        field = lpm.msg().match[0]
        assert (field.lpm.value, field.lpm.prefix_len) == (bytes([10, 0, 2, 0]), 24)
        (tern,) = sh.TableEntry("SmokeIngress.acl").read()
        assert tern.priority == 10
        assert len(list(sh.TableEntry("SmokeIngress.smac").read())) == 1

        # Forwarding through the nanomsg port, with the entries above.
        pkt = eth(host2, host1)
        sw.send(1, pkt)
        assert sw.receive() == (2, pkt)

        # MODIFY through the shell moves the traffic.
        fwd.action["port"] = "5"
        fwd.modify()
        sw.send(1, pkt)
        assert sw.receive() == (5, pkt)

        # Multicast group written with the shell's PRE API.
        sh.MulticastGroupEntry(1).add(2, 1).add(3, 2).insert()
        bcast = sh.TableEntry("SmokeIngress.l2_fwd")(action="SmokeIngress.set_mcast_grp")
        bcast.match["hdr.ethernet.dst_addr"] = "ff:ff:ff:ff:ff:ff"
        bcast.action["group"] = "1"
        bcast.insert()
        sw.send(1, eth("ff:ff:ff:ff:ff:ff", "00:11:22:33:44:55"))
        got = sorted(sw.receive() for _ in range(2))
        assert got == [(2, eth("ff:ff:ff:ff:ff:ff", "00:11:22:33:00:01")),
                       (3, eth("ff:ff:ff:ff:ff:ff", "00:11:22:33:00:02"))]
        (group,) = sh.MulticastGroupEntry(1).read()
        assert sorted((r.egress_port, r.instance) for r in group.replicas) == [(2, 1), (3, 2)]

        # Packet-in: the ACL punts LLDP from port 4 to the CPU with its metadata.
        packet_in = sh.PacketIn()
        lldp = eth("01:80:c2:00:00:0e", host1, 0x88CC, 60)
        sw.send(4, lldp)
        (msg,) = list(packet_in.sniff(timeout=3))
        assert msg.packet.payload == lldp
        md_ids = {m.name: m.id for m in sh.P4Objects(sh.P4Type.controller_packet_metadata)
                  ["packet_in"].metadata}
        values = {m.metadata_id: int.from_bytes(m.value, "big") for m in msg.packet.metadata}
        assert values[md_ids["ingress_port"]] == 4
        assert values[md_ids["reason"]] == 2  # REASON_ACL_PUNT

        # Packet-out: leaves on the port its metadata names, unchanged.
        out = eth("00:00:00:00:00:07", "00:00:00:00:00:08", 0x88B6, 70)
        sh.PacketOut(out, egress_port="6").send()
        assert sw.receive() == (6, out)

        # Counters: rx_port_counter[1] saw the three frames sent on port 1.
        counter = sh.CounterEntry("SmokeIngress.rx_port_counter")
        counter.index = 1
        (cell,) = list(counter.read())
        assert (cell.data.packet_count, cell.data.byte_count) == (3, 3 * 64)
        direct = sh.DirectCounterEntry("SmokeIngress.l2_fwd_counter")
        direct.table_entry.match["hdr.ethernet.dst_addr"] = host2
        (hits,) = list(direct.read())
        assert hits.data.packet_count == 2

        # Deletes: the entry goes, traffic to it is dropped again.
        fwd.delete()
        assert [e.action.action_name for e in sh.TableEntry("SmokeIngress.l2_fwd").read()
                ] == ["SmokeIngress.set_mcast_grp"]
        sw.send(1, pkt)
        sw.expect_nothing()
        # A duplicate insert is refused with the server's error.
        with pytest.raises(P4RuntimeWriteException) as err:
            route.insert()
        assert "ALREADY_EXISTS" in str(err.value)
    finally:
        sh.teardown()
