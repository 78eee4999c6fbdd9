"""Fuzz the P4Runtime server with random WriteRequests.

Every request mixes entity kinds, ids, update types and byte strings, mostly close to
valid (small value domains, so inserts, modifies and deletes collide) with a share of
corruptions (wrong ids and types, too-wide or empty byte strings, missing fields,
random bit flips of the serialized request). A reference model applies exactly the
updates the server reported as successful; at checkpoints everything is read back and
must equal the model. No update may end in INTERNAL, nothing may be logged as an error.

10,000 requests, as issue 3 asks; ``P4RT_FUZZ_REQUESTS=N`` runs fewer while iterating.
"""

from __future__ import annotations

import logging
import os
import random
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import SWITCH, Harness, Names, detail_codes, p4info_of

REQUESTS = int(os.environ.get("P4RT_FUZZ_REQUESTS", "10000"))
CHECK_EVERY = 500
S = Names(p4info_of(SWITCH))
U = p4runtime_pb2.Update
MF = p4info_pb2.MatchField


# -- canonical forms (shared by the model and the read-back) --------------------------------

def _int(b: bytes) -> int:
    return int.from_bytes(b, "big")


def canon_match(fm: p4runtime_pb2.FieldMatch) -> tuple[Any, ...]:
    which = fm.WhichOneof("field_match_type")
    if which == "exact":
        return (fm.field_id, which, _int(fm.exact.value))
    if which == "lpm":
        return (fm.field_id, which, _int(fm.lpm.value), fm.lpm.prefix_len)
    if which == "ternary":
        return (fm.field_id, which, _int(fm.ternary.value), _int(fm.ternary.mask))
    if which == "range":
        return (fm.field_id, which, _int(fm.range.low), _int(fm.range.high))
    return (fm.field_id, which, _int(fm.optional.value))


def canon_action(a: p4runtime_pb2.Action) -> tuple[Any, ...]:
    return (a.action_id, tuple(sorted((p.param_id, _int(p.value)) for p in a.params)))


def entry_key(te: p4runtime_pb2.TableEntry) -> tuple[Any, ...]:
    return (te.table_id, frozenset(canon_match(m) for m in te.match), te.priority)


def canon_entry(te: p4runtime_pb2.TableEntry) -> tuple[Any, ...]:
    return (canon_action(te.action.action), te.controller_metadata, te.metadata,
            te.idle_timeout_ns, te.is_const)


def canon_meter(cfg: p4runtime_pb2.MeterConfig | None) -> tuple[int, ...] | None:
    return None if cfg is None else (cfg.cir, cfg.cburst, cfg.pir, cfg.pburst)


def canon_replicas(replicas: Any) -> tuple[tuple[int, int], ...]:
    return tuple((_int(r.port) if r.WhichOneof("port_kind") == "port" else r.egress_port,
                  r.instance) for r in replicas)


# -- the reference model ------------------------------------------------------------------------

class Model:
    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.s = snapshot  # same layout as read_all()
        self.initial_default = dict(snapshot["defaults"])
        self.has_meter = {t.preamble.id for t in S.p4info.tables if any(
            d.direct_table_id == t.preamble.id for d in S.p4info.direct_meters)}
        self.sizes = {("counter", c.preamble.id): c.size for c in S.p4info.counters}
        self.sizes.update({("meter", m.preamble.id): m.size for m in S.p4info.meters})
        self.sizes.update({("register", r.preamble.id): r.size for r in S.p4info.registers})

    def _cells(self, kind: str, obj_id: int, e: Any) -> range:
        if e.HasField("index"):
            return range(e.index.index, e.index.index + 1)
        return range(self.sizes[(kind, obj_id)])

    def apply(self, u: p4runtime_pb2.Update) -> None:
        which = u.entity.WhichOneof("entity")
        getattr(self, "_" + which)(u.type, getattr(u.entity, which))

    def _table_entry(self, kind: int, te: p4runtime_pb2.TableEntry) -> None:
        s = self.s
        if te.is_default_action:
            s["defaults"][te.table_id] = (canon_action(te.action.action)
                                          if te.HasField("action")
                                          else self.initial_default[te.table_id])
            return
        key = entry_key(te)
        if kind == U.DELETE:
            del s["entries"][key]
            s["dcounters"].pop(key, None)
            s["dmeters"].pop(key, None)
            return
        if kind == U.INSERT:
            s["entries"][key] = canon_entry(te)
            if key[0] in s["dcounter_tables"]:
                s["dcounters"][key] = (te.counter_data.packet_count,
                                       te.counter_data.byte_count)
            if key[0] in self.has_meter:
                s["dmeters"][key] = canon_meter(te.meter_config if te.HasField(
                    "meter_config") else None)
            return
        old = s["entries"][key]
        if not old[4]:  # const entries keep everything but direct resources
            action = canon_action(te.action.action) if te.HasField("action") else old[0]
            s["entries"][key] = (action, te.controller_metadata, te.metadata,
                                 te.idle_timeout_ns, False)
        if te.HasField("counter_data"):
            s["dcounters"][key] = (te.counter_data.packet_count, te.counter_data.byte_count)
        if key[0] in self.has_meter:
            s["dmeters"][key] = canon_meter(te.meter_config if te.HasField("meter_config")
                                            else None)

    def _direct_counter_entry(self, kind: int, e: Any) -> None:
        if e.HasField("data"):
            self.s["dcounters"][entry_key(e.table_entry)] = (e.data.packet_count,
                                                             e.data.byte_count)

    def _direct_meter_entry(self, kind: int, e: Any) -> None:
        self.s["dmeters"][entry_key(e.table_entry)] = canon_meter(
            e.config if e.HasField("config") else None)

    def _counter_entry(self, kind: int, e: Any) -> None:
        if e.HasField("data"):
            for i in self._cells("counter", e.counter_id, e):
                self.s["counters"][(e.counter_id, i)] = (e.data.packet_count,
                                                         e.data.byte_count)

    def _meter_entry(self, kind: int, e: Any) -> None:
        for i in self._cells("meter", e.meter_id, e):
            self.s["meters"][(e.meter_id, i)] = canon_meter(
                e.config if e.HasField("config") else None)

    def _register_entry(self, kind: int, e: Any) -> None:
        for i in self._cells("register", e.register_id, e):
            self.s["registers"][(e.register_id, i)] = _int(e.data.bitstring)

    def _packet_replication_engine_entry(self, kind: int, e: Any) -> None:
        if e.HasField("multicast_group_entry"):
            mg = e.multicast_group_entry
            if kind == U.DELETE:
                del self.s["groups"][mg.multicast_group_id]
            else:
                self.s["groups"][mg.multicast_group_id] = (canon_replicas(mg.replicas),
                                                           mg.metadata)
        else:
            cs = e.clone_session_entry
            if kind == U.DELETE:
                del self.s["sessions"][cs.session_id]
            else:
                self.s["sessions"][cs.session_id] = (canon_replicas(cs.replicas),
                                                     cs.class_of_service,
                                                     cs.packet_length_bytes)

    def _value_set_entry(self, kind: int, e: Any) -> None:
        self.s["value_sets"][e.value_set_id] = [frozenset(canon_match(m) for m in mem.match)
                                                for mem in e.members]

    def _digest_entry(self, kind: int, e: Any) -> None:
        if kind == U.DELETE:
            del self.s["digests"][e.digest_id]
        else:
            c = e.config
            self.s["digests"][e.digest_id] = (c.max_timeout_ns, c.max_list_size,
                                              c.ack_timeout_ns)


def read_all(c: Any) -> dict[str, Any]:
    E = p4runtime_pb2.Entity
    out: dict[str, Any] = {"entries": {}, "defaults": {}, "dcounters": {}, "dmeters": {},
                           "counters": {}, "meters": {}, "registers": {}, "groups": {},
                           "sessions": {}, "value_sets": {}, "digests": {},
                           "dcounter_tables": {d.direct_table_id
                                               for d in S.p4info.direct_counters}}
    for e in c.read(E(table_entry=p4runtime_pb2.TableEntry())):
        out["entries"][entry_key(e.table_entry)] = canon_entry(e.table_entry)
    for t in S.p4info.tables:
        (d,) = c.read(E(table_entry=p4runtime_pb2.TableEntry(table_id=t.preamble.id,
                                                              is_default_action=True)))
        out["defaults"][t.preamble.id] = canon_action(d.table_entry.action.action)
    for e in c.read(E(direct_counter_entry=p4runtime_pb2.DirectCounterEntry())):
        d = e.direct_counter_entry
        out["dcounters"][entry_key(d.table_entry)] = (d.data.packet_count, d.data.byte_count)
    for e in c.read(E(direct_meter_entry=p4runtime_pb2.DirectMeterEntry())):
        d = e.direct_meter_entry
        out["dmeters"][entry_key(d.table_entry)] = canon_meter(
            d.config if d.HasField("config") else None)
    for e in c.read(E(counter_entry=p4runtime_pb2.CounterEntry())):
        ce = e.counter_entry
        out["counters"][(ce.counter_id, ce.index.index)] = (ce.data.packet_count,
                                                            ce.data.byte_count)
    for e in c.read(E(meter_entry=p4runtime_pb2.MeterEntry())):
        me = e.meter_entry
        out["meters"][(me.meter_id, me.index.index)] = canon_meter(
            me.config if me.HasField("config") else None)
    for e in c.read(E(register_entry=p4runtime_pb2.RegisterEntry())):
        re = e.register_entry
        out["registers"][(re.register_id, re.index.index)] = _int(re.data.bitstring)
    pre = p4runtime_pb2.PacketReplicationEngineEntry
    for e in c.read(E(packet_replication_engine_entry=pre(
            multicast_group_entry=p4runtime_pb2.MulticastGroupEntry()))):
        mg = e.packet_replication_engine_entry.multicast_group_entry
        out["groups"][mg.multicast_group_id] = (canon_replicas(mg.replicas), mg.metadata)
    for e in c.read(E(packet_replication_engine_entry=pre(
            clone_session_entry=p4runtime_pb2.CloneSessionEntry()))):
        cs = e.packet_replication_engine_entry.clone_session_entry
        out["sessions"][cs.session_id] = (canon_replicas(cs.replicas), cs.class_of_service,
                                          cs.packet_length_bytes)
    for e in c.read(E(value_set_entry=p4runtime_pb2.ValueSetEntry())):
        vs = e.value_set_entry
        out["value_sets"][vs.value_set_id] = [frozenset(canon_match(m) for m in mem.match)
                                              for mem in vs.members]
    for e in c.read(E(digest_entry=p4runtime_pb2.DigestEntry())):
        de = e.digest_entry
        cfg = de.config
        out["digests"][de.digest_id] = (cfg.max_timeout_ns, cfg.max_list_size,
                                        cfg.ack_timeout_ns)
    return out


# -- random requests ----------------------------------------------------------------------------

_MODIFY_ONLY = {"counter_entry", "direct_counter_entry", "meter_entry", "direct_meter_entry",
                "register_entry", "value_set_entry"}


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def raw(self, value: int, width: int) -> bytes:
        """Mostly a valid encoding of ``value``; sometimes padded, empty or too wide."""
        r = self.r.random()
        value &= (1 << width) - 1
        data = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
        if r < 0.06:
            return b"\x00" * self.r.randint(1, 3) + data
        if r < 0.07:
            return b""
        if r < 0.085:
            return (value | (1 << width)).to_bytes((width + 8) // 8, "big")
        if r < 0.095:
            return self.r.randbytes(self.r.randint(1, 8))
        return data

    def obj_id(self, ids: list[int]) -> int:
        r = self.r.random()
        if r < 0.04:
            return 0
        if r < 0.07:
            return self.r.choice([0x02FFFFFF, 0x12000099, self.r.getrandbits(32)])
        return self.r.choice(ids)

    def kind(self) -> int:
        if self.chance(0.02):
            return U.UNSPECIFIED
        return self.r.choice([U.INSERT, U.INSERT, U.MODIFY, U.DELETE])

    def field_match(self, f: p4info_pb2.MatchField) -> p4runtime_pb2.FieldMatch | None:
        fm = p4runtime_pb2.FieldMatch(field_id=f.id if not self.chance(0.02) else 99)
        w, r = f.bitwidth, self.r
        mt = f.match_type if not self.chance(0.03) else r.choice(list(MF.MatchType.values()))
        if mt == MF.EXACT:
            fm.exact.value = self.raw(r.randint(0, 7), w)
        elif mt == MF.LPM:
            if self.chance(0.4):
                return None
            plen = r.choice([8, 16, w, 0, w + 1]) if w > 16 else r.choice([4, 8, w, 0])
            plen = max(0, min(plen, w + 1))
            value = r.randint(0, 3) << max(0, w - plen)
            fm.lpm.value = self.raw(value, w)
            fm.lpm.prefix_len = plen
        elif mt == MF.TERNARY:
            if self.chance(0.3):
                return None
            mask = r.choice([(1 << w) - 1, 0xFF00 & ((1 << w) - 1), 0, 1])
            value = r.choice([0x0800, 0x86DD, 0x1, 0]) & (mask if not self.chance(0.1) else -1)
            fm.ternary.value = self.raw(value, w)
            fm.ternary.mask = self.raw(mask, w)
        else:
            fm.range.low = self.raw(1, w)
            fm.range.high = self.raw(0, w)
        return fm

    def action(self, t: p4info_pb2.Table) -> p4runtime_pb2.Action:
        ids = [a.id for a in t.action_refs]
        aid = self.obj_id(ids) if not self.chance(0.03) else S.action_id("learn")
        action = p4runtime_pb2.Action(action_id=aid)
        info = next((a for a in S.p4info.actions if a.preamble.id == aid), None)
        for p in info.params if info is not None else []:
            if not self.chance(0.03):
                action.params.add(param_id=p.id, value=self.raw(self.r.randint(0, 9),
                                                                p.bitwidth))
        return action

    def meter_config(self) -> p4runtime_pb2.MeterConfig:
        cir = self.r.randint(0, 50)
        pir = cir + self.r.randint(-5, 50)
        return p4runtime_pb2.MeterConfig(cir=cir, cburst=self.r.randint(0, 9), pir=pir,
                                         pburst=self.r.randint(0, 9))

    def table_entry(self, tid: int | None = None) -> p4runtime_pb2.TableEntry:
        if tid is None:
            tid = self.obj_id([t.preamble.id for t in S.p4info.tables])
        t = next((x for x in S.p4info.tables if x.preamble.id == tid), S.p4info.tables[0])
        te = p4runtime_pb2.TableEntry(table_id=tid)
        if self.chance(0.1):
            te.is_default_action = True
            if self.chance(0.7):
                te.action.action.CopyFrom(self.action(t))
            return te
        for f in t.match_fields:
            fm = self.field_match(f)
            if fm is not None and not (f.match_type == MF.EXACT and self.chance(0.02)):
                te.match.append(fm)
        needs = any(f.match_type != MF.EXACT and f.match_type != MF.LPM
                    for f in t.match_fields)
        te.priority = self.r.choice([1, 2, 3] if needs else [0]) if not self.chance(
            0.05) else self.r.choice([0, -1, 7])
        if not self.chance(0.1):
            te.action.action.CopyFrom(self.action(t))
        if self.chance(0.2):
            te.controller_metadata = self.r.randint(0, 3)
        if self.chance(0.2):
            te.metadata = self.r.randbytes(self.r.randint(0, 3))
        if self.chance(0.15):
            te.counter_data.packet_count = self.r.randint(-1, 9)
        if self.chance(0.15):
            te.meter_config.CopyFrom(self.meter_config())
        if self.chance(0.03):
            te.idle_timeout_ns = 1000
        if self.chance(0.02):
            te.is_const = True
        return te

    def entity(self) -> p4runtime_pb2.Entity:
        e, r = p4runtime_pb2.Entity(), self.r
        kind = r.choices(["table", "counter", "dcounter", "meter", "dmeter", "register",
                          "group", "session", "vs", "digest", "odd"],
                         [40, 6, 5, 5, 5, 6, 8, 5, 5, 5, 3])[0]
        if kind == "table":
            e.table_entry.CopyFrom(self.table_entry())
        elif kind in ("counter", "meter", "register"):
            ids = {"counter": [c.preamble.id for c in S.p4info.counters],
                   "meter": [m.preamble.id for m in S.p4info.meters],
                   "register": [x.preamble.id for x in S.p4info.registers]}[kind]
            msg = getattr(e, kind + "_entry")
            setattr(msg, kind + "_id", self.obj_id(ids))
            if not self.chance(0.1):
                msg.index.index = r.choice([0, 1, 2, 511, 512, -1])
            if kind == "counter" and self.chance(0.9):
                msg.data.packet_count = r.randint(-1, 99)
                msg.data.byte_count = r.randint(0, 999)
            elif kind == "meter" and self.chance(0.7):
                msg.config.CopyFrom(self.meter_config())
            elif kind == "register" and self.chance(0.95):
                msg.data.bitstring = self.raw(r.randint(0, 1 << 20), 32)
        elif kind in ("dcounter", "dmeter"):
            msg = e.direct_counter_entry if kind == "dcounter" else e.direct_meter_entry
            direct = S.table_id("l2" if kind == "dcounter" else "acl")
            msg.table_entry.CopyFrom(self.table_entry(None if self.chance(0.1) else direct))
            msg.table_entry.ClearField("action")
            if kind == "dcounter" and self.chance(0.8):
                msg.data.packet_count = r.randint(0, 9)
            elif kind == "dmeter" and self.chance(0.7):
                msg.config.CopyFrom(self.meter_config())
        elif kind == "group":
            mg = e.packet_replication_engine_entry.multicast_group_entry
            mg.multicast_group_id = r.choice([1, 2, 3, 0, 70000])
            for _ in range(r.randint(0, 3)):
                rep = mg.replicas.add(instance=r.randint(0, 2))
                if self.chance(0.5):
                    rep.port = self.raw(r.randint(0, 5), 9)
                else:
                    rep.egress_port = r.choice([1, 2, 3, 600])
            mg.metadata = r.randbytes(r.randint(0, 2))
        elif kind == "session":
            cs = e.packet_replication_engine_entry.clone_session_entry
            cs.session_id = r.choice([1, 2, 0])
            for _ in range(r.randint(0, 2)):
                cs.replicas.add(egress_port=r.randint(1, 3), instance=r.randint(0, 1))
            cs.class_of_service = r.choice([0, 1, 9])
            cs.packet_length_bytes = r.choice([0, 64, -1])
        elif kind == "vs":
            vs = e.value_set_entry
            vs.value_set_id = self.obj_id([v.preamble.id for v in S.p4info.value_sets])
            for _ in range(r.randint(0, 5)):
                vs.members.add().match.add(field_id=1).exact.value = self.raw(
                    r.randint(0, 3), 16)
        elif kind == "digest":
            de = e.digest_entry
            de.digest_id = self.obj_id([d.preamble.id for d in S.p4info.digests])
            if not self.chance(0.1):
                de.config.max_list_size = r.randint(-1, 5)
                de.config.max_timeout_ns = r.randint(0, 10**6)
                de.config.ack_timeout_ns = r.randint(0, 10**6)
        elif self.chance(0.5):
            e.action_profile_member.member_id = 1
        return e

    def request(self) -> p4runtime_pb2.WriteRequest:
        req = p4runtime_pb2.WriteRequest()
        for _ in range(self.r.randint(1, 8)):
            e = self.entity()
            which = e.WhichOneof("entity")
            modify_only = which in _MODIFY_ONLY or (
                which == "table_entry" and e.table_entry.is_default_action)
            kind = U.MODIFY if modify_only and not self.chance(0.1) else self.kind()
            req.updates.add(type=kind).entity.CopyFrom(e)
        if self.chance(0.05):  # flip random bits of the serialized request
            data = bytearray(req.SerializeToString())
            for _ in range(self.r.randint(1, 4)):
                i = self.r.randrange(len(data))
                data[i] ^= 1 << self.r.randrange(8)
            try:
                req = p4runtime_pb2.WriteRequest.FromString(bytes(data))
            except Exception:  # noqa: BLE001 - not parseable: send the original
                pass
        return req


def test_random_write_requests(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="behavioral_model.p4runtime")
    c = harness.primary_with(SWITCH)
    model = Model(read_all(c))
    gen = Gen(random.Random(20240601))
    outcomes: dict[int, int] = {}
    for n in range(1, REQUESTS + 1):
        req = gen.request()
        req.device_id, req.election_id.low = 1, 1
        if gen.chance(0.01):
            req.election_id.low = 0  # not the primary
        if gen.chance(0.01):
            req.atomicity = p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR
        try:
            harness.stub.Write(req, timeout=30)
            codes = [code_pb2.OK] * len(req.updates)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.UNKNOWN:
                assert err.code() in (grpc.StatusCode.PERMISSION_DENIED,
                                      grpc.StatusCode.UNIMPLEMENTED,
                                      grpc.StatusCode.NOT_FOUND), err
                continue
            codes = detail_codes(err)
            assert len(codes) == len(req.updates)
        for u, code in zip(req.updates, codes, strict=True):
            outcomes[code] = outcomes.get(code, 0) + 1
            assert code != code_pb2.INTERNAL, (u, code)
            if code == code_pb2.OK:
                model.apply(u)
        if n % CHECK_EVERY == 0 or n == REQUESTS:
            got = read_all(c)
            for key in model.s:
                assert got[key] == model.s[key], f"after {n} requests: {key} differs"
    assert outcomes.get(code_pb2.OK, 0) > REQUESTS // 4  # the fuzz is not all noise
    assert len(outcomes) >= 5
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors[0].getMessage()
    # The server still serves.
    assert harness.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version
