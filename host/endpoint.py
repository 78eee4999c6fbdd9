"""The host behind a NIC's host port: QPs, memory regions and the frames in between.

Sans-IO: an endpoint never blocks, sleeps or starts threads. Whoever drives it feeds
it received frames (``handle_frame``) and timer ticks (``on_timer`` at or after
``next_deadline()``); it sends frames through ``port.send``. A blocking loop over a real
port is ``host.driver.run_until``; a discrete-event fabric calls ``handle_frame`` when a
frame arrives and schedules ``on_timer`` at ``next_deadline()`` after each call.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Callable

from protocol.constants import SACK_PR_PROBE

from .clock import Clock, MonotonicClock
from .codec import (
    FrameError,
    NackPacket,
    Route,
    SackPacket,
    WritePacket,
    decode_frame,
)
from .completions import Completion, WriteHandle
from .config import TransportConfig
from .memory import MemoryRegion, MemoryTable
from .nscc import NicWire
from .ports import PacketPort
from .receiver import QpReceiver
from .sender import QpSender
from .stats import EndpointStats, QpStats

__all__ = ["Endpoint", "ipv6_bytes", "mac_bytes"]

DEFAULT_HOST_MAC = "02:00:00:00:00:01"
DEFAULT_NIC_MAC = "02:00:00:00:00:02"
_QPN_LIMIT = 1 << 24  # BTH DestQP is 24 bits

ProbeAnswer = Callable[[int, int], object]
"""``on_probe_answer(qp, ev)``: a SACK answered a probe on EV ``ev``."""


def ipv6_bytes(address: str | bytes | ipaddress.IPv6Address) -> bytes:
    """The 16 bytes of an IPv6 address given as text, bytes or IPv6Address."""
    if isinstance(address, bytes):
        if len(address) != 16:
            raise ValueError(f"an IPv6 address is 16 bytes, not {len(address)}")
        return address
    return ipaddress.IPv6Address(address).packed


def mac_bytes(mac: str) -> bytes:
    """``"02:00:00:00:00:01"`` -> 6 bytes."""
    parts = mac.split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        raise ValueError(f"MAC address {mac!r}: expected six hex bytes a:b:c:d:e:f")
    return bytes(int(p, 16) for p in parts)


class _Qp:
    __slots__ = ("sender", "receiver", "stats", "peer")

    def __init__(self, sender: QpSender | None, receiver: QpReceiver, stats: QpStats,
                 peer: bytes | None) -> None:
        self.sender = sender
        self.receiver = receiver
        self.stats = stats
        self.peer = peer


class Endpoint:
    """One host: its NIC address ``local``, the QPs it opened and its memory regions.

    ``on_complete(completion)`` is called for every message received whole (without
    it, completions are queued for :meth:`poll_completions`);
    ``on_probe_answer(qp, ev)`` for every SACK that answers a probe."""

    def __init__(self, port: PacketPort, local: str | bytes | ipaddress.IPv6Address, *,
                 clock: Clock | None = None, config: TransportConfig | None = None,
                 host_mac: str = DEFAULT_HOST_MAC, nic_mac: str = DEFAULT_NIC_MAC,
                 on_complete: Callable[[Completion], object] | None = None,
                 on_probe_answer: ProbeAnswer | None = None) -> None:
        self.port = port
        self.local = ipv6_bytes(local)
        self.clock = clock if clock is not None else MonotonicClock()
        self.config = config if config is not None else TransportConfig()
        self.stats = EndpointStats()
        self.memory = MemoryTable()
        self.on_complete = on_complete
        self.on_probe_answer = on_probe_answer
        self._host_mac = mac_bytes(host_mac)
        self._nic_mac = mac_bytes(nic_mac)
        self._qps: dict[int, _Qp] = {}
        # Senders with data queued or unacknowledged: only they have timers, so
        # next_deadline and on_timer cost nothing for idle QPs.
        self._busy: dict[int, QpSender] = {}
        self._completions: deque[Completion] = deque()
        # The NIC's transmit queue, which all its QPs share (NSCC's send times)
        self._wire = NicWire(self.config.nscc.line_rate_gbps)

    # -- set-up ----------------------------------------------------------------------
    def open_qp(self, qpn: int, peer: str | bytes | ipaddress.IPv6Address | None = None, *,
                remote_qpn: int | None = None) -> None:
        """Open local QP ``qpn`` (the NIC's ``qp_context`` key). With ``peer`` (the
        peer NIC's address) it can write and probe; without, it only receives.
        ``remote_qpn`` (default ``qpn``) only fills the connection ids of probes and
        loss reports: the NIC writes the real one into BTH DestQP."""
        if not 0 <= qpn < _QPN_LIMIT:
            raise ValueError(f"QPN {qpn} is not a 24-bit value")
        if qpn in self._qps:
            raise ValueError(f"QP {qpn} is already open")
        stats = QpStats()
        sender = None
        peer_bytes = None
        if peer is not None:
            peer_bytes = ipv6_bytes(peer)
            # What the host posts: SA this NIC, DA the peer NIC (mrc-nic.md 3).
            route = Route(self._nic_mac, self._host_mac, self.local, peer_bytes)
            sender = QpSender(qpn, qpn if remote_qpn is None else remote_qpn, route,
                              self.config, self.clock, self.port.send, stats, self._wire)
        receiver = QpReceiver(qpn, self.memory, stats, self.config.rx_track)
        self._qps[qpn] = _Qp(sender, receiver, stats, peer_bytes)

    def register(self, region: MemoryRegion) -> MemoryRegion:
        """Make ``region`` writable by peers (by its rkey); returns it."""
        self.memory.register(region)
        return region

    # -- application -----------------------------------------------------------------
    def write(self, qp: int, data: bytes | bytearray | memoryview, remote_addr: int, *,
              rkey: int = 0, imm: int | None = None) -> WriteHandle:
        """RDMA-write ``data`` to ``remote_addr`` in the peer's region ``rkey``; ``imm``
        adds immediate data (WRITE_*_IMM). Unposted parts of ``data`` are read as the
        window opens: do not change it until the handle is done."""
        sender = self._sender(qp)
        view = memoryview(data).cast("B")
        if remote_addr < 0 or remote_addr + len(view) > 1 << 64:
            raise ValueError(f"remote address {remote_addr:#x}+{len(view)} is outside "
                             "the 64-bit space")
        if not 0 <= rkey < 1 << 32 or (imm is not None and not 0 <= imm < 1 << 32):
            raise ValueError("rkey and imm are 32-bit values")
        handle = sender.write(view, remote_addr, rkey, imm)
        if not sender.idle:
            self._busy[qp] = sender
        return handle

    def probe(self, qp: int, ev: int) -> int:
        """Post a probe on EV ``ev`` of QP ``qp``; returns the probe id."""
        if not 0 <= ev < 1 << 32:
            raise ValueError(f"EV {ev:#x} is not a 32-bit value")
        return self._sender(qp).probe(ev)

    def poll_completions(self) -> list[Completion]:
        """The messages received since the last call (when no ``on_complete``)."""
        out = list(self._completions)
        self._completions.clear()
        return out

    def qp_stats(self, qp: int) -> QpStats:
        return self._qp(qp).stats

    def sender(self, qp: int) -> QpSender:
        """The sending state of QP ``qp`` (PSNs, in-flight count, error)."""
        return self._sender(qp)

    def receiver(self, qp: int) -> QpReceiver:
        return self._qp(qp).receiver

    @property
    def idle(self) -> bool:
        """True when no QP has anything to send or to be acknowledged."""
        return not self._busy

    def _qp(self, qp: int) -> _Qp:
        found = self._qps.get(qp)
        if found is None:
            raise KeyError(f"QP {qp} is not open")
        return found

    def _sender(self, qp: int) -> QpSender:
        sender = self._qp(qp).sender
        if sender is None:
            raise ValueError(f"QP {qp} was opened without a peer: it cannot send")
        return sender

    # -- driven from outside ---------------------------------------------------------
    def handle_frame(self, frame: bytes) -> None:
        """A frame from the NIC's host port. Anything unusable is counted, never
        raised: malformed frames, frames for another address or an unknown QP."""
        stats = self.stats
        stats.frames_received += 1
        try:
            packet = decode_frame(frame)
        except FrameError:
            stats.malformed += 1
            return
        if packet.dst != self.local:
            stats.wrong_address += 1
            return
        qp = self._qps.get(packet.dest_qp)
        if qp is None:
            stats.unknown_qp += 1
            return
        if qp.peer is not None and packet.src != qp.peer:
            stats.wrong_peer += 1
            return
        if isinstance(packet, WritePacket):
            completion = qp.receiver.on_write(packet)
            if completion is not None:
                if self.on_complete is not None:
                    self.on_complete(completion)
                else:
                    self._completions.append(completion)
        elif qp.sender is None:
            stats.unexpected_opcode += 1  # acknowledgements for a QP that never sends
        elif isinstance(packet, SackPacket):
            qp.sender.on_sack(packet)
            self._update_busy(packet.dest_qp, qp.sender)
            if packet.pr == SACK_PR_PROBE:
                qp.stats.probe_answers += 1
                if self.on_probe_answer is not None:
                    self.on_probe_answer(packet.dest_qp, packet.echoed_ev)
        elif isinstance(packet, NackPacket):
            qp.sender.on_nack(packet)
        else:
            stats.unexpected_opcode += 1  # the NIC answers probes, never delivers them

    def _update_busy(self, qpn: int, sender: QpSender) -> None:
        if sender.idle:
            self._busy.pop(qpn, None)
        else:
            self._busy[qpn] = sender

    def next_deadline(self) -> float | None:
        """The earliest time ``on_timer`` has work to do; None when no timer runs."""
        earliest = None
        for sender in self._busy.values():
            deadline = sender.deadline()
            if deadline is not None and (earliest is None or deadline < earliest):
                earliest = deadline
        return earliest

    def on_timer(self) -> None:
        """Run every QP timer that is due (calling it early is harmless)."""
        for qpn, sender in list(self._busy.items()):
            sender.on_timer()
            self._update_busy(qpn, sender)
