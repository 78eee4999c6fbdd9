"""The sending half of a RoCE QP: go-back-N (InfiniBand RC, IBTA vol. 1 9.7.5.1).

A RoCE responder accepts packets only in PSN order and answers the first out-of-order
one with a NAK (PSN sequence error) carrying the PSN it expects; the requester then
resends everything from that PSN on. The MRC NIC's receiver keeps a 64-PSN bitmap
instead, so here a SACK whose bitmap shows a PSN past a hole stands for the NAK: the
sender reads only its cumulative PSN (the expected PSN - 1) and the fact that a later
PSN arrived, never which ones (no selective repeat). One go-back per hole: until the
cumulative PSN moves, further SACKs of the same hole are ignored, as a responder sends
one NAK per sequence error. A NACK of any reason (trims, a full window) is a NAK too.
A timeout (RC's local ACK timeout) also goes back to the first unacknowledged PSN,
with the same backoff as the MRC sender. No loss reports, no probes: a RoCE QP has
one path and no EVs to retire.

With ``dcqcn`` the QP sends at DCQCN's rate (``host/roce/dcqcn.py``), new packets and
resent ones alike: below the line rate the host paces them (a frame may go when the
previous one has had its time on the wire at that rate, as the NIC's rate limiter
lets it); at the line rate the NIC's port is the only limit. A SACK with the ECN echo
is DCQCN's CNP.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable

from protocol.constants import (
    OPCODE_WRITE_FIRST,
    OPCODE_WRITE_LAST,
    OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_MIDDLE,
    OPCODE_WRITE_ONLY,
    OPCODE_WRITE_ONLY_IMM,
    SACK_MARK_SKIP_ONCE,
)

from ..clock import Clock
from ..codec import NIC_ENCAP_BYTES, NackPacket, Route, SackPacket, encode_write, with_retransmit
from ..completions import WriteError, WriteHandle
from ..config import TransportConfig
from ..psn import unwrap_psn, wire_psn
from ..stats import QpStats
from .dcqcn import Dcqcn, DcqcnConfig

__all__ = ["GoBackNSender"]

_MSG_SEQ_MASK = 0xFFFF


class _Message:
    __slots__ = ("handle", "data", "remote_addr", "rkey", "imm", "offset", "last_psn")

    def __init__(self, handle: WriteHandle, data: memoryview, remote_addr: int, rkey: int,
                 imm: int | None) -> None:
        self.handle = handle
        self.data = data
        self.remote_addr = remote_addr
        self.rkey = rkey
        self.imm = imm
        self.offset = 0
        self.last_psn: int | None = None  # known once the last packet is posted


class GoBackNSender:
    """Writes of one RoCE QP; ``post(frame)`` hands a frame to the NIC's host port.
    The same interface as ``host.sender.QpSender`` where an endpoint uses it."""

    def __init__(self, qpn: int, route: Route, config: TransportConfig, clock: Clock,
                 post: Callable[[bytes], None], stats: QpStats,
                 dcqcn: DcqcnConfig | None = None) -> None:
        self.qpn = qpn
        self.route = route
        self.config = config
        self.clock = clock
        self.stats = stats
        self.error: WriteError | None = None
        self._post = post
        self._queue: deque[_Message] = deque()  # messages not fully posted
        self._unacked: deque[_Message] = deque()  # posted, not yet acknowledged whole
        self._frames: OrderedDict[int, bytes] = OrderedDict()  # PSN -> frame, unacked
        self._next_psn = 0
        self._cum = -1
        self._next_msg_seq = 0
        self._went_back_at: int | None = None  # the cumulative PSN of the last go-back
        self._timeouts = 0
        self._sent_at = 0.0  # when the oldest unacknowledged PSN was last sent
        self._resend: deque[int] = deque()  # PSNs to send again (a go-back), in order
        self.dcqcn = Dcqcn(dcqcn, clock.now()) if dcqcn is not None else None
        self._next_tx = 0.0  # with DCQCN: when the next frame may be posted

    @property
    def idle(self) -> bool:
        return not self._queue and not self._frames and not self._resend

    @property
    def cumulative_psn(self) -> int:
        return self._cum

    def write(self, data: memoryview, remote_addr: int, rkey: int,
              imm: int | None) -> WriteHandle:
        handle = WriteHandle(self.qpn, self._next_msg_seq, len(data), remote_addr)
        self._next_msg_seq = (self._next_msg_seq + 1) & _MSG_SEQ_MASK
        self.stats.writes_posted += 1
        if self.error is not None:
            self.stats.writes_failed += 1
            handle._finish(self.error)
            return handle
        self._queue.append(_Message(handle, data, remote_addr, rkey, imm))
        self._pump()
        return handle

    def probe(self, ev: int) -> int:
        raise ValueError("a RoCE QP has one path: there is no EV to probe")

    # -- posting ---------------------------------------------------------------------
    def _paced(self) -> bool:
        """True when DCQCN's rate holds the next frame back."""
        return self.dcqcn is not None and self.clock.now() < self._next_tx

    def _send(self, frame: bytes) -> None:
        self._post(frame)
        if self.dcqcn is not None:
            now = self.clock.now()
            wire = len(frame) + NIC_ENCAP_BYTES
            if self.dcqcn.limited(now):
                rate = self.dcqcn.rate_bps(now)
                self._next_tx = max(self._next_tx, now) + wire * 8 / rate
            self.dcqcn.on_sent(wire)

    def _pump(self) -> None:
        """Resent PSNs first, then new packets while the window (PSNs past the
        cumulative one) allows, as DCQCN's rate lets them go."""
        while self._resend and not self._paced():
            psn = self._resend.popleft()
            frame = self._frames.get(psn)
            if frame is None:  # acknowledged since the go-back
                continue
            frame = with_retransmit(frame)
            self._frames[psn] = frame
            self._send(frame)
            self.stats.retransmits += 1
        mtu = self.config.mtu
        limit = self._cum + self.config.window
        while self._queue and self._next_psn <= limit and not self._resend \
                and not self._paced():
            message = self._queue[0]
            offset = message.offset
            size = min(mtu, len(message.data) - offset)
            first, last = offset == 0, offset + size >= len(message.data)
            psn = self._next_psn
            self._next_psn += 1
            frame = encode_write(
                self.route, opcode=_opcode(first, last, message.imm is not None),
                dest_qp=self.qpn, psn=wire_psn(psn), msg_seq=message.handle.msg_seq,
                virtual_addr=message.remote_addr + offset, rkey=message.rkey,
                payload=bytes(message.data[offset:offset + size]),
                imm=message.imm if last else None, ack_req=last)
            message.offset = offset + size
            if first:
                message.handle.first_psn = psn
            if last:
                message.handle.last_psn = message.last_psn = psn
                message.data = memoryview(b"")
                self._queue.popleft()
                self._unacked.append(message)
            if not self._frames:
                self._sent_at = self.clock.now()
            self._frames[psn] = frame
            self._send(frame)
            self.stats.packets_sent += 1
            self.stats.bytes_sent += size

    def _go_back(self) -> None:
        """Send every unacknowledged PSN again, oldest first (BTH Retransmit set: the
        NIC keeps the PSN)."""
        self._went_back_at = self._cum
        self._sent_at = self.clock.now()
        self._resend = deque(self._frames)
        self._pump()

    # -- acknowledgements --------------------------------------------------------------
    def on_sack(self, sack: SackPacket) -> None:
        self.stats.sacks += 1
        cum = unwrap_psn(sack.cumulative_psn, self._cum)
        if cum >= self._next_psn:
            self.stats.sacks_ignored += 1
            return
        done = []
        if cum > self._cum:
            self._timeouts = 0
            for psn in range(self._cum + 1, cum + 1):
                self._frames.pop(psn, None)
            self._cum = cum
            self._sent_at = self.clock.now()
            while self._unacked and self._unacked[0].last_psn is not None \
                    and self._unacked[0].last_psn <= cum:
                message = self._unacked.popleft()
                self.stats.writes_completed += 1
                done.append(message.handle)
        if sack.mark == SACK_MARK_SKIP_ONCE and self.dcqcn is not None:
            self.dcqcn.on_cnp(self.clock.now())  # the ECN echo: DCQCN's CNP
        if _past_a_hole(sack) and self._frames and self._went_back_at != self._cum:
            self.stats.retransmits_gap += 1
            self._go_back()  # a later PSN arrived past a hole: the NAK of RC
        self._pump()
        for handle in done:
            handle._finish(None)

    def on_nack(self, nack: NackPacket) -> None:
        self.stats.nacks += 1
        self.stats.nacks_other += 1
        if self._frames and self._went_back_at != self._cum:
            self._go_back()

    # -- timer -----------------------------------------------------------------------
    def _rto_deadline(self) -> float | None:
        if not self._frames:
            return None
        return self._sent_at + self.config.rto_after(self._timeouts)

    def deadline(self) -> float | None:
        """The RTO's deadline, or earlier when DCQCN holds back a frame ready to go."""
        rto = self._rto_deadline()
        ready = bool(self._resend) or (bool(self._queue) and
                                       self._next_psn <= self._cum + self.config.window)
        if ready and self._paced():
            return self._next_tx if rto is None else min(rto, self._next_tx)
        return rto

    def on_timer(self) -> None:
        rto = self._rto_deadline()
        if rto is None or self.clock.now() < rto:
            self._pump()
            return
        if self._timeouts >= self.config.max_retries:
            self._fail(WriteError(f"QP {self.qpn}: PSN {self._cum + 1} not acknowledged "
                                  f"after {self._timeouts} timeouts"))
            return
        self._timeouts += 1
        self.stats.timeouts += 1
        self.stats.retransmits_timeout += len(self._frames)
        self._go_back()

    def _fail(self, error: WriteError) -> None:
        self.error = error
        handles = [m.handle for m in (*self._unacked, *self._queue)]
        self._unacked.clear()
        self._queue.clear()
        self._frames.clear()
        self._resend.clear()
        for handle in handles:
            self.stats.writes_failed += 1
            handle._finish(error)


def _past_a_hole(sack: SackPacket) -> bool:
    """True when the SACK shows a PSN past the first missing one (cumulative + 1)
    arrived. Bit i of the bitmap is PSN cumulative + sack_offset + i, and the bits
    at or below the cumulative PSN are ones (docs/mrc-nic.md 4.3): only those from
    cumulative + 2 on count."""
    first = max(0, 2 - sack.sack_offset)
    return first < 64 and sack.sack_bitmap >> first != 0


def _opcode(first: bool, last: bool, imm: bool) -> int:
    if first and last:
        return OPCODE_WRITE_ONLY_IMM if imm else OPCODE_WRITE_ONLY
    if first:
        return OPCODE_WRITE_FIRST
    if last:
        return OPCODE_WRITE_LAST_IMM if imm else OPCODE_WRITE_LAST
    return OPCODE_WRITE_MIDDLE
