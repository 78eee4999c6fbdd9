"""End to end through the real NIC program: two NICs of p4src/mrc_nic.p4 back to back
(fabric/back_to_back.py), host/ endpoints on their host ports.

A 1 MiB write over 8 EVs on 2 planes while one EV loses 5 % of its frames: the data
arrives intact, the lossy EV is retired and a backup EV of the same plane takes its slot
(docs/mrc-nic.md section 5), and no PSN is handed to the receiving host twice.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from behavioral_model.program import P4Program, load_program
from fabric.back_to_back import BackToBack, NicPairConfig, frame_ev
from host import MemoryRegion, TransportConfig
from protocol import constants as c

PROGRAM = "p4src/mrc_nic.p4"
MESSAGE = 1 << 20
BASE = 0x10_0000
RKEY = 0x77


@cache
def _program() -> P4Program:
    return load_program(PROGRAM)


def _message(seed: int) -> bytes:
    return random.Random(seed).randbytes(MESSAGE)


def _lossy(ev: int, rate: float, seed: int):
    rng = random.Random(seed)

    def keep(_plane: int, frame: bytes) -> bool:
        return frame_ev(frame) != ev or rng.random() >= rate

    return keep


def _transfer(pair: BackToBack, data: bytes) -> MemoryRegion:
    region = pair.b.endpoint.register(MemoryRegion(BASE, len(data), RKEY))
    handle = pair.a.endpoint.write(pair.a.qpn, data, remote_addr=BASE, rkey=RKEY)
    completions = []
    pair.b.endpoint.on_complete = completions.append
    pair.run(until=lambda: handle.done and bool(completions), max_time=30.0)
    handle.result()
    assert len(completions) == 1 and completions[0].ok
    return region


@pytest.mark.parametrize("seed", [1, 2])
def test_lossy_ev_retired_data_intact(seed: int) -> None:
    config = NicPairConfig(planes=2, evs_per_plane=4, backups_per_plane=2,
                           transport=TransportConfig(mtu=1024))
    bad_slot = 5
    bad_ev = c.ev_value(config.slot_t1(bad_slot), bad_slot)
    pair = BackToBack(_program(), config, link_filter=_lossy(bad_ev, 0.05, seed), seed=seed)
    data = _message(seed)

    region = _transfer(pair, data)

    assert region.read(BASE, len(data)) == data
    assert pair.frames_dropped > 0, "the lossy EV never lost a frame: nothing was tested"
    # Every PSN of the message reached the receiving host exactly once.
    delivered = pair.b.delivered_psns
    packets = MESSAGE // config.transport.mtu
    assert sorted(delivered) == list(range(packets))

    retirements = [d.values for d in pair.a.digests
                   if d.values[5] in (c.EV_EVENT_HOST_LOSS, c.EV_EVENT_ALWAYS_SKIP)]
    assert retirements, "the lossy EV was never retired"
    local_qpn, qp_index, slot, old_ev, new_ev, _reason = retirements[0]
    assert (local_qpn, qp_index, slot, old_ev) == (config.qpn_a, 0, bad_slot, bad_ev)
    assert new_ev != 0 and c.ev_plane(new_ev) == c.ev_plane(bad_ev)
    assert c.ev_id_of(new_ev) >= c.NIC_EV_BACKUP_BASE
    # Only the lossy EV was ever retired (the clean ones never lost a frame).
    assert {values[3] for values in retirements} == {bad_ev}


def test_clean_transfer_uses_every_ev_equally() -> None:
    config = NicPairConfig(planes=2, evs_per_plane=4)
    seen: dict[int, int] = {}

    def count(_plane: int, frame: bytes) -> bool:
        ev = frame_ev(frame)
        traffic_class = (frame[14] & 0x0F) << 4 | frame[15] >> 4
        if ev is not None and traffic_class >> 2 == c.DSCP_TRIMMABLE:
            # Outer DSCP 4: a data packet (SACKs travel as DSCP 46).
            seen[ev] = seen.get(ev, 0) + 1
        return True

    pair = BackToBack(_program(), config, link_filter=count)
    data = _message(7)[: 64 * 1024]
    region = _transfer(pair, data)
    assert region.read(BASE, len(data)) == data
    assert pair.frames_dropped == 0 and pair.a.digests == []
    # 64 packets over 8 EVs: each rotation uses every slot once.
    assert sorted(seen) == sorted(c.ev_value(config.slot_t1(s), s) for s in range(8))
    assert set(seen.values()) == {8}
