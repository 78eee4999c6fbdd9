"""``python -m fabric.procs run ... --pcap DIR`` (docs/procs.md, docs/wireshark.md): a
small transfer on the small fabric's processes (nn wiring, no root) records every
device's ports in DIR/<device>/, and tshark with the MRC plugin decodes a NIC's
fabric port and its T0's uplinks field by field as scapy parses them
(tests/test_wireshark.py's check). Nothing here depends on how long anything takes."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from scapy.packet import Packet
from scapy.utils import rdpcap

from fabric.procs.launcher import switch_command
from fabric.procs.layout import DeviceSpec, FabricLayout
from fabric.procs.pcaps import with_pcaps
from fabric.procs.wiring import WiringError, fabric_setup
from protocol import constants as c
from tests.fabric_procs.helpers import ROOT
from tests.fabric_procs.test_procs_scenarios import checks, scenario_file
from tests.test_wireshark import (
    assert_tshark_equals_scapy,
    needs_tshark,
    registered_fields,
    scapy_values,
)

NIC, NIC_PORT = "nic0", 1  # the sender of qp-a, its plane-0 port


@dataclass(frozen=True)
class Capture:
    pcaps: Path
    layout: FabricLayout
    report: dict

    def nic_pcap(self, direction: str) -> Path:
        return self.pcaps / NIC / f"port{NIC_PORT}_{direction}.pcap"

    def t0_uplinks(self) -> list[Path]:
        """The pcaps of what the NIC's T0 sent up to its T1s."""
        roles = {d.name: d.role for d in self.layout.devices}
        ends = [(cable.a, cable.b) for cable in self.layout.cables] + \
            [(cable.b, cable.a) for cable in self.layout.cables]
        t0 = next(b.device for a, b in ends if (a.device, a.port) == (NIC, NIC_PORT))
        return [self.pcaps / t0 / f"port{a.port}_out.pcap" for a, b in ends
                if a.device == t0 and roles[b.device] == "t1"]


@pytest.fixture(scope="module")
def capture() -> Iterator[Capture]:
    with tempfile.TemporaryDirectory(prefix="fp-") as tmp:  # short: socket paths
        folder = Path(tmp)
        path = scenario_file(folder, "spray", "workloads:\n  - {qp: qp-a, bytes: 16KiB}\n")
        run = subprocess.run([sys.executable, "-m", "fabric.procs", "run", str(path),
                              "--json", "--workdir", str(folder / "run"),
                              "--pcap", str(folder / "pcap")],
                             capture_output=True, text=True, timeout=900, cwd=ROOT)
        assert "Traceback" not in run.stderr, run.stderr
        report = json.loads(run.stdout)
        layout = fabric_setup(folder / "small.yaml", folder / "run").layout
        yield Capture(folder / "pcap", layout, report)


def test_every_device_records_its_ports(capture: Capture) -> None:
    assert checks(capture.report)["transfer intact"], capture.report
    assert {p.name for p in capture.pcaps.iterdir()} == \
        {d.name for d in capture.layout.devices}
    # what the host posted, and the sender's fabric port each way (nn ports: portN)
    assert {p.name for p in (capture.pcaps / NIC).glob("*.pcap")} >= \
        {f"port{c.NIC_HOST_PORT}_in.pcap", f"port{NIC_PORT}_in.pcap", f"port{NIC_PORT}_out.pcap"}
    assert capture.t0_uplinks() and all(p.exists() for p in capture.t0_uplinks())
    assert len(rdpcap(str(capture.nic_pcap("out")))) > 0


def _mrc(pcap: Path, home: Path, fields: list[str]) -> list[dict[str, list[int]]]:
    """scapy's parse of each MRC frame of ``pcap``, once tshark's has been found equal."""
    frames: list[Packet] = assert_tshark_equals_scapy(pcap, fields, home)
    return [scapy_values(frame) for frame in frames]


@needs_tshark
def test_tshark_decodes_a_nic_and_its_t0_like_scapy(capture: Capture,
                                                    tmp_path: Path) -> None:
    fields = registered_fields(tmp_path)
    sent = _mrc(capture.nic_pcap("out"), tmp_path, fields)
    received = _mrc(capture.nic_pcap("in"), tmp_path, fields)
    # the NIC sprayed writes out of its fabric port and got SACKs back on it
    assert {v["mrc.bth.opcode"][0] for v in sent} & c.WRITE_OPCODES
    assert c.OPCODE_SACK in {v["mrc.bth.opcode"][0] for v in received}
    assert all(v.get("mrc.carrier.usid") for v in sent + received)  # encapsulated

    def key(v: dict[str, list[int]]) -> tuple[int, ...]:
        return v["mrc.ev"][0], v["mrc.bth.opcode"][0], v["mrc.bth.psn"][0]

    carriers: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for v in sent:
        carriers.setdefault(key(v), set()).add(tuple(v["mrc.carrier.usid"]))
    up = [v for pcap in capture.t0_uplinks() if pcap.exists()
          for v in _mrc(pcap, tmp_path, fields)]
    assert up
    # The T0 forwards on the T1 uSID after shifting its own out of the carrier
    # (docs/mrc-protocol.md section 2): each frame it sent up left the NIC with one
    # uSID more in front.
    for v in up:
        assert tuple(v["mrc.carrier.usid"]) in {u[1:] for u in carriers[key(v)]}, v


def test_pcap_on_a_bm_and_a_bmv2_command_line() -> None:
    bm = DeviceSpec("s", "t0", 1, "127.0.0.1:9", "ipc:///tmp/s.ipc", "/tmp/s.log",
                    pcap_dir="/tmp/p/s")
    command = switch_command(bm)
    assert command[command.index("--pcap") + 1] == "/tmp/p/s"
    bmv2 = DeviceSpec("s", "t0", 1, "127.0.0.1:9", "", "/tmp/s.log",
                      interfaces=((1, "a"),), target="bmv2", pcap_dir="/tmp/p/s")
    command = switch_command(bmv2)
    # BMv2's value is optional: attached with "=", among the generic options
    assert "--pcap=/tmp/p/s" in command[:command.index("--")]
    assert "--pcap" not in switch_command(DeviceSpec("s", "t0", 1, "", "", ""))


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabric.procs", *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_a_pcap_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    small = ROOT / "fabric" / "topologies" / "small.yaml"
    for args in (["up", small], ["run", "spray"]):
        done = _cli(*args, "--workdir", tmp_path / "w", "--pcap", blocker / "pcap")
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert f"cannot create {blocker / 'pcap'}" in done.stderr
    assert not (tmp_path / "w" / "fabric.json").exists()  # nothing was started


def test_bmv2_records_only_on_veths(tmp_path: Path) -> None:
    # BMv2 records its -i interfaces only; with --packet-in (nn wiring) it has none
    setup = fabric_setup(ROOT / "fabric" / "topologies" / "small.yaml", tmp_path)
    devices = tuple(dataclasses.replace(d, target="bmv2") for d in setup.layout.devices)
    bmv2 = dataclasses.replace(setup, layout=dataclasses.replace(setup.layout,
                                                                 devices=devices))
    with pytest.raises(WiringError, match="--wiring veth"):
        with_pcaps(bmv2, tmp_path / "pcap")
    recorded = with_pcaps(setup, tmp_path / "pcap")
    assert {d.pcap_dir for d in recorded.layout.devices} == \
        {str((tmp_path / "pcap" / d.name).resolve()) for d in setup.layout.devices}
    assert with_pcaps(setup, None) is setup
