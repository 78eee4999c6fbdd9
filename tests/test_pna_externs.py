"""pna.p4's other externs on bm (tests/p4/pna/pna_externs.p4): Hash (bm's default
algorithm is crc32), InternetChecksum, Meter, SelectByDirection, and a table with a
pna_direct_counter, a pna_implementation (an ActionSelector) and a pna_idle_timeout,
in P4Info too."""

from __future__ import annotations

import struct
import zlib
from functools import cache
from pathlib import Path

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import P4Program, load_program
from behavioral_model.runtime.action_profiles import GroupRef
from behavioral_model.runtime.matches import Exact
from behavioral_model.runtime.tables import ActionCall, TableEntry

PROGRAM = Path(__file__).parent / "p4" / "pna" / "pna_externs.p4"
DST = 0x000000000002
ETH = DST.to_bytes(6, "big") + bytes.fromhex("0000000000010800")
DATA = struct.Struct("!HHHIHBBB")  # a, b, csum, hash, hash_mod, color, dir, bad_csum


@cache
def program() -> P4Program:
    return load_program(PROGRAM)


def ones_complement_sum(*words: int) -> int:
    total = 0
    for w in words:
        total += w
        total = (total & 0xFFFF) + (total >> 16)
    return total


def frame(a: int, b: int, csum: int) -> bytes:
    return ETH + DATA.pack(a, b, csum, 0, 0, 0, 0, 0)


def test_hash_checksum_meter_and_direction() -> None:
    a, b = 0x1234, 0xF00F
    good = ~ones_complement_sum(a, b) & 0xFFFF
    device = program().new_device()
    [out] = device.process(frame(a, b, good), port=3)
    assert out.port == 1
    _, _, _, h, h_mod, color, direction, bad = DATA.unpack(out.data[len(ETH):])
    crc = zlib.crc32(struct.pack("!HH", a, b))
    assert (h, h_mod) == (crc, 100 + crc % 7)
    assert (color, direction, bad) == (1, 1, 0)  # GREEN (unconfigured), NET_TO_HOST
    [out] = device.process(frame(a, b, good ^ 1), port=3)
    assert DATA.unpack(out.data[len(ETH):])[-1] == 1


def test_selector_table_with_direct_counter() -> None:
    device = program().new_device()
    spread = device.state.action_profile("Main.spread")
    spread.add_member(1, ActionCall("Main.fwd", (5,)))
    spread.add_member(2, ActionCall("Main.fwd", (6,)))
    spread.set_group(10, [(1, 1), (2, 1)], create=True)
    entry = device.state.table("Main.route").insert(TableEntry((Exact(DST),), GroupRef(10)))
    ports = {device.process(frame(a, 0, 0), port=3, now_us=7)[0].port for a in range(16)}
    assert ports == {5, 6}
    assert entry.direct_counter.packets == 16
    assert entry.last_hit_ns == 7000  # pna_idle_timeout NOTIFY_CONTROL: hits are timed


def test_p4info_of_pna_externs() -> None:
    info = generate_p4info(program().checked)
    [profile] = info.action_profiles
    assert (profile.preamble.name, profile.with_selector, profile.size) == \
        ("Main.spread", True, 16)
    [table] = info.tables
    assert table.implementation_id == profile.preamble.id
    assert table.idle_timeout_behavior == table.NOTIFY_CONTROL
    [counter] = info.direct_counters
    assert (counter.preamble.name, counter.direct_table_id) == ("Main.hits", table.preamble.id)
    assert [m.preamble.name for m in info.meters] == ["Main.meter"]
    assert info.meters[0].size == 4
