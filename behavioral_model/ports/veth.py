"""``-i PORT@IFACE``: switch ports on Linux network interfaces (veths, taps, NICs)
through raw ``AF_PACKET`` sockets, like BMv2's BMI ports. Needs CAP_NET_RAW (root).

Each interface gets one socket bound to it with ``ETH_P_ALL``, in promiscuous mode, and
one receive thread. Frames the kernel reports as our own transmissions
(``PACKET_OUTGOING``) are skipped, so a frame sent out of a port is not received back
on it.
"""

from __future__ import annotations

import logging
import select
import socket
import struct
import threading

from . import Deliver, PortInfo

__all__ = ["InterfacePorts", "parse_interface_option"]

log = logging.getLogger("behavioral_model.ports.veth")

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
RECV_SIZE = 65536 + 64
POLL_S = 0.1


def parse_interface_option(text: str) -> tuple[int, str]:
    """``"1@veth0"`` -> (1, "veth0"), as BMv2's ``-i``/``--interface``."""
    port_text, sep, iface = text.partition("@")
    if not sep or not iface:
        raise ValueError(f"interface {text!r}: expected PORT@IFACE")
    try:
        port = int(port_text, 0)
    except ValueError:
        raise ValueError(f"interface {text!r}: port must be a number") from None
    if port < 0:
        raise ValueError(f"interface {text!r}: port must be >= 0")
    return port, iface


def _set_promiscuous(sock: socket.socket, iface: str) -> None:
    index = socket.if_nametoindex(iface)
    mreq = struct.pack("iHH8s", index, PACKET_MR_PROMISC, 0, b"")
    sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)


class InterfacePorts:
    """Ports on network interfaces: ``{port: interface name}``."""

    def __init__(self, interfaces: dict[int, str]) -> None:
        self.interfaces = dict(interfaces)
        self._socks: dict[int, socket.socket] = {}
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        try:
            for port, iface in self.interfaces.items():
                sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                     socket.htons(ETH_P_ALL))
                self._socks[port] = sock
                sock.bind((iface, 0))
                _set_promiscuous(sock, iface)
        except OSError as error:
            self.close()
            raise OSError(f"cannot open interface ports: {error}") from None

    def start(self, deliver: Deliver) -> None:
        if self._threads:
            return
        for port, sock in self._socks.items():
            thread = threading.Thread(target=self._receive_loop, args=(port, sock, deliver),
                                      name=f"bm-if-rx-{port}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def owns(self, port: int) -> bool:
        return port in self._socks

    def port_info(self) -> dict[int, PortInfo]:
        return {p: PortInfo(p, name, True) for p, name in self.interfaces.items()}

    def transmit(self, port: int, data: bytes) -> None:
        sock = self._socks.get(port)
        if sock is None or self._stop.is_set():
            return
        try:
            sock.send(data)
        except OSError as error:
            log.warning("port %d (%s): send failed: %s", port, self.interfaces[port], error)

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=5)
        self._threads.clear()
        for sock in self._socks.values():
            sock.close()
        self._socks.clear()

    def _receive_loop(self, port: int, sock: socket.socket, deliver: Deliver) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([sock], [], [], POLL_S)
                if not ready:
                    continue
                data, addr = sock.recvfrom(RECV_SIZE)
            except (OSError, ValueError):
                if self._stop.is_set():
                    break
                log.exception("port %d: receive failed", port)
                continue
            if len(addr) > 2 and addr[2] == PACKET_OUTGOING:
                continue
            deliver(port, data)
