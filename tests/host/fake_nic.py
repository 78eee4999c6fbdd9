"""Two NICs back to back, as the hosts see them (docs/mrc-nic.md 3 and 4), for the host
tests: what one host posts reaches the other decapsulated, and the receiving NIC answers
with SACKs and NACKs by the NIC's rules (window of NIC_RX_WINDOW, duplicates
acknowledged and not delivered). ``fate`` decides what the "fabric" does with each data
packet: deliver it, drop it, trim it or delay it (it then arrives after the packets
posted in the next round). The fake checks that hosts mirror the NIC's
PSNs: a new packet must carry the PSN the NIC would assign."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

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
from host.endpoint import Endpoint
from protocol.constants import (
    NACK_HOST_LOSS_REPORT,
    NACK_PSN_OUT_OF_WINDOW,
    NACK_TRIMMED,
    NIC_RX_WINDOW,
    SACK_PR_PROBE,
)

DELIVER, DROP, TRIM, DELAY = "deliver", "drop", "trim", "delay"
MAC = bytes(6)
PSN_MASK = 0xFFFFFF


@dataclass
class RxWindow:
    """One QP's receive state in the NIC: the next expected PSN and which of the
    NIC_RX_WINDOW PSNs from it arrived (bit i: PSN expected + i)."""

    expected: int = 0
    bitmap: int = 0


class HostPort(Protocol):
    """The host's port as the fake NIC uses it: frames go to the host by ``deliver``,
    and (in ``step``) the host's posted frames are collected with ``take_sent``."""

    def deliver(self, frame: bytes) -> None: ...

    def take_sent(self) -> list[bytes]: ...

    def poll(self, timeout_s: float = 0.0) -> int: ...


@dataclass
class NicSide:
    """The NIC of one host: its port, PSN counters and receive windows per QP."""

    port: HostPort
    address: bytes
    next_psn: dict[int, int] = field(default_factory=dict)
    rx: dict[int, RxWindow] = field(default_factory=dict)
    posted: list[WritePacket] = field(default_factory=list)
    loss_reports: list[tuple[int, int]] = field(default_factory=list)
    probes: list[ProbePacket] = field(default_factory=list)


Fate = Callable[[WritePacket], str]


class BackToBack:
    """Endpoints ``a`` and ``b`` joined through two fake NICs; QPN n on one side is
    QPN n on the other."""

    def __init__(self, a: Endpoint, b: Endpoint, clock: ManualClock,
                 fate: Fate | None = None) -> None:
        self.endpoints = (a, b)
        self.clock = clock
        self.fate: Fate = fate or (lambda _packet: DELIVER)
        self.sides = (NicSide(a.port, a.local),  # type: ignore[arg-type]
                      NicSide(b.port, b.local))  # type: ignore[arg-type]
        self._held: list[tuple[NicSide, NicSide, bytes, WritePacket]] = []
        for endpoint in self.endpoints:
            endpoint.port.set_receiver(endpoint.handle_frame)

    def step(self) -> bool:
        """Move every frame the hosts posted, then let the hosts read their replies;
        False when nothing moved."""
        held, self._held = self._held, []
        moved = bool(held)
        for index, side in enumerate(self.sides):
            for frame in side.port.take_sent():
                moved = True
                self.transmit(index, frame)
        for side, peer, frame, packet in held:
            self._receive(side, peer, frame, packet)
        for side in self.sides:
            if side.port.poll():
                moved = True
        return moved

    def run(self, max_steps: int = 100_000) -> None:
        """Until both hosts are idle: move frames, and when none move, jump the clock
        to the next host timer."""
        for _ in range(max_steps):
            if self.step():
                continue
            if all(endpoint.idle for endpoint in self.endpoints):
                return
            deadlines = [d for e in self.endpoints if (d := e.next_deadline()) is not None]
            if not deadlines:
                return
            self.clock.set(max(self.clock.now(), min(deadlines)))
            for endpoint in self.endpoints:
                endpoint.on_timer()
        raise AssertionError("the hosts never went idle")

    # -- the NIC's transmit path (mrc-nic.md 3) -----------------------------------------
    def transmit(self, index: int, frame: bytes) -> None:
        """The NIC of host ``index`` (0 = a, 1 = b) takes a frame its host posted; what
        results goes to the ports' ``deliver``."""
        side, peer = self.sides[index], self.sides[1 - index]
        packet = decode_frame(frame)
        qp = packet.dest_qp
        if isinstance(packet, NackPacket):
            assert packet.reason == NACK_HOST_LOSS_REPORT
            side.loss_reports.append((qp, packet.nack_psn))
            return
        if isinstance(packet, ProbePacket):
            side.probes.append(packet)
            ev = packet.sport << 16 | packet.flow_label & 0xFFFF
            window = peer.rx.setdefault(qp, RxWindow())
            self._reply(side, peer, qp, packet.psn, window, pr=SACK_PR_PROBE, ev=ev)
            return
        assert isinstance(packet, WritePacket), packet
        if not packet.retransmit:
            expected = side.next_psn.get(qp, 0)
            assert packet.psn == expected, f"host PSN {packet.psn}, NIC PSN {expected}"
            side.next_psn[qp] = (expected + 1) & PSN_MASK
        side.posted.append(packet)
        fate = self.fate(packet)
        if fate == DROP:
            return
        if fate == TRIM:
            side.port.deliver(self._nack(peer, side, qp, packet.psn, NACK_TRIMMED))
            return
        if fate == DELAY:
            self._held.append((side, peer, frame, packet))
            return
        self._receive(side, peer, frame, packet)

    # -- the peer NIC's receive path (mrc-nic.md 4.1) -----------------------------------
    def _receive(self, side: NicSide, peer: NicSide, frame: bytes,
                 packet: WritePacket) -> None:
        window = peer.rx.setdefault(packet.dest_qp, RxWindow())
        distance = (packet.psn - window.expected) & PSN_MASK
        if distance >= 1 << 23 or (distance < NIC_RX_WINDOW and window.bitmap >> distance & 1):
            self._reply(side, peer, packet.dest_qp, packet.psn, window)  # duplicate
            return
        if distance >= NIC_RX_WINDOW:
            side.port.deliver(self._nack(peer, side, packet.dest_qp, packet.psn,
                                         NACK_PSN_OUT_OF_WINDOW))
            return
        window.bitmap |= 1 << distance
        while window.bitmap & 1:
            window.bitmap >>= 1
            window.expected = (window.expected + 1) & PSN_MASK
        peer.port.deliver(frame)
        self._reply(side, peer, packet.dest_qp, packet.psn, window)

    def _reply(self, side: NicSide, peer: NicSide, qp: int, psn: int, window: RxWindow,
               pr: int = 0, ev: int = 0) -> None:
        # The 64 bits of the SACK: the aligned 64-PSN word holding ``psn`` (from
        # ``expected`` when that word starts earlier), at an offset (mrc-nic.md 4.3); a
        # probe's ``psn`` is the one it names: outside the window, or its word empty,
        # the first hole's (4.2).
        start = ((psn & ~63) - window.expected) & PSN_MASK
        if pr == SACK_PR_PROBE and ((psn - window.expected) & PSN_MASK >= NIC_RX_WINDOW
                                    or not window.bitmap >> start & (1 << 64) - 1):
            start = 0
        if start >= NIC_RX_WINDOW:
            start = 0
        route = Route(MAC, MAC, peer.address, side.address)
        side.port.deliver(encode_sack(
            route, dest_qp=qp, psn=psn, cumulative_psn=(window.expected - 1) & PSN_MASK,
            sack_bitmap=window.bitmap >> start & (1 << 64) - 1, sack_offset=start + 1,
            pr=pr, echoed_ev=ev, src_conn_id=qp, dst_conn_id=qp))

    def _nack(self, peer: NicSide, side: NicSide, qp: int, psn: int, reason: int) -> bytes:
        route = Route(MAC, MAC, peer.address, side.address)
        return encode_nack(route, dest_qp=qp, psn=psn, reason=reason, nack_psn=psn)
