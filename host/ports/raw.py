"""A Linux network interface (a veth, a tap, a NIC) as the host port, through a raw
AF_PACKET socket. Needs CAP_NET_RAW (root). Frames the kernel reports as this
socket's own transmissions are skipped, so a sent frame is not received back."""

from __future__ import annotations

import select
import socket

from . import Receiver

__all__ = ["RawSocketPort"]

_ETH_P_ALL = 0x0003
_PACKET_OUTGOING = 4  # sll_pkttype of frames this host sent
_RECV_SIZE = 65536 + 64


class RawSocketPort:
    """Frames in and out of interface ``iface``; OSError (e.g. PermissionError
    without root) if the socket cannot be opened."""

    def __init__(self, iface: str) -> None:
        self.iface = iface
        self._receiver: Receiver | None = None
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                   socket.htons(_ETH_P_ALL))
        try:
            self._sock.bind((iface, 0))
            self._sock.setblocking(False)
        except OSError:
            self._sock.close()
            raise

    def send(self, frame: bytes) -> None:
        self._sock.send(frame)

    def set_receiver(self, receiver: Receiver | None) -> None:
        self._receiver = receiver

    def poll(self, timeout_s: float = 0.0) -> int:
        ready, _, _ = select.select([self._sock], [], [], timeout_s)
        if not ready:
            return 0
        delivered = 0
        while True:
            try:
                frame, addr = self._sock.recvfrom(_RECV_SIZE)
            except BlockingIOError:
                return delivered
            if addr[2] == _PACKET_OUTGOING:
                continue
            delivered += 1
            if self._receiver is not None:
                self._receiver(frame)

    def close(self) -> None:
        self._sock.close()
