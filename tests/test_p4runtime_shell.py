"""Interop with p4runtime-shell, the client users reach for: push a pipeline (P4Info
file + our P4 source bundle as the "binary"), insert/read/delete entries, packet-out
and packet-in, all through its Python API."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_p4runtime_helpers import SWITCH, Harness, harness

from behavioral_model.frontend.p4info import generate_p4info, write_p4info
from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.program import load_program

sh = pytest.importorskip("p4runtime_sh.shell")

__all__ = ["harness"]


def frame(dst: int, src: int) -> bytes:
    return dst.to_bytes(6, "big") + src.to_bytes(6, "big") + b"\x08\x00" + bytes(50)


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
