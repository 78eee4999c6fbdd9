"""The NIC's host port on a bm / BMv2 ``--packet-in`` socket (nanomsg PAIR).

The switch process listens; this port dials it, as PTF's ``nn`` platform does. Every
message carries BMv2's ``packet_hdr_t`` (type, port, more) before the frame
(``behavioral_model/ports/nn.py``): frames the host posts go in as PACKET_IN on port
NIC_HOST_PORT, and of the PACKET_OUT frames the switch sends back (every port's output
comes through the one socket) only those of NIC_HOST_PORT are the host's; the others
are counted in ``ignored``.
"""

from __future__ import annotations

from behavioral_model.ports.nn import MSG_PACKET_IN, MSG_PACKET_OUT, pack_message, unpack_message
from behavioral_model.ports.sp_dialer import SPPairDialer
from protocol.constants import NIC_HOST_PORT

from . import Receiver

__all__ = ["NanomsgPort"]


class NanomsgPort:
    """Port ``port`` (default NIC_HOST_PORT) of the switch listening at ``addr``
    (``ipc://PATH`` or ``tcp://HOST:PORT``). Connecting retries for
    ``connect_timeout_s`` while the switch starts; OSError if it never answers."""

    def __init__(self, addr: str, *, port: int = NIC_HOST_PORT,
                 connect_timeout_s: float = 10.0) -> None:
        self.addr = addr
        self.port = port
        self.ignored = 0  # messages that were not PACKET_OUT frames of our port
        self._receiver: Receiver | None = None
        self._dialer = SPPairDialer(addr, connect_timeout_s)

    def send(self, frame: bytes) -> None:
        self._dialer.send_many([pack_message(MSG_PACKET_IN, self.port, len(frame), frame)])

    def set_receiver(self, receiver: Receiver | None) -> None:
        self._receiver = receiver

    def poll(self, timeout_s: float = 0.0) -> int:
        """Deliver what arrived within ``timeout_s``; ConnectionError if the switch
        closed the socket."""
        delivered = 0
        for message in self._dialer.recv_batch(timeout_s):
            try:
                kind, port, _more, frame = unpack_message(message)
            except ValueError:
                self.ignored += 1
                continue
            if kind != MSG_PACKET_OUT or port != self.port:
                self.ignored += 1
                continue
            delivered += 1
            if self._receiver is not None:
                self._receiver(frame)
        return delivered

    def close(self) -> None:
        self._dialer.close()
