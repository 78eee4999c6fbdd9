"""Packet ports: the in-process link, the nn socket (against the switch's own listener,
with BMv2's packet-in framing) and a raw socket on a veth pair (root only)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from behavioral_model.ports.nn import (
    MSG_INFO_REP,
    MSG_PACKET_IN,
    MSG_PACKET_OUT,
    pack_message,
    unpack_message,
)
from behavioral_model.ports.sp import SPPairListener
from host.ports.inprocess import InProcessPort, in_process_link
from host.ports.nanomsg import NanomsgPort
from host.ports.raw import RawSocketPort
from protocol.constants import NIC_HOST_PORT

WAIT_S = 5.0  # an upper bound for a local socket to pass a message; never asserted on


def test_in_process_link_delivers_on_poll_only() -> None:
    a, b = in_process_link()
    got: list[bytes] = []
    b.set_receiver(got.append)
    a.send(b"one")
    a.send(b"two")
    assert got == [] and b.pending == 2  # nothing re-enters the receiver from send()
    assert b.poll() == 2 and got == [b"one", b"two"]
    assert (a.sent, b.received) == (2, 2)


def test_in_process_port_without_peer_keeps_what_it_sends() -> None:
    port = InProcessPort()
    got: list[bytes] = []
    port.set_receiver(got.append)
    port.send(b"out")
    port.deliver(b"in")
    assert port.take_sent() == [b"out"] and port.take_sent() == []
    assert port.poll() == 1 and got == [b"in"]


class Listening:
    """The switch's side of ``--packet-in``: our PAIR listener, its loop in a thread."""

    def __init__(self, addr: str) -> None:
        self.listener = SPPairListener(addr)
        self.got: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            msgs = self.listener.recv_batch(0.02)
            if msgs is None:
                return
            self.got.extend(msgs)

    def wait_for(self, count: int) -> list[bytes]:
        give_up = time.monotonic() + WAIT_S
        while len(self.got) < count and time.monotonic() < give_up:
            time.sleep(0.005)
        return self.got

    def wait_connected(self) -> None:
        give_up = time.monotonic() + WAIT_S
        while not self.listener.connected and time.monotonic() < give_up:
            time.sleep(0.005)

    def close(self) -> None:
        self._stop.set()
        self.listener.wake()
        self._thread.join(WAIT_S)
        self.listener.close()


@pytest.fixture
def switch_socket(tmp_path: Path) -> Iterator[tuple[str, Listening]]:
    addr = f"ipc://{tmp_path}/nic.ipc"
    listening = Listening(addr)
    yield addr, listening
    listening.close()


def test_nanomsg_port_posts_packet_in_on_the_host_port(
        switch_socket: tuple[str, Listening]) -> None:
    addr, listening = switch_socket
    port = NanomsgPort(addr)
    try:
        port.send(b"frame-1")
        (message,) = listening.wait_for(1)
        assert unpack_message(message) == (MSG_PACKET_IN, NIC_HOST_PORT, 7, b"frame-1")
    finally:
        port.close()


def test_nanomsg_port_keeps_only_packet_out_of_its_port(
        switch_socket: tuple[str, Listening]) -> None:
    addr, listening = switch_socket
    port = NanomsgPort(addr)
    got: list[bytes] = []
    port.set_receiver(got.append)
    try:
        listening.wait_connected()
        listening.listener.send_many([
            pack_message(MSG_PACKET_OUT, 3, 5, b"plane"),       # a fabric port's frame
            pack_message(MSG_INFO_REP, NIC_HOST_PORT, 0, b""),  # not a frame
            b"\x01\x02",                                        # shorter than the header
            pack_message(MSG_PACKET_OUT, NIC_HOST_PORT, 4, b"mine"),
        ], WAIT_S)
        give_up = time.monotonic() + WAIT_S
        while not got and time.monotonic() < give_up:
            port.poll(0.05)
        assert got == [b"mine"] and port.ignored == 3
    finally:
        port.close()


def test_nanomsg_port_cannot_connect(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        NanomsgPort(f"ipc://{tmp_path}/nobody.ipc", connect_timeout_s=0.0)


@pytest.fixture
def veth_pair() -> Iterator[tuple[str, str]]:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root (CAP_NET_RAW and CAP_NET_ADMIN) and iproute2 to create "
                    "a veth pair for the raw-socket port")
    tag = uuid.uuid4().hex[:8]
    a, b = f"mh{tag}a", f"mh{tag}b"
    made = subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"needs root to create a veth pair: {made.stderr.strip()}")
    try:
        for name in (a, b):
            subprocess.run(["ip", "link", "set", name, "up"], check=True)
        yield a, b
    finally:
        subprocess.run(["ip", "link", "del", a], capture_output=True)


def test_raw_socket_port_on_a_veth_pair(veth_pair: tuple[str, str]) -> None:
    a_name, b_name = veth_pair
    a, b = RawSocketPort(a_name), RawSocketPort(b_name)
    got: list[bytes] = []
    b.set_receiver(got.append)
    mine: list[bytes] = []
    a.set_receiver(mine.append)
    # An Ethernet frame of an unused ethertype, so the kernel adds nothing of its own.
    frame = bytes.fromhex("020000000002" "020000000001" "88b5") + b"mrc host" * 8
    try:
        a.send(frame)
        give_up = time.monotonic() + WAIT_S
        while frame not in got and time.monotonic() < give_up:
            b.poll(0.05)
        assert frame in got
        a.poll(0.0)
        assert frame not in mine  # our own transmission is not received back
    finally:
        a.close()
        b.close()
