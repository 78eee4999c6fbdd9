"""The small pieces: PSN arithmetic at the 24-bit wrap, the clocks, the transport
settings and memory regions."""

from __future__ import annotations

import pytest

from host.clock import ManualClock, MonotonicClock
from host.config import TransportConfig
from host.memory import MemoryRegion, MemoryTable, WriteRejected
from host.psn import is_behind, psn_distance, unwrap_psn, wire_psn
from protocol.constants import NIC_RX_WINDOW


def test_unwrap_psn_across_the_wrap() -> None:
    top = (1 << 24) - 1
    assert wire_psn(-1) == top  # a SACK's cumulative PSN before PSN 0 arrived
    assert unwrap_psn(top, 0) == -1
    assert unwrap_psn(2, top) == top + 3
    assert unwrap_psn(top, (1 << 24) + 5) == top
    assert unwrap_psn(5, 5) == 5


def test_distance_and_behind() -> None:
    assert psn_distance(1, (1 << 24) - 2) == 3
    assert is_behind((1 << 24) - 1, 0) and not is_behind(0, (1 << 24) - 1)


def test_manual_clock_moves_only_forward() -> None:
    clock = ManualClock(1.0)
    assert clock.advance(0.5) == 1.5 and clock.now() == 1.5
    clock.set(2.0)
    with pytest.raises(ValueError):
        clock.set(1.0)
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert MonotonicClock().now() <= MonotonicClock().now()


@pytest.mark.parametrize("bad", [dict(mtu=0), dict(window=0), dict(window=NIC_RX_WINDOW + 1),
                                 dict(rto=0), dict(rto=2.0, max_rto=1.0),
                                 dict(max_retries=-1), dict(gap_threshold=0),
                                 dict(rx_track=1)])
def test_config_rejects_bad_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        TransportConfig(**bad)


def test_rto_backoff_is_capped() -> None:
    config = TransportConfig(rto=1.0, fixed_retries=2, max_rto=10.0, max_retries=10_000)
    assert [config.rto_after(n) for n in range(7)] == [1, 1, 1, 2, 4, 8, 10]
    assert config.rto_after(5000) == 10.0


def test_memory_table_checks_rkey_and_bounds() -> None:
    table = MemoryTable()
    region = MemoryRegion(0x1000, 16, rkey=9)
    table.register(region)
    with pytest.raises(ValueError):
        table.register(MemoryRegion(0, 1, rkey=9))
    assert table.write(9, 0x1000, b"abcd") is None
    assert table.write(9, 0x100D, b"abcd") is WriteRejected.OUT_OF_BOUNDS
    assert table.write(9, 0xFFF, b"a") is WriteRejected.OUT_OF_BOUNDS
    assert table.write(8, 0x1000, b"a") is WriteRejected.BAD_RKEY
    assert region.read(0x1000, 5) == b"abcd\x00"
    with pytest.raises(ValueError):
        region.read(0x1000, 17)
    table.deregister(9)
    assert table.region(9) is None
    for bad in ((-1, 1, 0), (0, 1, 1 << 32), ((1 << 64) - 1, 2, 0)):
        with pytest.raises(ValueError):
            MemoryRegion(*bad)
