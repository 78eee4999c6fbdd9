"""P4Info lookups by *name* and P4Runtime entity builders (no IDs in tests, ever).

    helper = P4InfoHelper.from_file("build/prog.p4info.txtpb")
    entry = helper.table_entry("l2_fwd", match={"dst_addr": "00:00:00:00:00:02"},
                               action="forward", params={"port": 2})

Names: a fully-qualified P4Info name (``SmokeIngress.l2_fwd``), its alias, or any
dot-separated suffix of it that is unique among the objects of that kind
(``l2_fwd``). Match fields and action parameters likewise (``hdr.ethernet.dst_addr``
or ``dst_addr``). The rules are in ``names``.

Values: ``int``; ``bytes`` (big-endian, any length that fits the bit width); or a
string in BMv2 CLI notation (``values``): a number, a MAC (``"00:11:22:33:44:55"``),
an IPv4 or an IPv6 address. They are sent as canonical byte strings (P4Runtime 1.4,
8.4: the shortest big-endian string, at least one byte) unless the helper is built with
``canonical=False``, which pads them to the full width (what older P4Runtime servers
such as early PI/BMv2 builds insisted on).

Match values, by the field's match kind:

============  =====================================================================
exact         ``value``
lpm           ``(value, prefix_len)``; a bare value is a full-width prefix
ternary       ``(value, mask)``; a bare value has an all-ones mask
range         ``(low, high)``
optional      ``value``
============  =====================================================================

A field left out of ``match`` is a wildcard (not allowed for exact fields: the server
says so). Values are not masked for you: an LPM or ternary value with bits outside its
prefix or mask is sent as given, so negative tests can send one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from .names import UnknownNameError, resolve_key_field, resolve_name
from .values import Value, decode_value, encode_value

__all__ = ["P4InfoHelper", "load_p4info"]

# P4Info repeated fields holding objects with a preamble, by the kind names used here.
KINDS = ("tables", "actions", "action_profiles", "counters", "direct_counters",
         "meters", "direct_meters", "controller_packet_metadata", "value_sets",
         "registers", "digests", "externs")


def load_p4info(path: str | Path) -> p4info_pb2.P4Info:
    """Read a P4Info file: text (``.txt``, ``.txtpb``, ``.pb.txt``), JSON or binary."""
    path = Path(path)
    data = path.read_bytes()
    p4info = p4info_pb2.P4Info()
    name = path.name
    if name.endswith(".json"):
        json_format.Parse(data.decode("utf-8"), p4info)
    elif name.endswith((".bin", ".pb")):
        p4info.ParseFromString(data)
    else:
        text_format.Parse(data.decode("utf-8"), p4info)
    return p4info


class P4InfoHelper:
    """Name lookups and entity builders over one P4Info."""

    def __init__(self, p4info: p4info_pb2.P4Info, canonical: bool = True) -> None:
        self.p4info = p4info
        self.canonical = canonical
        self._by_id: dict[int, Any] = {}
        for kind in KINDS:
            for obj in getattr(p4info, kind):
                self._by_id[obj.preamble.id] = obj

    @classmethod
    def from_file(cls, path: str | Path, canonical: bool = True) -> P4InfoHelper:
        return cls(load_p4info(path), canonical)

    # -- lookups ------------------------------------------------------------------------
    def get(self, kind: str, name: str) -> Any:
        """The P4Info object of ``kind`` (e.g. "tables", "counters") named ``name``
        (full name, alias or unique suffix: see ``names``); UnknownNameError if none."""
        if kind not in KINDS:
            raise ValueError(f"unknown P4Info kind {kind!r}")
        objects = getattr(self.p4info, kind)
        by_alias = [o for o in objects if o.preamble.alias == name]
        if len(by_alias) == 1 and not any(o.preamble.name == name for o in objects):
            return by_alias[0]
        full = resolve_name(name, (o.preamble.name for o in objects), kind[:-1])
        return next(o for o in objects if o.preamble.name == full)

    def get_id(self, kind: str, name: str) -> int:
        return int(self.get(kind, name).preamble.id)

    def by_id(self, object_id: int) -> Any:
        """The P4Info object (table, action, counter...) with this id."""
        return self._by_id[object_id]

    def name_of(self, object_id: int) -> str:
        return str(self._by_id[object_id].preamble.name)

    def table(self, name: str) -> p4info_pb2.Table:
        return self.get("tables", name)

    def action(self, name: str) -> p4info_pb2.Action:
        return self.get("actions", name)

    def match_field(self, table: str, name: str) -> p4info_pb2.MatchField:
        info = self.table(table)
        fields = info.match_fields
        return fields[resolve_key_field(name, [f.name for f in fields], info.preamble.name)]

    def action_param(self, action: str, name: str) -> p4info_pb2.Action.Param:
        info = self.action(action)
        full = resolve_name(name, (p.name for p in info.params), "parameter",
                            f" of action '{info.preamble.name}'")
        return next(p for p in info.params if p.name == full)

    def encode(self, value: Value, bitwidth: int) -> bytes:
        return encode_value(value, bitwidth, self.canonical)

    # -- builders -----------------------------------------------------------------------
    def action_msg(self, name: str, params: Mapping[str, Value] | None = None
                   ) -> p4runtime_pb2.Action:
        info = self.action(name)
        action = p4runtime_pb2.Action(action_id=info.preamble.id)
        given = {self.action_param(name, key).name: value
                 for key, value in (params or {}).items()}
        for p in info.params:
            if p.name not in given:
                raise UnknownNameError(f"action {info.preamble.name}: parameter "
                                       f"{p.name!r} not given")
            action.params.add(param_id=p.id, value=self.encode(given[p.name], p.bitwidth))
        return action

    def field_match(self, table: str, name: str, value: Any) -> p4runtime_pb2.FieldMatch:
        mf = self.match_field(table, name)
        fm = p4runtime_pb2.FieldMatch(field_id=mf.id)
        bw = mf.bitwidth
        kind = mf.match_type
        pair = isinstance(value, tuple)
        if kind == p4info_pb2.MatchField.EXACT:
            fm.exact.value = self.encode(value, bw)
        elif kind == p4info_pb2.MatchField.LPM:
            v, plen = value if pair else (value, bw)
            fm.lpm.value = self.encode(v, bw)
            fm.lpm.prefix_len = plen
        elif kind == p4info_pb2.MatchField.TERNARY:
            v, mask = value if pair else (value, (1 << bw) - 1)
            fm.ternary.value = self.encode(v, bw)
            fm.ternary.mask = self.encode(mask, bw)
        elif kind == p4info_pb2.MatchField.RANGE:
            low, high = value
            fm.range.low = self.encode(low, bw)
            fm.range.high = self.encode(high, bw)
        elif kind == p4info_pb2.MatchField.OPTIONAL:
            fm.optional.value = self.encode(value, bw)
        else:
            raise ValueError(f"match field {mf.name}: unsupported match type {kind}")
        return fm

    def table_entry(self, table: str, match: Mapping[str, Any] | None = None,
                    action: str | None = None, params: Mapping[str, Value] | None = None,
                    priority: int = 0, default: bool = False,
                    idle_timeout_ns: int = 0) -> p4runtime_pb2.TableEntry:
        """A TableEntry by names; ``default=True`` builds the table's default entry
        (no match; ``action=None`` then means "the program's default")."""
        info = self.table(table)
        entry = p4runtime_pb2.TableEntry(table_id=info.preamble.id, priority=priority,
                                         is_default_action=default,
                                         idle_timeout_ns=idle_timeout_ns)
        for name, value in (match or {}).items():
            entry.match.append(self.field_match(table, name, value))
        if action is not None:
            entry.action.action.CopyFrom(self.action_msg(action, params))
        return entry

    def counter_entry(self, name: str, index: int | None = None
                      ) -> p4runtime_pb2.CounterEntry:
        entry = p4runtime_pb2.CounterEntry(counter_id=self.get_id("counters", name))
        if index is not None:
            entry.index.index = index
        return entry

    def direct_counter_entry(self, table_entry: p4runtime_pb2.TableEntry
                             ) -> p4runtime_pb2.DirectCounterEntry:
        entry = p4runtime_pb2.DirectCounterEntry()
        entry.table_entry.CopyFrom(table_entry)
        entry.table_entry.ClearField("action")
        return entry

    def register_entry(self, name: str, index: int | None = None
                       ) -> p4runtime_pb2.RegisterEntry:
        entry = p4runtime_pb2.RegisterEntry(register_id=self.get_id("registers", name))
        if index is not None:
            entry.index.index = index
        return entry

    def digest_entry(self, name: str, max_timeout_ns: int = 0, max_list_size: int = 1,
                     ack_timeout_ns: int = 1_000_000_000) -> p4runtime_pb2.DigestEntry:
        entry = p4runtime_pb2.DigestEntry(digest_id=self.get_id("digests", name))
        entry.config.max_timeout_ns = max_timeout_ns
        entry.config.max_list_size = max_list_size
        entry.config.ack_timeout_ns = ack_timeout_ns
        return entry

    @staticmethod
    def _replicas(ports: Iterable[int | tuple[int, int]]) -> list[p4runtime_pb2.Replica]:
        """Replicas from ports (instance 0) or ``(port, instance)`` pairs."""
        replicas = []
        for item in ports:
            port, instance = item if isinstance(item, tuple) else (item, 0)
            replicas.append(p4runtime_pb2.Replica(egress_port=port, instance=instance))
        return replicas

    def multicast_group_entry(self, group_id: int,
                              replicas: Iterable[int | tuple[int, int]]
                              ) -> p4runtime_pb2.PacketReplicationEngineEntry:
        """Replicas as ports or ``(port, instance)``; the instance (egress_rid) is 0
        when only a port is given."""
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        pre.multicast_group_entry.multicast_group_id = group_id
        pre.multicast_group_entry.replicas.extend(self._replicas(replicas))
        return pre

    def clone_session_entry(self, session_id: int,
                            replicas: Iterable[int | tuple[int, int]],
                            class_of_service: int = 0, packet_length_bytes: int = 0
                            ) -> p4runtime_pb2.PacketReplicationEngineEntry:
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        cs = pre.clone_session_entry
        cs.session_id = session_id
        cs.class_of_service = class_of_service
        cs.packet_length_bytes = packet_length_bytes
        cs.replicas.extend(self._replicas(replicas))
        return pre

    # -- controller packet metadata -----------------------------------------------------
    def packet_metadata(self, header: str, values: Mapping[str, Value]
                        ) -> list[p4runtime_pb2.PacketMetadata]:
        """Metadata for ``header`` ("packet_out"): every field of the header, in P4Info
        order; fields not in ``values`` (padding) are sent as 0."""
        info = self.get("controller_packet_metadata", header)
        values = dict(values)
        result = []
        for md in info.metadata:
            value = values.pop(md.name, 0)
            result.append(p4runtime_pb2.PacketMetadata(
                metadata_id=md.id, value=self.encode(value, md.bitwidth)))
        if values:
            raise KeyError(f"{header} has no metadata field(s) " + ", ".join(sorted(values)))
        return result

    def decode_packet_metadata(self, header: str,
                               metadata: Iterable[p4runtime_pb2.PacketMetadata]
                               ) -> dict[str, int]:
        """``{field name: int}`` of a PacketIn's metadata."""
        info = self.get("controller_packet_metadata", header)
        names = {md.id: md.name for md in info.metadata}
        return {names.get(m.metadata_id, str(m.metadata_id)): decode_value(m.value)
                for m in metadata}

    @staticmethod
    def decode_p4data(data: p4data_pb2.P4Data) -> Any:
        """P4Data (e.g. one digest) as Python values: a struct or tuple as a tuple of
        its members in declaration order, a bitstring as an int."""
        return _decode_p4data(data)


def _decode_p4data(data: Any) -> Any:
    which = data.WhichOneof("data")
    if which == "bitstring":
        return decode_value(data.bitstring)
    if which in ("struct", "tuple"):
        return tuple(_decode_p4data(m) for m in getattr(data, which).members)
    if which == "header":
        return tuple(decode_value(b) for b in data.header.bitstrings)
    if which == "bool":
        return data.bool
    if which == "enum":
        return data.enum
    raise ValueError(f"cannot decode P4Data of kind {which!r}")
