"""Stateful v1model externs: registers, indexed counters and two-rate meters.

Data-plane calls (``RegisterArray.read/write``, ``CounterArray.count``,
``MeterArray.execute``) never raise: like BMv2, which logs an error and carries on,
an out-of-range index reads 0, writes nothing, counts nothing and meters GREEN.
Control-plane calls (``*_checked``, counter ``read/write/reset``, meter
configuration) raise :class:`InvalidConfigError` for a bad index or value.

Time is always passed in (``now_us``, microseconds from any fixed origin); nothing
here reads a clock.
"""

from __future__ import annotations

from array import array
from collections.abc import MutableMapping, MutableSequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from behavioral_model.runtime.errors import InvalidConfigError

__all__ = [
    "CounterKind",
    "CounterCell",
    "CounterArray",
    "RegisterArray",
    "MeterKind",
    "MeterColor",
    "GREEN",
    "YELLOW",
    "RED",
    "MeterConfig",
    "TrTcmMeter",
    "MeterArray",
]


def _check_index(name: str, index: int, size: int) -> None:
    if not 0 <= index < size:
        raise InvalidConfigError(f"'{name}': index {index} is outside 0..{size - 1}")


# -- counters -------------------------------------------------------------------------


class CounterKind(StrEnum):
    PACKETS = "packets"
    BYTES = "bytes"
    PACKETS_AND_BYTES = "packets_and_bytes"


@dataclass(slots=True)
class CounterCell:
    """Packet and byte totals of one counter (used for direct counters)."""

    packets: int = 0
    bytes: int = 0


# Counters with more cells than this keep only the cells ever counted (SparseCells).
SPARSE_COUNTER_CELLS = 4096


class SparseCells(dict[int, int]):
    """A large counter's cells, only those ever counted stored: a missing one reads
    0, and ``cells[i] += n`` works as on a list. A NIC's per-slot counters have
    262,144 cells each (1,024 QPs x 256 EV slots) of which a run touches a few
    hundred; as lists they were two thirds of a NIC's memory (16 of 24 MB), which a
    fabric of 220 NICs multiplied into gigabytes. An increment costs ~50 ns more than
    on a list, so counters of up to SPARSE_COUNTER_CELLS cells stay lists
    (docs/simulator-performance.md)."""

    __slots__ = ()

    def __missing__(self, index: int) -> int:
        return 0


def _counter_cells(size: int) -> MutableMapping[int, int] | list[int]:
    return SparseCells() if size > SPARSE_COUNTER_CELLS else [0] * size


class CounterArray:
    """An indexed counter. Both totals are always kept, as in BMv2; ``kind`` tells
    the control plane which of them the P4 program declared. ``packet_counts`` and
    ``byte_counts`` are the cells: generated pipelines index them directly (the same
    bounds rule as ``count``), so they are only ever changed in place."""

    def __init__(self, name: str, size: int, kind: CounterKind) -> None:
        self.name = name
        self.size = size
        self.kind = CounterKind(kind)
        self.packet_counts = _counter_cells(size)
        self.byte_counts = _counter_cells(size)

    def count(self, index: int, nbytes: int) -> None:
        """Data plane: add one packet of ``nbytes``; out-of-range indexes are ignored."""
        if 0 <= index < self.size:
            self.packet_counts[index] += 1
            self.byte_counts[index] += nbytes

    def read(self, index: int) -> tuple[int, int]:
        """``(packets, bytes)`` at ``index``."""
        _check_index(self.name, index, self.size)
        return self.packet_counts[index], self.byte_counts[index]

    def write(self, index: int, packets: int, nbytes: int) -> None:
        _check_index(self.name, index, self.size)
        if packets < 0 or nbytes < 0:
            raise InvalidConfigError(f"'{self.name}': counter values cannot be negative")
        self.packet_counts[index] = packets
        self.byte_counts[index] = nbytes

    def reset(self, index: int | None = None) -> None:
        """Zero one cell, or all of them when ``index`` is None."""
        if index is None:
            for cells in (self.packet_counts, self.byte_counts):
                if isinstance(cells, SparseCells):
                    cells.clear()
                else:
                    cells[:] = [0] * self.size
            return
        self.write(index, 0, 0)


# -- registers ------------------------------------------------------------------------


def _cells(width: int, size: int) -> MutableSequence[int]:
    """``size`` zero cells of ``width`` bits: a typed array of the narrowest machine
    word that holds them (1, 2, 4 or 8 bytes a cell where a list takes 8 plus an int
    object per distinct value: a NIC's registers are millions of cells), a list for
    wider ones."""
    for code in ("B", "H", "I", "Q"):
        if width <= array(code).itemsize * 8:
            return array(code, bytes(array(code).itemsize * size))
    return [0] * size


class RegisterArray:
    """``register<bit<width>>(size)``; every cell starts at 0. ``values`` are the
    cells: generated pipelines index them directly (the same bounds rule as ``read``
    and ``write``), so they are only ever changed in place."""

    def __init__(self, name: str, size: int, width: int) -> None:
        self.name = name
        self.size = size
        self.width = width
        self.mask = (1 << width) - 1
        self.values = _cells(width, size)

    def read(self, index: int) -> int:
        """Data plane: the value at ``index``; 0 when out of range (BMv2 logs an
        error and leaves the destination unchanged; v1model leaves it undefined)."""
        if 0 <= index < self.size:
            return self.values[index]
        return 0

    def write(self, index: int, value: int) -> None:
        """Data plane: store ``value`` (truncated to width); ignored out of range."""
        if 0 <= index < self.size:
            self.values[index] = value & self.mask

    def read_checked(self, index: int) -> int:
        """Control plane read: raises InvalidConfigError out of range."""
        _check_index(self.name, index, self.size)
        return self.values[index]

    def write_checked(self, index: int, value: int) -> None:
        """Control plane write: raises for a bad index or a value wider than width."""
        _check_index(self.name, index, self.size)
        if value < 0 or value > self.mask:
            raise InvalidConfigError(
                f"'{self.name}': value {value:#x} does not fit in {self.width} bits"
            )
        self.values[index] = value

    def reset(self) -> None:
        self.values[:] = _cells(self.width, self.size)  # type: ignore[index]


# -- meters ---------------------------------------------------------------------------


class MeterKind(StrEnum):
    PACKETS = "packets"
    BYTES = "bytes"


class MeterColor(IntEnum):
    """v1model / BMv2 color encoding."""

    GREEN = 0
    YELLOW = 1
    RED = 2


GREEN = MeterColor.GREEN
YELLOW = MeterColor.YELLOW
RED = MeterColor.RED


@dataclass(frozen=True, slots=True)
class MeterConfig:
    """Two-rate configuration in P4Runtime ``MeterConfig`` units: ``cir``/``pir`` in
    units (bytes or packets) per second, ``cburst``/``pburst`` in units."""

    cir: float
    cburst: int
    pir: float
    pburst: int

    @classmethod
    def from_rates_per_us(
        cls, committed: tuple[float, int], peak: tuple[float, int]
    ) -> MeterConfig:
        """From BMv2 CLI ``(info_rate, burst_size)`` pairs, rates per microsecond
        (``meter_set_rates m 0 0.0001:10 0.0005:20``)."""
        return cls(
            _per_second(committed[0]), committed[1], _per_second(peak[0]), peak[1]
        )

    def rates_per_us(self) -> tuple[tuple[float, int], tuple[float, int]]:
        """BMv2 form ``((cir_per_us, cburst), (pir_per_us, pburst))``."""
        return (self.cir / 1e6, self.cburst), (self.pir / 1e6, self.pburst)


def _per_second(rate_per_us: float) -> float:
    """Convert a per-microsecond rate, snapping float noise (0.0001 -> 100, not
    100.00000000000001) so token arithmetic stays exact for whole rates."""
    rate = round(rate_per_us * 1e6, 6)
    return int(rate) if rate == int(rate) else rate


class _TokenBucket:
    __slots__ = ("rate_per_s", "burst", "tokens", "credited")

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.tokens = burst  # a freshly configured bucket is full
        self.credited = 0  # tokens earned since the origin, already added

    def refill(self, elapsed_us: int) -> None:
        # Like BMv2: count tokens earned since one fixed origin to avoid
        # accumulating rounding errors across calls. Integer rates stay exact.
        earned = int(elapsed_us * self.rate_per_s // 1_000_000)
        if earned > self.credited:
            self.tokens = min(self.tokens + earned - self.credited, self.burst)
            self.credited = earned


class TrTcmMeter:
    """A color-blind two-rate three-color marker (RFC 2698) with BMv2's arithmetic.

    The peak bucket is checked first: too few tokens -> RED (no bucket charged);
    otherwise it is charged and the committed bucket is checked: too few -> YELLOW,
    else it is charged too -> GREEN. Buckets start full; the time origin is the
    first ``execute`` call.
    """

    __slots__ = ("config", "_peak", "_committed", "_origin_us")

    def __init__(self, config: MeterConfig) -> None:
        if min(config.cir, config.pir, config.cburst, config.pburst) < 0:
            raise InvalidConfigError("meter rates and bursts cannot be negative")
        if config.cir > config.pir:
            raise InvalidConfigError(
                f"meter committed rate {config.cir} exceeds peak rate {config.pir}"
            )
        self.config = config
        self._committed = _TokenBucket(config.cir, config.cburst)
        self._peak = _TokenBucket(config.pir, config.pburst)
        self._origin_us: int | None = None

    def execute(self, nunits: int, now_us: int) -> int:
        """Color a packet of ``nunits`` (1 for packet meters, its length for byte
        meters) arriving at ``now_us``."""
        if self._origin_us is None:
            self._origin_us = now_us
        elapsed = now_us - self._origin_us
        peak = self._peak
        peak.refill(elapsed)
        if peak.tokens < nunits:
            return RED
        peak.tokens -= nunits
        committed = self._committed
        committed.refill(elapsed)
        if committed.tokens < nunits:
            return YELLOW
        committed.tokens -= nunits
        return GREEN


class MeterArray:
    """An indexed two-rate meter; unconfigured cells mark every packet GREEN."""

    def __init__(self, name: str, size: int, kind: MeterKind) -> None:
        self.name = name
        self.size = size
        self.kind = MeterKind(kind)
        self._meters: list[TrTcmMeter | None] = [None] * size

    def execute(self, index: int, nunits: int, now_us: int) -> int:
        """Data plane: color for the cell at ``index`` (GREEN if unconfigured or out
        of range)."""
        if 0 <= index < self.size:
            meter = self._meters[index]
            if meter is not None:
                return meter.execute(nunits, now_us)
        return GREEN

    def set_config(self, index: int, config: MeterConfig) -> None:
        """Configure one cell; its buckets start full."""
        _check_index(self.name, index, self.size)
        self._meters[index] = TrTcmMeter(config)

    def set_rates(self, index: int, cir: float, cburst: int, pir: float, pburst: int) -> None:
        """Configure one cell from P4Runtime units (per second, units)."""
        self.set_config(index, MeterConfig(cir, cburst, pir, pburst))

    def set_all(self, config: MeterConfig) -> None:
        """Configure every cell (BMv2 ``meter_array_set_rates``)."""
        TrTcmMeter(config)  # validate once before touching any cell
        self._meters = [TrTcmMeter(config) for _ in range(self.size)]

    def get_config(self, index: int) -> MeterConfig | None:
        """The configuration of a cell, or None if unconfigured."""
        _check_index(self.name, index, self.size)
        meter = self._meters[index]
        return None if meter is None else meter.config

    def clear_config(self, index: int) -> None:
        """Back to unconfigured (every packet GREEN)."""
        _check_index(self.name, index, self.size)
        self._meters[index] = None

    def reset(self) -> None:
        self._meters = [None] * self.size
