"""The PNA NIC (p4src/pna/mrc_nic.p4) end to end: two of them back to back
(fabric/back_to_back.py) with host/ endpoints, as tests/test_nic_end_to_end.py runs the
v1model NIC. PNA has no multicast, so the receiving NIC delivers new data without its
SACK (docs/architectures.md): a write still arrives intact, but only because the
sender's timer retransmits every packet and the duplicates are SACKed, and the host's
timeout loss reports retire EVs that lost nothing. This test pins that cost down.
"""

from __future__ import annotations

import random

from behavioral_model.program import load_program
from fabric.back_to_back import BackToBack, NicPairConfig
from host import MemoryRegion
from protocol import constants as c

BASE = 0x10_0000
RKEY = 0x77
PACKETS = 64  # of the default 1,024-byte MTU


def test_write_arrives_through_timeouts_on_pna() -> None:
    pair = BackToBack(load_program("p4src/pna/mrc_nic.p4"), NicPairConfig())
    data = random.Random(7).randbytes(PACKETS * 1024)
    region = pair.b.endpoint.register(MemoryRegion(BASE, len(data), RKEY))
    handle = pair.a.endpoint.write(pair.a.qpn, data, remote_addr=BASE, rkey=RKEY)
    completions: list = []
    pair.b.endpoint.on_complete = completions.append
    pair.run(until=lambda: handle.done and bool(completions), max_time=60.0)
    handle.result()
    assert region.read(BASE, len(data)) == data
    assert sorted(pair.b.delivered_psns) == list(range(PACKETS))
    stats = pair.a.endpoint.qp_stats(pair.a.qpn)
    # No SACK for new data: one timeout, which resends only the oldest packet (RFC 6298
    # 5.4, docs/congestion-and-loss.md); the SACK of that duplicate carries the
    # cumulative PSN, which acknowledges every packet the receiver already has.
    assert (stats.timeouts, stats.retransmits_timeout) == (1, 1)
    reasons = {d.values[5] for d in pair.a.digests}
    assert reasons == {c.EV_EVENT_HOST_LOSS}
