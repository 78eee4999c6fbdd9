"""``-i PORT@IFACE`` on veth pairs (raw AF_PACKET). This optional mode needs root and
the right to create veths; the test is skipped cleanly otherwise. The option parser is
tested everywhere."""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from behavioral_model.ports.veth import InterfacePorts, parse_interface_option
from behavioral_model.switch import SwitchCore

FORWARD_P4 = (Path(__file__).parent / "p4" / "forward_next_port.p4").read_text()


def test_parse_interface_option() -> None:
    assert parse_interface_option("1@veth0") == (1, "veth0")
    assert parse_interface_option("0x10@eth1") == (16, "eth1")
    for bad in ("veth0", "1@", "x@veth0", "-1@veth0"):
        with pytest.raises(ValueError):
            parse_interface_option(bad)


def _ip(*args: str) -> bool:
    return subprocess.run(["ip", *args], capture_output=True).returncode == 0


@pytest.fixture
def veth_pairs():
    """Two veth pairs: (switch side, test side) x 2."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 to create veth pairs")
    tag = uuid.uuid4().hex[:5]
    pairs = [(f"bm{tag}a{i}", f"bm{tag}b{i}") for i in range(2)]
    made = []
    try:
        for inside, outside in pairs:
            if not _ip("link", "add", inside, "type", "veth", "peer", "name", outside):
                pytest.skip("cannot create veth pairs here")
            made.append(inside)
            for name in (inside, outside):
                subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"],
                               capture_output=True)
                _ip("link", "set", name, "up")
        yield pairs
    finally:
        for inside in made:
            _ip("link", "del", inside)


def _raw(iface: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    sock.bind((iface, 0))
    return sock


def test_frames_cross_the_switch_on_veths(veth_pairs) -> None:
    from behavioral_model.program import load_program_text

    (in0, out0), (in1, out1) = veth_pairs
    program = load_program_text(FORWARD_P4, "forward.p4")
    core = SwitchCore(0)
    core.set_pipeline(program, None, 0)
    core.add_port_backend(InterfacePorts({1: in0, 2: in1}))
    core.start()
    tx, rx = _raw(out0), _raw(out1)
    try:
        marker = uuid.uuid4().bytes
        frame = b"\x02" * 6 + b"\x04" * 6 + b"\x88\xb5" + marker + bytes(30)
        tx.send(frame)
        end = time.monotonic() + 5
        got = None
        while time.monotonic() < end and got is None:
            ready, _, _ = select.select([rx], [], [], 0.2)
            if ready:
                data = rx.recv(2048)
                if marker in data:
                    got = data
        assert got is not None, "frame did not come out of port 2"
        assert got[:6] == frame[:6] and got[6:12] == b"\xaa" * 6
        assert got[12:len(frame)] == frame[12:]
    finally:
        tx.close()
        rx.close()
        core.stop()
