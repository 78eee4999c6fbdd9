"""Codecs for the value parts of entities: actions, meter configurations, counter data."""

from __future__ import annotations

from collections.abc import Iterable

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.errors import InvalidConfigError
from behavioral_model.runtime.externs import CounterCell, MeterConfig, TrTcmMeter
from behavioral_model.runtime.tables import ActionCall

from .codec import decode_uint, encode_uint
from .entrydata import ParamData
from .errors import from_runtime_error, invalid, permission_denied
from .p4info_index import ActionProfileInfo, P4InfoIndex, TableInfo

__all__ = [
    "check_scope", "decode_action", "encode_action", "decode_meter_config",
    "encode_meter_config", "make_meter", "decode_counter_data", "encode_counter_data",
]

_SCOPE = p4info_pb2.ActionRef


def check_scope(table: TableInfo | ActionProfileInfo, action_id: int, default: bool,
                what: str) -> None:
    """``action_id`` must be one of the table's (or profile's) actions and fit its
    scope: INVALID_ARGUMENT / PERMISSION_DENIED otherwise."""
    scope = table.scopes.get(action_id)
    if scope is None:
        raise invalid(f"{what}: action id {action_id} is not one of its actions")
    if scope == _SCOPE.TABLE_ONLY and default:
        raise permission_denied(f"{what}: action is @tableonly; it cannot be the default "
                                "action")
    if scope == _SCOPE.DEFAULT_ONLY and not default:
        raise permission_denied(f"{what}: action is @defaultonly; it can only be the "
                                "default action")


def decode_action(index: P4InfoIndex, action_id: int,
                  params: Iterable[ParamData]) -> ActionCall:
    """The call of action ``action_id`` with ``params`` (all of them, each once)."""
    info = index.action(action_id)
    values: dict[int, int] = {}
    by_id = info.params_by_id
    for param_id, data in params:
        param = by_id.get(param_id)
        if param is None:
            raise invalid(f"action '{info.name}': unknown parameter id {param_id}")
        if param_id in values:
            raise invalid(f"action '{info.name}': parameter '{param.name}' given twice")
        value = int.from_bytes(data, "big")
        if not data or value >> param.bitwidth:
            decode_uint(data, param.bitwidth,
                        f"action '{info.name}' parameter '{param.name}'")  # raises
        values[param_id] = value
    if len(values) != len(info.params):
        missing = [p.name for p in info.params if p.id not in values]
        raise invalid(f"action '{info.name}': missing parameter(s) {', '.join(missing)}")
    return ActionCall(info.name, tuple([values[p.id] for p in info.params]))


def encode_action(index: P4InfoIndex, call: ActionCall,
                  out: p4runtime_pb2.Action | None = None) -> p4runtime_pb2.Action | None:
    """The ``Action`` for ``call`` (filled into ``out`` when given); None (and ``out``
    untouched) if the action is not in the P4Info."""
    action_id = index.action_ids.get(call.name)
    if action_id is None:
        return None
    info = index.actions[action_id]
    if out is None:
        out = p4runtime_pb2.Action()
    out.action_id = action_id
    for param, value in zip(info.params, call.args, strict=False):
        out.params.add(param_id=param.id, value=encode_uint(value))
    return out


def decode_meter_config(cfg: p4runtime_pb2.MeterConfig, what: str) -> MeterConfig:
    if cfg.eburst:
        raise invalid(f"{what}: eburst is only for srTCM meters; v1model meters are trTCM")
    if min(cfg.cir, cfg.cburst, cfg.pir, cfg.pburst) < 0:
        raise invalid(f"{what}: meter rates and bursts cannot be negative")
    if cfg.cir > cfg.pir:
        raise invalid(f"{what}: committed rate {cfg.cir} exceeds peak rate {cfg.pir}")
    return MeterConfig(cfg.cir, cfg.cburst, cfg.pir, cfg.pburst)


def make_meter(config: MeterConfig) -> TrTcmMeter:
    try:
        return TrTcmMeter(config)
    except InvalidConfigError as err:
        raise from_runtime_error(err) from None


def encode_meter_config(config: MeterConfig) -> p4runtime_pb2.MeterConfig:
    return p4runtime_pb2.MeterConfig(cir=int(config.cir), cburst=config.cburst,
                                     pir=int(config.pir), pburst=config.pburst)


def decode_counter_data(data: p4runtime_pb2.CounterData, what: str) -> tuple[int, int]:
    """``(packets, bytes)``."""
    if data.packet_count < 0 or data.byte_count < 0:
        raise invalid(f"{what}: counter values cannot be negative")
    return data.packet_count, data.byte_count


def encode_counter_data(packets: int, nbytes: int) -> p4runtime_pb2.CounterData:
    return p4runtime_pb2.CounterData(packet_count=packets, byte_count=nbytes)


def counter_cell(data: p4runtime_pb2.CounterData, what: str) -> CounterCell:
    packets, nbytes = decode_counter_data(data, what)
    return CounterCell(packets, nbytes)
