"""The sending half of one QP: segmentation, the retransmit buffer, SACK/NACK handling,
loss detection (``rack.py``) and the retransmission timer, loss reports, and the
congestion window (``nscc.py``) (docs/mrc-nic.md 3 and 7, docs/congestion-and-loss.md).

PSNs are kept unbounded here (see ``psn.py``); the NIC numbers new packets 0, 1, 2, ...
per QP in posting order, so counting what this QP posted gives every packet's PSN.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import replace

from protocol.constants import (
    NACK_HOST_LOSS_REPORT,
    NACK_PSN_OUT_OF_WINDOW,
    NACK_TRIMMED,
    NACK_TRIMMED_LASTHOP,
    OPCODE_WRITE_FIRST,
    OPCODE_WRITE_LAST,
    OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_MIDDLE,
    OPCODE_WRITE_ONLY,
    OPCODE_WRITE_ONLY_IMM,
    SACK_MARK_SKIP_ONCE,
    SACK_PR_PROBE,
)

from .clock import Clock
from .codec import (
    NIC_ENCAP_BYTES,
    NackPacket,
    Route,
    SackPacket,
    encode_nack,
    encode_probe,
    encode_write,
)
from .codec import with_retransmit as retransmit_copy
from .completions import WriteError, WriteHandle
from .config import TransportConfig
from .nscc import NicWire, Nscc
from .psn import unwrap_psn, wire_psn
from .rack import Rack
from .stats import QpStats

__all__ = ["QpSender"]

_CONN_ID_MASK = 0xFFFF  # connection ids are the low 16 bits of the QPNs (mrc-nic.md 4.3)
_MSG_SEQ_MASK = 0xFFFF
_TRIM_REASONS = (NACK_TRIMMED, NACK_TRIMMED_LASTHOP)
_BITMAP_MASK = (1 << 64) - 1  # the SACK bitmap's 64 bits
# State probes unanswered at once, each naming the overtaken PSN it asks about [ours].
# After a failure every overtaken PSN reaches its deadline within microseconds: with
# no cap, ~40 probes went out in 15 us (two NIC ports down of 8), their answers jumped
# the data queued behind the failure and showed queued PSNs as missing, and the
# duplicates of those retransmissions widened the reordering window 14-fold
# (docs/congestion-and-loss.md). Two keep a hole per round trip and window from
# waiting for the one below it to fill (~20 holes 32 PSNs apart: 82 % -> 99 %).
OUTSTANDING_PROBES = 2


class _Message:
    """A write being segmented and acknowledged."""

    __slots__ = ("handle", "data", "remote_addr", "rkey", "imm", "offset", "unacked")

    def __init__(self, handle: WriteHandle, data: memoryview, remote_addr: int, rkey: int,
                 imm: int | None, packets: int) -> None:
        self.handle = handle
        self.data = data
        self.remote_addr = remote_addr
        self.rkey = rkey
        self.imm = imm
        self.offset = 0  # first byte not posted yet
        self.unacked = packets  # packets not SACKed yet, posted or not


class _InFlight:
    """A posted PSN that no SACK has covered yet: its frame stays for retransmission."""

    __slots__ = ("psn", "message", "frame", "size", "sent_at", "tx_seq", "first_tx_seq",
                 "acked_before", "deferred", "asked_at")

    def __init__(self, psn: int, message: _Message, frame: bytes, size: int,
                 sent_at: float, tx_seq: int, acked_before: int) -> None:
        self.psn = psn
        self.message = message
        self.frame = frame
        self.size = size  # payload bytes
        self.sent_at = sent_at  # of the last transmission
        self.tx_seq = tx_seq  # order of the last transmission, across the QP
        self.first_tx_seq = tx_seq
        self.acked_before = acked_before  # the QP's acknowledged count at that time
        self.deferred = False  # the receiver had no room (NACK): resend, but not "lost"
        self.asked_at: float | None = None  # when a state probe last named this transmission


class QpSender:
    """Writes of one QP. ``post(frame)`` hands a frame to the NIC's host port."""

    def __init__(self, qpn: int, remote_qpn: int, route: Route, config: TransportConfig,
                 clock: Clock, post: Callable[[bytes], None], stats: QpStats,
                 wire: NicWire | None = None) -> None:
        self.qpn = qpn
        self.remote_qpn = remote_qpn
        self.route = route
        self.config = config
        self.clock = clock
        self.stats = stats
        self.error: WriteError | None = None  # set once the QP gave up
        self._post = post
        self._queue: deque[_Message] = deque()  # messages not fully posted
        self._in_flight: OrderedDict[int, _InFlight] = OrderedDict()  # by last transmission
        self._deferred: set[int] = set()
        self._next_psn = 0
        self._cum = -1  # the peer's cumulative PSN: every PSN <= it was received
        self._next_msg_seq = 0
        self._tx_seq = 0
        self._timeouts = 0  # timeouts in a row without progress (backoff state)
        self._rack = Rack(config.reorder_window, config.reorder_allowance,
                          config.max_reorder_steps)
        self._acked_count = 0  # transmissions acknowledged, over the QP's life
        # Retransmitted PSNs already acknowledged: a SACK one of them triggers again
        # is the receiver's answer to a second copy (rack.py: our DSACK)
        self._resent_acked: set[int] = set()
        self._gap_deadline: float | None = None  # when to ask about a candidate (probe)
        self._gap_psn = 0  # the candidate's PSN, the one the probe names
        self._probes: dict[int, float] = {}  # outstanding state probes: PSN -> send time
        self._probe_ev: int | None = None  # the EV of the latest data SACK: a good path
        self._bytes_in_flight = 0
        self.cc = Nscc(config.nscc, config.mtu, clock.now()) if config.cc == "nscc" else None
        # With NSCC the line rate is known: the NIC's transmit queue (``wire``, shared
        # by the endpoint's QPs) is modelled as a fluid queue draining at it, and a
        # packet's send time is when it leaves the NIC (a burst the host posts at once
        # leaves over time; timing loss from the post would take the queueing for
        # reordering).
        if self.cc is None:
            self._wire = None
        else:
            self._wire = wire if wire is not None else NicWire(config.nscc.line_rate_gbps)
        self._next_probe_id = 0

    # -- application side ------------------------------------------------------------
    @property
    def next_psn(self) -> int:
        """The PSN the NIC will give the next new packet of this QP."""
        return self._next_psn

    @property
    def cumulative_psn(self) -> int:
        """The highest PSN below which the peer has everything (-1 before PSN 0)."""
        return self._cum

    @property
    def in_flight(self) -> int:
        """PSNs posted and not yet SACKed."""
        return len(self._in_flight)

    @property
    def bytes_in_flight(self) -> int:
        """Payload bytes posted and not yet SACKed (what the congestion window caps)."""
        return self._bytes_in_flight

    @property
    def rack(self) -> Rack:
        """The loss detection state (round trips, reordering window)."""
        return self._rack

    @property
    def idle(self) -> bool:
        return not self._queue and not self._in_flight

    def write(self, data: memoryview, remote_addr: int, rkey: int,
              imm: int | None) -> WriteHandle:
        handle = WriteHandle(self.qpn, self._next_msg_seq, len(data), remote_addr)
        self._next_msg_seq = (self._next_msg_seq + 1) & _MSG_SEQ_MASK
        self.stats.writes_posted += 1
        if self.error is not None:
            self.stats.writes_failed += 1
            handle._finish(self.error)
            return handle
        packets = max(1, -(-len(data) // self.config.mtu))  # a 0-byte write is 1 packet
        self._queue.append(_Message(handle, data, remote_addr, rkey, imm, packets))
        self._pump()
        return handle

    def probe(self, ev: int, psn: int | None = None) -> int:
        """Post a probe on EV ``ev`` (docs/mrc-nic.md 3: EV[31:16] in the UDP source
        port, EV[15:0] in the flow label) naming ``psn`` (default: the first PSN not
        acknowledged); returns its probe id. Its answer reports the receiver's window
        as it is then: the 64-PSN word holding ``psn`` if the receiver has any of it,
        else the word of its first hole (mrc-nic.md 4.2; rack.py uses that)."""
        probe_id = self._next_probe_id
        self._next_probe_id = (probe_id + 1) & 0xFFFF
        route = replace(self.route, sport=ev >> 16 & 0xFFFF, flow_label=ev & 0xFFFF)
        asked = self._cum + 1 if psn is None else psn
        # A probe takes no PSN; its BTH PSN names the one it asks about [ours].
        self._post(encode_probe(route, dest_qp=self.qpn, psn=wire_psn(asked),
                                probe_id=probe_id, src_conn_id=self.qpn & _CONN_ID_MASK,
                                dst_conn_id=self.remote_qpn & _CONN_ID_MASK))
        self.stats.probes_sent += 1
        return probe_id

    # -- posting ---------------------------------------------------------------------
    def _pump(self) -> None:
        """Post new packets while the windows allow: never past cumulative + window
        PSNs, nor (with congestion control) more bytes in flight than its window,
        though always one packet when nothing is in flight. The last packet the
        congestion window lets out asks for a SACK at once (AckReq): the receiver
        coalesces ``sack_every`` new packets per SACK, and a window smaller than that
        (an incast's fair share) would otherwise wait for the timeout [ours]."""
        mtu = self.config.mtu
        limit = self._cum + self.config.window
        cc = self.cc
        while self._queue and self._next_psn <= limit:
            message = self._queue[0]
            offset = message.offset
            size = min(mtu, len(message.data) - offset)
            if cc is not None and self._bytes_in_flight \
                    and self._bytes_in_flight + size > cc.cwnd:
                break
            first = offset == 0
            last = offset + size >= len(message.data)
            psn = self._next_psn
            self._next_psn = psn + 1
            frame = encode_write(
                self.route, opcode=_write_opcode(first, last, message.imm is not None),
                dest_qp=self.qpn, psn=wire_psn(psn), msg_seq=message.handle.msg_seq,
                virtual_addr=message.remote_addr + offset, rkey=message.rkey,
                payload=bytes(message.data[offset:offset + size]),
                imm=message.imm if last else None,
                ack_req=last or self._tail(message, offset + size)
                or self._window_closes(size))
            message.offset = offset + size
            if first:
                message.handle.first_psn = psn
            if last:
                message.handle.last_psn = psn
                message.data = memoryview(b"")  # every byte is in a frame now
                self._queue.popleft()
            self._in_flight[psn] = _InFlight(psn, message, frame, size, self._departure(frame),
                                             self._next_tx_seq(), self._acked_count)
            self._bytes_in_flight += size
            self._post(frame)
            self.stats.packets_sent += 1
            self.stats.bytes_sent += size

    def _window_closes(self, size: int) -> bool:
        """Does the congestion window stop the next full packet once this one of
        ``size`` bytes is in flight?"""
        cc = self.cc
        return cc is not None and self._bytes_in_flight + size + self.config.mtu > cc.cwnd

    def _tail(self, message: _Message, end: int) -> bool:
        """Is a packet ending at ``end`` of ``message`` among the last
        ``tail_ack_req`` packets queued (TransportConfig)? Those ask for a SACK at
        once (AckReq, mrc-nic.md 4.1) like the last packet of a message: sprayed
        packets arrive out of order, and one that arrives after the last packet's
        SACK would otherwise wait for the receiver's next coalesced SACK, which at the
        end of the data never comes (the sender would then time out, or take it for
        lost and retire a good EV)."""
        tail = self.config.tail_ack_req
        return (tail > 1 and len(self._queue) == 1
                and len(message.data) - end <= (tail - 1) * self.config.mtu)

    def _departure(self, frame: bytes) -> float:
        """When ``frame``, posted now, starts to leave the NIC (now without NSCC)."""
        now = self.clock.now()
        if self._wire is None:
            return now
        return self._wire.departure(len(frame) + NIC_ENCAP_BYTES, now)

    def _next_tx_seq(self) -> int:
        self._tx_seq += 1
        return self._tx_seq

    def _retransmit(self, sent: _InFlight) -> None:
        """Post ``sent`` again with BTH Retransmit set: the NIC keeps its PSN
        (mrc-nic.md 3, step 1) and sends it as DSCP 8."""
        if sent.tx_seq == sent.first_tx_seq:  # first retransmission: flag the frame
            sent.frame = retransmit_copy(sent.frame)
        sent.sent_at = self._departure(sent.frame)
        sent.tx_seq = self._next_tx_seq()
        sent.acked_before = self._acked_count
        sent.deferred = False
        sent.asked_at = None
        self._deferred.discard(sent.psn)
        self._in_flight.move_to_end(sent.psn)
        self._post(sent.frame)
        self.stats.retransmits += 1

    def _report_loss(self, sent: _InFlight) -> None:
        """Tell the NIC the PSN was lost so it retires the EV that carried it
        (mrc-nic.md 3, loss report). Posted before the retransmission: the NIC finds
        the EV through the PSN (``psn_ev``), which the retransmission overwrites, so
        the report always blames the EV of the latest transmission, the one lost."""
        psn = wire_psn(sent.psn)
        self._post(encode_nack(self.route, dest_qp=self.qpn, psn=psn,
                               reason=NACK_HOST_LOSS_REPORT, nack_psn=psn,
                               src_conn_id=self.qpn & _CONN_ID_MASK,
                               dst_conn_id=self.remote_qpn & _CONN_ID_MASK))
        self.stats.loss_reports += 1

    # -- acknowledgements --------------------------------------------------------------
    def on_sack(self, sack: SackPacket) -> None:
        """Apply a SACK (probe answers too: they carry the cumulative PSN and bitmap)."""
        self.stats.sacks += 1
        cum = unwrap_psn(sack.cumulative_psn, self._cum)
        if cum >= self._next_psn:  # acknowledges PSNs never posted: not about us
            self.stats.sacks_ignored += 1
            return
        # The state probe this answers: the answer's BTH PSN is the one it named
        probe_at = None
        if sack.pr == SACK_PR_PROBE and self._probes:
            probe_at = self._probes.pop(unwrap_psn(sack.psn, self._cum + 1), None)
        done: list[WriteHandle] = []
        acked: list[_InFlight] = []
        in_flight = self._in_flight
        window_moved = cum > self._cum
        if window_moved:
            for psn in range(self._cum + 1, cum + 1):
                sent = in_flight.pop(psn, None)
                if sent is not None:
                    acked.append(sent)
            self._cum = cum
            if self._probes:  # answers lost: asked about PSNs acknowledged since
                self._probes = {psn: at for psn, at in self._probes.items() if psn > cum}
        # General SACK rule: bitmap bit i is PSN cumulative_psn + sack_offset + i (the
        # NIC places the 64 bits anywhere in its window, mrc-nic.md 4.3).
        base = cum + sack.sack_offset
        bitmap = sack.sack_bitmap
        while bitmap:
            low = bitmap & -bitmap
            bitmap ^= low
            sent = in_flight.pop(base + low.bit_length() - 1, None)
            if sent is not None:
                acked.append(sent)
        if acked:
            self._timeouts = 0  # progress ends the backoff
        self._note_duplicates(sack, acked, window_moved)
        evidence = self._on_acked(sack, acked, done)
        if sack.pr == SACK_PR_PROBE:
            if probe_at is not None:
                probe = self._rack.probe_evidence(probe_at, self.clock.now())
                evidence = max(evidence or 0.0, probe)
        else:
            self._probe_ev = sack.echoed_ev
        if evidence is not None:
            self._declare_losses(sack, evidence)
        self._set_gap_deadline()
        if window_moved and self._deferred:
            self._resend_deferred()
        self._pump()
        for handle in done:  # last: a callback may write again
            handle._finish(None)

    def _note_duplicates(self, sack: SackPacket, acked: list[_InFlight],
                         window_moved: bool) -> None:
        """Find spurious retransmissions (rack.py): a data SACK triggered by a
        retransmitted PSN that an earlier SACK acknowledged answers a second copy."""
        resent = self._resent_acked
        if resent:
            trigger = unwrap_psn(sack.psn, self._cum)
            if sack.pr != SACK_PR_PROBE and trigger in resent:
                resent.discard(trigger)
                self._rack.on_spurious()
            if window_moved:  # a copy more than a window late no longer counts
                oldest = self._cum - self.config.window
                self._resent_acked = resent = {psn for psn in resent if psn > oldest}
        resent.update(sent.psn for sent in acked if sent.tx_seq != sent.first_tx_seq)

    def _on_acked(self, sack: SackPacket, acked: list[_InFlight],
                  done: list[WriteHandle]) -> float | None:
        """Account for the transmissions ``sack`` acknowledged: RACK's round trips,
        completed messages, the congestion window. Returns the SACK's evidence time
        (rack.py): the latest send time of a transmission it acknowledged for sure."""
        now = self.clock.now()
        rack = self._rack
        # The data packet that caused the SACK; a probe's answer names the PSN it asked
        # about, which is no round-trip sample
        trigger = None if sack.pr == SACK_PR_PROBE else unwrap_psn(sack.psn, self._cum)
        sample = None
        evidence = None
        acked_bytes = 0
        for sent in acked:
            rtt = rack.on_acked(sent, now, sent.psn == trigger)
            if rtt is not None and (evidence is None or sent.sent_at > evidence):
                evidence = sent.sent_at
            if sent.psn == trigger:
                sample = rtt
            acked_bytes += sent.size
            self._deferred.discard(sent.psn)
            message = sent.message
            message.unacked -= 1
            if message.unacked == 0:
                self.stats.writes_completed += 1
                done.append(message.handle)
        self._acked_count += len(acked)
        self._bytes_in_flight -= acked_bytes
        self.stats.spurious_retransmits = rack.spurious
        if self.cc is not None and acked and sack.pr != SACK_PR_PROBE:
            self.cc.on_ack(acked_bytes, sack.mark == SACK_MARK_SKIP_ONCE, sample,
                           self._bytes_in_flight, now, sack.rcv_window_penalty)
        return evidence

    def _declare_losses(self, sack: SackPacket, evidence: float) -> None:
        """Report and retransmit every PSN ``sack`` shows missing (the one after the
        cumulative PSN, the zeros of its bitmap) whose transmission RACK finds lost
        given the SACK's evidence time (rack.py, mrc-nic.md 7)."""
        in_flight = self._in_flight
        first = self._cum + 1
        base = self._cum + sack.sack_offset
        # An empty bitmap is the NIC saying it knows nothing past the cumulative PSN
        # (mrc-nic.md 4.3), not 64 PSNs missing. PSNs never posted are in no one's
        # flight: their bits go before the walk.
        zeros = ~sack.sack_bitmap & _BITMAP_MASK if sack.sack_bitmap else 0
        posted = self._next_psn - base
        if posted < 64:
            zeros &= (1 << posted) - 1 if posted > 0 else 0
        # The PSN after the cumulative one is missing whatever the bitmap says: one
        # more bit, so that one walk takes every PSN in order, lowest first.
        if first < base:
            zeros = zeros << (base - first) | 1
            base = first
        else:
            zeros |= 1 << (first - base)
        # a transmission counts as lost once gap_threshold later ones were acknowledged
        newest = self._acked_count - self.config.gap_threshold
        rack = self._rack
        lost = []
        while zeros:
            low = zeros & -zeros
            zeros ^= low
            sent = in_flight.get(base + low.bit_length() - 1)
            if (sent is not None and not sent.deferred and sent.acked_before <= newest
                    and rack.lost(sent, evidence)):
                lost.append(sent)
        for sent in lost:
            self._lost(sent)
            self.stats.retransmits_gap += 1

    def _set_gap_deadline(self) -> None:
        """The next probe about a transmission a later one overtook and enough
        acknowledgements followed (rack.py): at its deadline, or, once asked about,
        a recent round trip and window after the probe (its answer may be lost). The
        transmissions asked about come first in transmission order, so the search
        stops at the first one not asked about yet: its deadline is the earliest. A
        new one is asked about only while fewer than OUTSTANDING_PROBES are
        unanswered."""
        self._gap_deadline = None
        rack = self._rack
        interval = rack.recent_rtt + rack.reorder
        if self._probe_ev is None or interval <= 0:
            return  # no path known to probe on, or no round trip yet: the RTO's
        threshold = self.config.gap_threshold
        for sent in self._in_flight.values():
            if sent.tx_seq >= rack.tx_seq:
                return
            if sent.deferred or self._acked_count - sent.acked_before < threshold:
                continue
            if sent.asked_at is None:
                if len(self._probes) >= OUTSTANDING_PROBES:
                    return
                deadline = rack.deadline(sent)
            else:
                deadline = sent.asked_at + interval
            if self._gap_deadline is None or deadline < self._gap_deadline:
                self._gap_deadline = deadline
                self._gap_psn = sent.psn
            if sent.asked_at is None:
                return

    def _state_probe(self) -> None:
        """Ask the receiver about the transmission whose deadline passed (rack.py): a
        probe naming its PSN on the EV of the latest data SACK, whose answer shows
        that PSN's word as it is now."""
        sent = self._in_flight.get(self._gap_psn)
        if self._probe_ev is None or sent is None:
            return
        now = self.clock.now()
        sent.asked_at = self._probes[sent.psn] = now
        self.probe(self._probe_ev, sent.psn)
        self.stats.state_probes += 1

    def _lost(self, sent: _InFlight) -> None:
        """``sent``'s latest transmission is lost: report it (its EV is retired),
        shrink the congestion window, retransmit."""
        self._report_loss(sent)
        if self.cc is not None:
            self.cc.on_loss(sent.size)
        self._retransmit(sent)

    def _resend_deferred(self) -> None:
        limit = self._cum + self.config.window
        for psn in sorted(self._deferred):
            sent = self._in_flight.get(psn)
            if sent is None:
                self._deferred.discard(psn)
            elif psn <= limit:
                self._retransmit(sent)
                self.stats.retransmits_deferred += 1

    def on_nack(self, nack: NackPacket) -> None:
        """TRIMMED / TRIMMED_LASTHOP: retransmit at once (mrc-nic.md 4.4). The receiver
        lacking room (PSN_OUT_OF_WINDOW, resource NACKs): retransmit once the window
        moves, or at the timeout, without a loss report (the path did not lose it)."""
        self.stats.nacks += 1
        sent = self._in_flight.get(unwrap_psn(nack.nack_psn, self._cum + 1))
        if nack.reason in _TRIM_REASONS:
            self.stats.nacks_trimmed += 1
            if sent is not None:
                if self.cc is not None:
                    self.cc.on_trim(sent.size, self._bytes_in_flight, self.clock.now())
                self._retransmit(sent)
                self.stats.retransmits_trimmed += 1
            return
        if nack.reason == NACK_PSN_OUT_OF_WINDOW:
            self.stats.nacks_out_of_window += 1
        else:
            self.stats.nacks_other += 1
        if sent is not None:
            sent.deferred = True
            self._deferred.add(sent.psn)

    # -- timer -----------------------------------------------------------------------
    def deadline(self) -> float | None:
        """When the oldest unacknowledged transmission times out, or a transmission a
        later one overtook has waited out its deadline (a state probe is due); None
        when idle."""
        if not self._in_flight:
            return None
        oldest = next(iter(self._in_flight.values()))
        timeout = oldest.sent_at + self.config.rto_after(self._timeouts)
        if self._gap_deadline is not None and self._gap_deadline < timeout:
            return self._gap_deadline
        return timeout

    def on_timer(self) -> None:
        """Probe about an overtaken transmission past its deadline (rack.py); on a
        timeout retransmit (and report as lost) the oldest transmission;
        after ``max_retries`` timeouts in a row without progress, fail the QP."""
        now = self.clock.now()
        while self._gap_deadline is not None and self._gap_deadline <= now:
            self._state_probe()  # names the PSN, asked_at = now: a later deadline next
            self._set_gap_deadline()
        if not self._in_flight:
            return
        oldest = next(iter(self._in_flight.values()))
        deadline = oldest.sent_at + self.config.rto_after(self._timeouts)
        if now < deadline:
            return
        if self._timeouts >= self.config.max_retries:
            self._fail(WriteError(
                f"QP {self.qpn}: PSN {oldest.psn} not acknowledged after "
                f"{self._timeouts} retransmissions on timeout"))
            return
        rto = self.config.rto_after(self._timeouts)
        self._timeouts += 1
        self.stats.timeouts += 1
        # The oldest transmission is taken for lost (RFC 6298 5.4); the others that
        # expired with it may well have arrived unreported (a SACK reports one word),
        # so they wait for the SACKs and probes that its retransmission brings, except
        # those the receiver had no room for, which are simply sent again.
        expired = []
        for sent in self._in_flight.values():
            if sent.sent_at + rto > now:
                break
            if sent.deferred or not expired:
                expired.append(sent)
        for sent in expired:
            if sent.deferred:
                self.stats.retransmits_deferred += 1
                self._retransmit(sent)
            else:
                self.stats.retransmits_timeout += 1
                self._lost(sent)

    def _fail(self, error: WriteError) -> None:
        """Give up on the QP (like an RDMA QP in the error state): every write in
        progress fails, later writes fail at once."""
        self.error = error
        handles = {id(s.message.handle): s.message.handle for s in self._in_flight.values()}
        handles.update((id(m.handle), m.handle) for m in self._queue)
        self._in_flight.clear()
        self._bytes_in_flight = 0
        self._queue.clear()
        self._deferred.clear()
        self.stats.writes_failed += len(handles)
        for handle in handles.values():
            handle._finish(error)


def _write_opcode(first: bool, last: bool, imm: bool) -> int:
    if first and last:
        return OPCODE_WRITE_ONLY_IMM if imm else OPCODE_WRITE_ONLY
    if first:
        return OPCODE_WRITE_FIRST
    if last:
        return OPCODE_WRITE_LAST_IMM if imm else OPCODE_WRITE_LAST
    return OPCODE_WRITE_MIDDLE
