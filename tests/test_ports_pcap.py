"""``--pcap DIR``: per-port in/out pcap files, readable by scapy, written while the
switch runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from port_sink import Sink

from behavioral_model.ports.pcap import PcapRecorder, PcapWriter, read_pcap
from behavioral_model.program import load_program_text
from behavioral_model.switch import SwitchCore

FORWARD_P4 = (Path(__file__).parent / "p4" / "forward_next_port.p4").read_text()


def test_writer_round_trip_and_scapy_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "x.pcap"
    writer = PcapWriter(path)
    writer.write(b"\x01" * 60, timestamp=1700000000.25)
    writer.write(b"\x02" * 14)
    # flushed after each record: readable before close
    records = read_pcap(path)
    assert [data for _, data in records] == [b"\x01" * 60, b"\x02" * 14]
    assert records[0][0] == pytest.approx(1700000000.25)
    writer.close()
    scapy_utils = pytest.importorskip("scapy.utils")
    packets = scapy_utils.rdpcap(str(path))
    assert [bytes(p) for p in packets] == [b"\x01" * 60, b"\x02" * 14]


def test_recorder_names_and_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        PcapRecorder(tmp_path / "nope")
    recorder = PcapRecorder(tmp_path, names={1: "veth0"})
    assert recorder.path(1, "in").name == "veth0_in.pcap"
    assert recorder.path(7, "out").name == "port7_out.pcap"
    recorder.received(7, b"abc")
    recorder.close()
    recorder.received(7, b"ignored after close")
    assert [d for _, d in read_pcap(tmp_path / "port7_in.pcap")] == [b"abc"]


def test_switch_records_every_port(tmp_path: Path) -> None:
    program = load_program_text(FORWARD_P4, "forward.p4")
    sink = Sink()
    core = SwitchCore(0, pcap=PcapRecorder(tmp_path))
    core.set_pipeline(program, None, 0)
    core.add_port_backend(sink)
    core.start()
    try:
        frame = bytes(range(14)) + b"payload"
        core.receive(1, frame)
        core.receive(3, frame)
        sent = [sink.get(), sink.get()]
    finally:
        core.stop()
    out = bytes(range(6)) + b"\xaa" * 6 + frame[12:]
    assert sent == [(2, out), (4, out)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "port1_in.pcap", "port2_out.pcap", "port3_in.pcap", "port4_out.pcap"]
    assert [d for _, d in read_pcap(tmp_path / "port1_in.pcap")] == [frame]
    assert [d for _, d in read_pcap(tmp_path / "port4_out.pcap")] == [out]
