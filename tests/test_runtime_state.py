"""DeviceState name resolution and reset; the digest queue."""

from __future__ import annotations

import pytest

from behavioral_model.runtime.digests import DigestConfig, DigestMessage, DigestQueue
from behavioral_model.runtime.errors import UnknownNameError
from behavioral_model.runtime.externs import (
    CounterArray,
    CounterKind,
    MeterArray,
    MeterKind,
    RegisterArray,
)
from behavioral_model.runtime.matches import Exact, KeyField, MatchKind
from behavioral_model.runtime.pre import Replica
from behavioral_model.runtime.state import DeviceState
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry


def make_state() -> DeviceState:
    def table(name: str) -> Table:
        return Table(name, [KeyField("f", MatchKind.EXACT, 8)], ["a", "b"], ActionCall("a"))

    state = DeviceState()
    for name in ("MyIngress.ipv6_lpm", "MyIngress.acl", "MyEgress.acl"):
        state.tables[name] = table(name)
    state.registers["MyIngress.psn"] = RegisterArray("MyIngress.psn", 4, 32)
    state.counters["MyIngress.rx"] = CounterArray("MyIngress.rx", 4, CounterKind.PACKETS)
    state.meters["MyIngress.rate"] = MeterArray("MyIngress.rate", 4, MeterKind.BYTES)
    state.value_sets["MyParser.pvs"] = []
    return state


def test_resolve_full_name_and_unique_suffix() -> None:
    state = make_state()
    assert state.table("ipv6_lpm") is state.tables["MyIngress.ipv6_lpm"]
    assert state.table("MyIngress.acl") is state.tables["MyIngress.acl"]
    assert state.table("MyEgress.acl") is state.tables["MyEgress.acl"]
    assert state.register("psn").name == "MyIngress.psn"
    assert state.counter("rx").name == "MyIngress.rx"
    assert state.meter("MyIngress.rate").name == "MyIngress.rate"
    assert state.value_set("pvs") == []


def test_ambiguous_and_unknown_names_list_candidates() -> None:
    state = make_state()
    with pytest.raises(UnknownNameError, match="MyEgress.acl, MyIngress.acl"):
        state.table("acl")
    with pytest.raises(UnknownNameError, match="unknown table 'nope'; known: "):
        state.table("nope")
    with pytest.raises(UnknownNameError, match="unknown register"):
        state.register("x")
    # A suffix must end at a dot: "lpm" is not "ipv6_lpm".
    with pytest.raises(UnknownNameError):
        state.table("lpm")


def test_reset_clears_runtime_state_and_keeps_const_entries() -> None:
    state = make_state()
    acl = state.table("MyIngress.acl")
    acl.load_const_entries([TableEntry((Exact(1),), ActionCall("b"))])
    acl.insert(TableEntry((Exact(2),), ActionCall("b")))
    state.register("psn").write(0, 9)
    state.counter("rx").count(0, 100)
    state.meter("rate").set_rates(0, 0, 0, 0, 0)
    state.pre.create_group(1, [Replica(1)])
    state.digests.push(DigestMessage("d", (1,), 0))
    state.value_sets["MyParser.pvs"].append((1, 0xFF))

    state.reset()

    assert [e.matches for e in acl.entries()] == [(Exact(1),)]
    assert state.register("psn").read(0) == 0
    assert state.counter("rx").read(0) == (0, 0)
    assert state.meter("rate").get_config(0) is None
    assert state.pre.get_group(1) is None
    assert len(state.digests) == 0
    assert state.value_set("pvs") == []


def test_digest_queue_fifo_drain_and_capacity() -> None:
    queue = DigestQueue(capacity=3)
    for i in range(4):
        queue.push(DigestMessage("ev", (i,), i))
    assert queue.dropped == 1
    assert len(queue) == 3
    assert [m.values for m in queue.drain(2)] == [(0,), (1,)]
    assert [m.values for m in queue.drain()] == [(2,)]
    assert queue.drain() == []


def test_digest_batches_per_name_and_config() -> None:
    queue = DigestQueue()
    queue.configure("ev", DigestConfig(max_list_size=2, max_timeout_ns=1000))
    for i, name in enumerate(["ev", "other", "ev", "ev"]):
        queue.push(DigestMessage(name, (i,), i))
    assert [m.values for m in queue.drain_batch("ev")] == [(0,), (2,)]
    assert [m.name for m in queue.drain()] == ["other", "ev"]
    assert queue.config("ev").max_timeout_ns == 1000
    assert queue.config("unknown") == DigestConfig()
    assert queue.is_configured("ev")
    queue.unconfigure("ev")
    assert not queue.is_configured("ev")
