"""Registers, counters and trTCM meters."""

from __future__ import annotations

import pytest

from behavioral_model.runtime.errors import InvalidConfigError
from behavioral_model.runtime.externs import (
    GREEN,
    RED,
    SPARSE_COUNTER_CELLS,
    YELLOW,
    CounterArray,
    CounterKind,
    MeterArray,
    MeterConfig,
    MeterKind,
    RegisterArray,
    TrTcmMeter,
)

# -- registers -------------------------------------------------------------------------


def test_register_read_write() -> None:
    reg = RegisterArray("MyIngress.psn", 4, 24)
    assert reg.read(0) == 0
    reg.write(2, 0x123456)
    assert reg.read(2) == 0x123456


def test_register_data_plane_write_truncates_to_width() -> None:
    reg = RegisterArray("r", 1, 8)
    reg.write(0, 0x1FF)
    assert reg.read(0) == 0xFF


def test_register_out_of_range_is_ignored_on_the_data_plane() -> None:
    reg = RegisterArray("r", 2, 8)
    reg.write(2, 5)
    reg.write(-1, 5)
    assert reg.read(2) == 0
    assert reg.read(-1) == 0
    assert [reg.read(i) for i in range(2)] == [0, 0]


def test_register_checked_access_raises() -> None:
    reg = RegisterArray("r", 2, 8)
    with pytest.raises(InvalidConfigError, match="index 2 is outside 0..1"):
        reg.read_checked(2)
    with pytest.raises(InvalidConfigError, match="does not fit in 8 bits"):
        reg.write_checked(0, 256)
    reg.write_checked(1, 255)
    assert reg.read_checked(1) == 255
    reg.reset()
    assert reg.read(1) == 0


# -- counters --------------------------------------------------------------------------


def test_counter_counts_packets_and_bytes() -> None:
    ctr = CounterArray("c", 3, CounterKind.PACKETS_AND_BYTES)
    ctr.count(1, 100)
    ctr.count(1, 50)
    assert ctr.read(1) == (2, 150)
    assert ctr.read(0) == (0, 0)


def test_counter_out_of_range_count_is_ignored() -> None:
    ctr = CounterArray("c", 1, "packets")
    ctr.count(5, 100)
    assert ctr.read(0) == (0, 0)
    assert ctr.kind is CounterKind.PACKETS


def test_counter_write_reset_and_bad_index() -> None:
    ctr = CounterArray("c", 2, CounterKind.BYTES)
    ctr.write(0, 3, 300)
    ctr.count(1, 10)
    assert ctr.read(0) == (3, 300)
    ctr.reset(0)
    assert ctr.read(0) == (0, 0)
    assert ctr.read(1) == (1, 10)
    ctr.reset()
    assert ctr.read(1) == (0, 0)
    with pytest.raises(InvalidConfigError):
        ctr.read(2)
    with pytest.raises(InvalidConfigError):
        ctr.write(0, -1, 0)


# -- meters ----------------------------------------------------------------------------


def test_trtcm_hand_computed_sequence() -> None:
    # CIR 1000 pkt/s (1 token per ms), CBS 2; PIR 2000 pkt/s (1 per 0.5 ms), PBS 3.
    meter = TrTcmMeter(MeterConfig(cir=1000, cburst=2, pir=2000, pburst=3))
    # t=0: buckets full, P=3 C=2.
    assert meter.execute(1, 0) == GREEN  # P 3->2, C 2->1
    assert meter.execute(1, 0) == GREEN  # P 2->1, C 1->0
    assert meter.execute(1, 0) == YELLOW  # P 1->0, C empty
    assert meter.execute(1, 0) == RED  # P empty, nothing charged
    # t=500us: P earns 1 token, C earns 0.5 -> floor 0.
    assert meter.execute(1, 500) == YELLOW  # P 1->0, C 0
    # t=1000us: P earns 1 more, C has earned 1 in total.
    assert meter.execute(1, 1000) == GREEN  # P 1->0, C 1->0
    assert meter.execute(1, 1000) == RED
    # Long idle: buckets refill but never beyond their burst sizes.
    for _ in range(2):
        assert meter.execute(1, 10_000_000) == GREEN
    assert meter.execute(1, 10_000_000) == YELLOW
    assert meter.execute(1, 10_000_000) == RED


def test_trtcm_byte_meter_uses_packet_length() -> None:
    meter = TrTcmMeter(MeterConfig(cir=1_000_000, cburst=1500, pir=2_000_000, pburst=3000))
    assert meter.execute(1500, 0) == GREEN  # P 3000->1500, C 1500->0
    assert meter.execute(1000, 0) == YELLOW  # P 1500->500
    assert meter.execute(1000, 0) == RED
    # 1 byte/us committed, 2 bytes/us peak: after 500us P=500+1000, C=0+500.
    assert meter.execute(500, 500) == GREEN


def test_meter_array_unconfigured_is_green_and_out_of_range_is_green() -> None:
    meters = MeterArray("m", 2, MeterKind.PACKETS)
    assert all(meters.execute(0, 1, t) == GREEN for t in range(10))
    assert meters.execute(7, 1, 0) == GREEN


def test_meter_array_configuration() -> None:
    meters = MeterArray("m", 2, "packets")
    meters.set_rates(1, 1000, 1, 1000, 1)
    assert meters.execute(1, 1, 0) == GREEN
    assert meters.execute(1, 1, 0) == RED
    assert meters.execute(0, 1, 0) == GREEN
    assert meters.get_config(1) == MeterConfig(1000, 1, 1000, 1)
    assert meters.get_config(0) is None
    meters.clear_config(1)
    assert meters.execute(1, 1, 0) == GREEN
    meters.set_all(MeterConfig(0, 0, 0, 0))
    assert meters.execute(0, 1, 0) == RED
    meters.reset()
    assert meters.execute(0, 1, 0) == GREEN


def test_meter_config_from_bmv2_rates_per_microsecond() -> None:
    config = MeterConfig.from_rates_per_us(committed=(0.0001, 10), peak=(0.0005, 20))
    assert config == MeterConfig(cir=100, cburst=10, pir=500, pburst=20)
    assert config.rates_per_us() == ((0.0001, 10), (0.0005, 20))


def test_meter_rejects_bad_rates_and_indexes() -> None:
    meters = MeterArray("m", 1, MeterKind.BYTES)
    with pytest.raises(InvalidConfigError, match="exceeds peak"):
        meters.set_rates(0, 2000, 10, 1000, 10)
    with pytest.raises(InvalidConfigError, match="negative"):
        meters.set_rates(0, -1, 10, 1000, 10)
    with pytest.raises(InvalidConfigError, match="index 1"):
        meters.set_rates(1, 1, 1, 1, 1)


@pytest.mark.parametrize("size", [4, SPARSE_COUNTER_CELLS + 1, 262_144])
def test_small_and_large_counters_count_alike(size: int) -> None:
    """A large counter keeps only its counted cells (a NIC's per-slot counters have
    262,144 each); reading, writing, resetting and the generated code's in-place
    ``cells[i] += n`` behave as on a small one."""
    ctr = CounterArray("c", size, CounterKind.PACKETS_AND_BYTES)
    last = size - 1
    ctr.count(last, 100)
    ctr.count(last, 50)
    ctr.packet_counts[0] += 1  # as the generated pipelines count
    ctr.byte_counts[0] += 64
    ctr.count(size, 100)  # out of range: ignored
    assert ctr.read(last) == (2, 150) and ctr.read(0) == (1, 64) and ctr.read(1) == (0, 0)
    ctr.write(1, 7, 700)
    assert ctr.read(1) == (7, 700)
    with pytest.raises(InvalidConfigError):
        ctr.read(size)
    cells = ctr.packet_counts
    ctr.reset()
    assert ctr.packet_counts is cells
    assert [ctr.read(i) for i in (0, 1, last)] == [(0, 0)] * 3
    if size > SPARSE_COUNTER_CELLS:
        assert len(cells) == 0  # nothing stored for cells never counted
