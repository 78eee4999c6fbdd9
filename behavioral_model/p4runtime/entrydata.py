"""A ``TableEntry`` as plain Python data: what the table-entry write path works on.

Two producers feed the write path: :func:`entry_data` converts a protobuf
``p4.v1.TableEntry``, and the hand-written wire decoder of the Write hot path
(``wire``) builds :class:`EntryData` straight from the request bytes. Both give the
same values for the same bytes (the wire decoder's tests check this), so the checks
downstream run once, on one representation.

Protobuf presence is kept where the spec gives it meaning: ``action`` is None when the
``TableEntry.action`` field is unset; ``counter_data``/``meter_config`` are None when
unset; ``time_since_last_hit``/``meter_counter_data`` say whether they were set. The
wire decoder never produces the latter four: an entry carrying them is decoded by
protobuf.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from .fieldmatch import MatchData, match_data

__all__ = ["ParamData", "OneShotAction", "TableActionData", "EntryData", "entry_data",
           "action_data", "params_of"]

#: ``(param_id, value)`` of one action parameter, as written.
ParamData = tuple[int, bytes]


@dataclass(slots=True)
class OneShotAction:
    """One ``ActionProfileAction`` of a one-shot action set."""

    action_id: int
    params: list[ParamData]
    weight: int
    watch: int = 0
    watch_port: bytes = b""
    has_action: bool = True


@dataclass(slots=True)
class TableActionData:
    """A ``TableAction``: ``which`` is the oneof case set (None if none is), then the
    action (``action_id``, ``params``), the member or group id (``ref_id``) or the
    one-shot set (``action_set``)."""

    which: str | None
    action_id: int = 0
    params: list[ParamData] = field(default_factory=list)
    ref_id: int = 0
    action_set: list[OneShotAction] = field(default_factory=list)


@dataclass(slots=True)
class EntryData:
    table_id: int = 0
    matches: list[MatchData] = field(default_factory=list)
    action: TableActionData | None = None
    priority: int = 0
    controller_metadata: int = 0
    metadata: bytes = b""
    is_default_action: bool = False
    idle_timeout_ns: int = 0
    is_const: bool = False
    time_since_last_hit: bool = False
    meter_counter_data: bool = False
    counter_data: p4runtime_pb2.CounterData | None = None
    meter_config: p4runtime_pb2.MeterConfig | None = None


def params_of(action: p4runtime_pb2.Action) -> list[ParamData]:
    return [(p.param_id, p.value) for p in action.params]


def action_data(ta: p4runtime_pb2.TableAction) -> TableActionData:
    which = ta.WhichOneof("type")
    if which == "action":
        return TableActionData(which, ta.action.action_id, params_of(ta.action))
    if which == "action_profile_member_id":
        return TableActionData(which, ref_id=ta.action_profile_member_id)
    if which == "action_profile_group_id":
        return TableActionData(which, ref_id=ta.action_profile_group_id)
    if which == "action_profile_action_set":
        shots = []
        for a in ta.action_profile_action_set.action_profile_actions:
            shots.append(OneShotAction(a.action.action_id, params_of(a.action), a.weight,
                                       a.watch, a.watch_port, a.HasField("action")))
        return TableActionData(which, action_set=shots)
    return TableActionData(None)


def entry_data(te: p4runtime_pb2.TableEntry) -> EntryData:
    """The plain form of a protobuf ``TableEntry``."""
    return EntryData(
        table_id=te.table_id,
        matches=[match_data(fm) for fm in te.match],
        action=action_data(te.action) if te.HasField("action") else None,
        priority=te.priority,
        controller_metadata=te.controller_metadata,
        metadata=te.metadata,
        is_default_action=te.is_default_action,
        idle_timeout_ns=te.idle_timeout_ns,
        is_const=te.is_const,
        time_since_last_hit=te.HasField("time_since_last_hit"),
        meter_counter_data=te.HasField("meter_counter_data"),
        counter_data=te.counter_data if te.HasField("counter_data") else None,
        meter_config=te.meter_config if te.HasField("meter_config") else None,
    )
