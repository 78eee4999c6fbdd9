"""The receiving half of one QP: place each data packet by its RETH, in any order, and
complete a message once every PSN from its FIRST to its LAST packet has arrived
(docs/mrc-nic.md 7; docs/mrc-protocol.md 5).

The NIC delivers each new PSN once, but the host keeps its own record of arrived PSNs
(the NIC's rule: a next expected PSN and the set of PSNs after it) so that a duplicate
can never complete a message twice, whatever sits between the NIC and the host.
"""

from __future__ import annotations

from protocol.constants import (
    OPCODE_WRITE_FIRST,
    OPCODE_WRITE_LAST,
    OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_ONLY,
    OPCODE_WRITE_ONLY_IMM,
)

from .codec import WritePacket
from .completions import Completion
from .memory import MemoryTable, WriteRejected
from .psn import PSN_MASK, is_behind, psn_distance
from .stats import QpStats

__all__ = ["QpReceiver"]

_STARTS = frozenset({OPCODE_WRITE_FIRST, OPCODE_WRITE_ONLY, OPCODE_WRITE_ONLY_IMM})
_ENDS = frozenset({OPCODE_WRITE_LAST, OPCODE_WRITE_LAST_IMM, OPCODE_WRITE_ONLY,
                   OPCODE_WRITE_ONLY_IMM})


class _Assembly:
    """What has arrived of one message (by METH msg_seq)."""

    __slots__ = ("first_psn", "last_psn", "addr", "rkey", "packets", "length", "imm",
                 "error")

    def __init__(self) -> None:
        self.first_psn: int | None = None
        self.last_psn: int | None = None
        self.addr = 0
        self.rkey = 0
        self.packets = 0
        self.length = 0
        self.imm: int | None = None
        self.error: str | None = None


class QpReceiver:
    """Data packets of one QP, written into ``memory``."""

    def __init__(self, qpn: int, memory: MemoryTable, stats: QpStats, rx_track: int) -> None:
        self.qpn = qpn
        self.memory = memory
        self.stats = stats
        self.rx_track = rx_track
        self._expected = 0  # next PSN expected (wire value), as the NIC's rx_expected
        self._arrived: set[int] = set()  # PSNs after _expected that arrived
        self._messages: dict[int, _Assembly] = {}

    @property
    def expected_psn(self) -> int:
        return self._expected

    @property
    def partial_messages(self) -> int:
        """Messages with some packets arrived and others missing."""
        return len(self._messages)

    def on_write(self, packet: WritePacket) -> Completion | None:
        """Take a data packet; the message's completion if this packet finished it."""
        if not self._is_new(packet.psn):
            return None
        stats = self.stats
        stats.packets_received += 1
        rejected = self.memory.write(packet.rkey, packet.virtual_addr, packet.payload)
        if rejected is WriteRejected.BAD_RKEY:
            stats.bad_rkey += 1
        elif rejected is WriteRejected.OUT_OF_BOUNDS:
            stats.out_of_bounds += 1
        else:
            stats.bytes_received += packet.dma_len
        assembly = self._messages.get(packet.msg_seq)
        if assembly is None:
            assembly = self._messages[packet.msg_seq] = _Assembly()
        opcode = packet.opcode
        if opcode in _STARTS:
            assembly.first_psn = packet.psn
            assembly.addr = packet.virtual_addr
            assembly.rkey = packet.rkey
        if opcode in _ENDS:
            assembly.last_psn = packet.psn
            assembly.imm = packet.imm
        assembly.packets += 1
        assembly.length += packet.dma_len
        if rejected is not None and assembly.error is None:
            assembly.error = f"{rejected.value} at {packet.virtual_addr:#x}"
        first, last = assembly.first_psn, assembly.last_psn
        if first is None or last is None or psn_distance(last, first) + 1 != assembly.packets:
            return None
        del self._messages[packet.msg_seq]
        stats.messages_received += 1
        return Completion(self.qpn, packet.msg_seq, assembly.addr, assembly.length,
                          assembly.rkey, assembly.imm, assembly.error)

    def _is_new(self, psn: int) -> bool:
        """Record ``psn`` as arrived; False (and counted) for a duplicate or a PSN too
        far ahead to track."""
        expected = self._expected
        if is_behind(psn, expected) or psn in self._arrived:
            self.stats.duplicates += 1
            return False
        if psn_distance(psn, expected) >= self.rx_track:
            self.stats.out_of_window += 1
            return False
        if psn != expected:
            self._arrived.add(psn)
            return True
        arrived = self._arrived
        expected = (expected + 1) & PSN_MASK
        while expected in arrived:
            arrived.remove(expected)
            expected = (expected + 1) & PSN_MASK
        self._expected = expected
        return True
