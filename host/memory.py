"""Memory regions the remote side writes into, found by RETH rkey.

Every MRC data packet carries a RETH, so the receiver writes each packet where its
``virtual_addr`` says, in whatever order packets arrive (docs/mrc-protocol.md 5: no
reorder buffer)."""

from __future__ import annotations

from enum import Enum

__all__ = ["MemoryRegion", "MemoryTable", "WriteRejected"]


class WriteRejected(Enum):
    """Why a packet's payload was not written."""

    BAD_RKEY = "bad rkey"
    OUT_OF_BOUNDS = "out of bounds"


class MemoryRegion:
    """``size`` bytes at virtual address ``base_addr``, writable by peers holding
    ``rkey``. The bytes live in ``buffer`` (a bytearray, zero-filled)."""

    def __init__(self, base_addr: int, size: int, rkey: int) -> None:
        if base_addr < 0 or size < 0 or base_addr + size > 1 << 64:
            raise ValueError(f"region {base_addr:#x}+{size} is outside the 64-bit space")
        if not 0 <= rkey < 1 << 32:
            raise ValueError(f"rkey {rkey:#x} is not a 32-bit value")
        self.base_addr = base_addr
        self.size = size
        self.rkey = rkey
        self.buffer = bytearray(size)

    def contains(self, addr: int, length: int) -> bool:
        return self.base_addr <= addr and addr + length <= self.base_addr + self.size

    def read(self, addr: int, length: int) -> bytes:
        """The bytes at ``addr``; ValueError outside the region."""
        if not self.contains(addr, length):
            raise ValueError(f"{addr:#x}+{length} is outside region "
                             f"{self.base_addr:#x}+{self.size}")
        start = addr - self.base_addr
        return bytes(self.buffer[start:start + length])

    def __repr__(self) -> str:
        return f"MemoryRegion({self.base_addr:#x}, {self.size}, rkey={self.rkey:#x})"


class MemoryTable:
    """The regions registered on one endpoint, one per rkey."""

    def __init__(self) -> None:
        self._by_rkey: dict[int, MemoryRegion] = {}

    def register(self, region: MemoryRegion) -> None:
        if region.rkey in self._by_rkey:
            raise ValueError(f"rkey {region.rkey:#x} is already registered")
        self._by_rkey[region.rkey] = region

    def deregister(self, rkey: int) -> None:
        self._by_rkey.pop(rkey, None)

    def region(self, rkey: int) -> MemoryRegion | None:
        return self._by_rkey.get(rkey)

    def write(self, rkey: int, addr: int, data: bytes) -> WriteRejected | None:
        """Copy ``data`` to ``addr`` in the region of ``rkey``; the reason when not."""
        region = self._by_rkey.get(rkey)
        if region is None:
            return WriteRejected.BAD_RKEY
        if not region.contains(addr, len(data)):
            return WriteRejected.OUT_OF_BOUNDS
        start = addr - region.base_addr
        region.buffer[start:start + len(data)] = data
        return None
