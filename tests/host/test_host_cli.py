"""``mrc-host``: argument errors (exit 2), and write / serve over an nn socket whose
other end is a small stand-in for the NIC switch (it acknowledges or injects frames)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from host_harness import FROM_PEER, LOCAL, PEER

from behavioral_model.ports.nn import MSG_PACKET_OUT, pack_message, unpack_message
from behavioral_model.ports.sp import SPPairListener
from host.cli import main, parse_size
from host.codec import WritePacket, decode_frame, encode_sack
from host.endpoint import Endpoint
from host.ports.inprocess import InProcessPort
from protocol.constants import NIC_HOST_PORT

WAIT_S = 5.0  # bounds a wait; never asserted on


def test_parse_size() -> None:
    assert [parse_size(t) for t in ("4096", "64KiB", "1MiB", "2k", "1G", "7b")] == [
        4096, 65536, 1 << 20, 2048, 1 << 30, 7]


@pytest.mark.parametrize("argv", [
    [],
    ["write"],
    ["write", "--socket", "ipc:///x", "--local", "::1", "--peer", "::2", "--qp", "1"],
    ["write", "--socket", "foo", "--local", "::1", "--peer", "::2", "--qp", "1",
     "--bytes", "1"],
    ["write", "--socket", "ipc:///x", "--local", "10.0.0.1", "--peer", "::2", "--qp", "1",
     "--bytes", "1"],
    ["write", "--socket", "ipc:///x", "--local", "::1", "--peer", "::2", "--qp", "1",
     "--bytes", "1 parsec"],
    ["write", "--socket", "ipc:///x", "--local", "::1", "--peer", "::2",
     "--qp", str(1 << 24), "--bytes", "1"],
    ["write", "--socket", "ipc:///x", "--local", "::1", "--peer", "::2", "--qp", "1",
     "--bytes", "1", "--mtu", "0"],
    ["write", "--socket", "ipc:///x", "--interface", "eth0", "--local", "::1",
     "--peer", "::2", "--qp", "1", "--bytes", "1"],
    ["serve", "--socket", "ipc:///x", "--local", "::1", "--qp", "1", "--region", "0:1MiB"],
    ["serve", "--socket", "ipc:///x", "--local", "::1", "--qp", "1",
     "--region", "0:1KiB:7", "--region", "4096:1KiB:7"],
], ids=["nothing", "no-options", "no-bytes", "bad-socket", "ipv4", "bad-size", "big-qpn",
        "mtu-0", "socket-and-interface", "region-without-rkey", "same-rkey"])
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_help_of_the_module() -> None:
    done = subprocess.run([sys.executable, "-m", "host", "write", "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "--socket" in done.stdout and "--bytes" in done.stdout


class FakeSwitch:
    """The listening end of ``--packet-in``; ``answer(frame)`` gives the frames to send
    back (on NIC_HOST_PORT) for each frame the host posts."""

    def __init__(self, addr: str, answer: Callable[[bytes], list[bytes]]) -> None:
        self.listener = SPPairListener(addr)
        self.answer = answer
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            msgs = self.listener.recv_batch(0.02)
            if msgs is None:
                return
            out = []
            for message in msgs:
                for reply in self.answer(unpack_message(message)[3]):
                    out.append(pack_message(MSG_PACKET_OUT, NIC_HOST_PORT, len(reply), reply))
            if out:
                self.listener.send_many(out, WAIT_S)

    def send(self, frames: list[bytes]) -> None:
        give_up = time.monotonic() + WAIT_S
        while not self.listener.connected and time.monotonic() < give_up:
            time.sleep(0.005)
        self.listener.send_many([pack_message(MSG_PACKET_OUT, NIC_HOST_PORT, len(f), f)
                                 for f in frames], WAIT_S)

    def close(self) -> None:
        self._stop.set()
        self.listener.wake()
        self._thread.join(WAIT_S)
        self.listener.close()


@pytest.fixture
def addr(tmp_path: Path) -> str:
    return f"ipc://{tmp_path}/nic.ipc"


def sack_everything(frame: bytes) -> list[bytes]:
    """A NIC pair that loses nothing: every data packet is acknowledged in order."""
    packet = decode_frame(frame)
    if not isinstance(packet, WritePacket):
        return []
    return [encode_sack(FROM_PEER, dest_qp=packet.dest_qp, psn=packet.psn,
                        cumulative_psn=packet.psn)]


def test_write_over_the_socket(addr: str, capsys: pytest.CaptureFixture[str]) -> None:
    switch = FakeSwitch(addr, sack_everything)
    try:
        code = main(["write", "--socket", addr, "--local", LOCAL, "--peer", PEER,
                     "--qp", "5", "--bytes", "100KiB", "--timeout", "30"])
    finally:
        switch.close()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "wrote 102400 bytes" in out and "packets 100" in out


def test_write_fails_when_nothing_answers(addr: str, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    switch = FakeSwitch(addr, lambda _frame: [])
    try:
        code = main(["write", "--socket", addr, "--local", LOCAL, "--peer", PEER,
                     "--qp", "5", "--bytes", "1", "--rto", "0.001"])
    finally:
        switch.close()
    assert code == 1
    assert "write failed" in capsys.readouterr().err


def test_write_to_a_socket_nobody_listens_on(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["write", "--socket", f"ipc://{tmp_path}/none.ipc", "--local", LOCAL,
                 "--peer", PEER, "--qp", "5", "--bytes", "1", "--connect-timeout", "0.01"])
    assert code == 1 and "cannot open" in capsys.readouterr().err


def test_serve_prints_each_message(addr: str, capsys: pytest.CaptureFixture[str]) -> None:
    peer_port = InProcessPort()
    peer = Endpoint(peer_port, PEER)
    peer.open_qp(5, LOCAL)
    peer.write(5, bytes(3000), 0x100, rkey=7, imm=0x42)
    switch = FakeSwitch(addr, lambda _frame: [])
    switch_thread = threading.Thread(target=switch.send, args=(peer_port.take_sent(),))
    switch_thread.start()
    try:
        code = main(["serve", "--socket", addr, "--local", LOCAL, "--qp", "5",
                     "--region", "0:64KiB:7", "--count", "1", "--timeout", "30"])
    finally:
        switch_thread.join(WAIT_S)
        switch.close()
    assert code == 0
    assert "QP 5 message 0: 3000 bytes at 0x100 rkey 0x7 imm 0x42 (ok)" in (
        capsys.readouterr().out)
