"""One endpoint on a port nobody drives: a test reads what it posted and hands it
SACKs and NACKs as the NIC would deliver them (docs/mrc-nic.md 4.3)."""

from __future__ import annotations

from host.clock import ManualClock
from host.codec import (
    NackPacket,
    ProbePacket,
    Route,
    WritePacket,
    decode_frame,
    encode_nack,
    encode_sack,
)
from host.config import TransportConfig
from host.endpoint import Endpoint, ipv6_bytes
from host.ports.inprocess import InProcessPort

LOCAL = "2001:db8::1"
PEER = "2001:db8::2"
QP = 5
MAC = bytes(6)
FROM_PEER = Route(MAC, MAC, ipv6_bytes(PEER), ipv6_bytes(LOCAL))

Posted = WritePacket | NackPacket | ProbePacket


class OneEndpoint:
    """An endpoint with QP ``QP`` open toward ``PEER``."""

    def __init__(self, config: TransportConfig | None = None, **endpoint_args: object) -> None:
        self.clock = ManualClock()
        self.port = InProcessPort()
        self.endpoint = Endpoint(self.port, LOCAL, clock=self.clock, config=config,
                                 **endpoint_args)  # type: ignore[arg-type]
        self.endpoint.open_qp(QP, PEER)

    def posted(self) -> list[Posted]:
        """Everything posted since the last call, decoded."""
        return [decode_frame(frame) for frame in self.port.take_sent()]  # type: ignore[misc]

    def sack(self, cumulative: int, bitmap: int = 0, *, offset: int = 1, pr: int = 0,
             ev: int = 0, qp: int = QP, psn: int = 0) -> None:
        """A SACK; ``psn``: the data packet that made it (its round trip is measured)."""
        self.endpoint.handle_frame(encode_sack(
            FROM_PEER, dest_qp=qp, psn=psn, cumulative_psn=cumulative & 0xFFFFFF,
            sack_bitmap=bitmap, sack_offset=offset, pr=pr, echoed_ev=ev))

    def nack(self, psn: int, reason: int) -> None:
        self.endpoint.handle_frame(encode_nack(FROM_PEER, dest_qp=QP, psn=psn,
                                               reason=reason, nack_psn=psn))

    def timer(self) -> None:
        """Jump to the next deadline and run the timers."""
        deadline = self.endpoint.next_deadline()
        assert deadline is not None
        self.clock.set(deadline)
        self.endpoint.on_timer()
