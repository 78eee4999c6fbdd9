"""One dataclass per STF command; a parsed file is a ``list[Command]``.

Every command carries ``line`` (1-based) so a runner can report where a failing
command came from. Names (tables, actions, keys, counters) are kept exactly as
written; resolving them against the program (suffixes, ``$valid$``) is the runner's
job. Integers are already converted; key values keep their written form
(see ``key_values``) because their meaning depends on the key field.

The BMv2 CLI pass-through commands accepted by p4c's BMv2 runner
(``mirroring_*``, ``mc_*``, ``counter_*``, ``register_*``, ``meter_*``) have their
own classes with the arguments ``simple_switch_CLI`` takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from behavioral_model.stf.expected_packet import ExpectedPacket
from behavioral_model.stf.key_values import KeyValue

__all__ = [
    "Command",
    "AddEntry",
    "RemoveEntry",
    "RemoveAll",
    "SetDefault",
    "SendPacket",
    "ExpectPacket",
    "ExpectNoPacket",
    "Wait",
    "CheckCounter",
    "MirroringAdd",
    "MirroringAddMc",
    "MirroringDelete",
    "MirroringGet",
    "McGroupCreate",
    "McGroupDestroy",
    "McNodeCreate",
    "McNodeUpdate",
    "McNodeAssociate",
    "McNodeDissociate",
    "McNodeDestroy",
    "CounterRead",
    "CounterWrite",
    "CounterReset",
    "RegisterRead",
    "RegisterWrite",
    "RegisterReset",
    "MeterRate",
    "MeterGetRates",
    "MeterSetRates",
    "MeterArraySetRates",
    "AnyCommand",
]


@dataclass(frozen=True)
class Command:
    line: int = field(kw_only=True, default=0, compare=False)


# -- tables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AddEntry(Command):
    """``add TABLE [PRIORITY] KEY:VALUE ... ACTION(PARAM:VALUE, ...) [= HANDLE]``.

    ``priority`` is None when not written; as in p4c's runner, a larger number wins.
    ``handle`` names the entry for a later ``check_counter NAME($handle)``.
    """

    table: str
    priority: int | None
    keys: tuple[tuple[str, KeyValue], ...]
    action: str
    args: tuple[tuple[str, int], ...] = ()
    handle: str | None = None


@dataclass(frozen=True)
class RemoveEntry(Command):
    """``remove TABLE [PRIORITY] KEY:VALUE ...`` (an extension: p4c's grammar
    reserves it but only implements ``remove all``)."""

    table: str
    priority: int | None
    keys: tuple[tuple[str, KeyValue], ...]


@dataclass(frozen=True)
class RemoveAll(Command):
    """``remove all``: delete every runtime entry of every table."""


@dataclass(frozen=True)
class SetDefault(Command):
    """``setdefault TABLE ACTION(PARAM:VALUE, ...)``."""

    table: str
    action: str
    args: tuple[tuple[str, int], ...] = ()


# -- packets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SendPacket(Command):
    """``packet PORT HEX...``: inject ``data`` on ``port``."""

    port: int
    data: bytes


@dataclass(frozen=True)
class ExpectPacket(Command):
    """``expect PORT [HEX...] [$]``: a packet leaves on ``port``. ``expected`` is None
    for a bare ``expect PORT`` (any content)."""

    port: int
    expected: ExpectedPacket | None


@dataclass(frozen=True)
class ExpectNoPacket(Command):
    """``no_packet``: p4c's grammar has it (an expectation that nothing comes out)."""


@dataclass(frozen=True)
class Wait(Command):
    """``wait``: let in-flight packets drain before the next command."""


@dataclass(frozen=True)
class CheckCounter(Command):
    """``check_counter NAME(INDEX) [packets|bytes OP VALUE]``.

    ``index`` is a number, or a handle name from ``add ... = NAME``. Without the
    optional part p4c's parser records ``(None, "==", 0)``; so do we.
    """

    counter: str
    index: int | str
    kind: Literal["packets", "bytes"] | None = None
    op: Literal["==", "!=", "<", "<=", ">", ">="] = "=="
    value: int = 0


# -- BMv2 CLI pass-through: PRE -----------------------------------------------------------


@dataclass(frozen=True)
class MirroringAdd(Command):
    session: int
    port: int


@dataclass(frozen=True)
class MirroringAddMc(Command):
    session: int
    group: int


@dataclass(frozen=True)
class MirroringDelete(Command):
    session: int


@dataclass(frozen=True)
class MirroringGet(Command):
    session: int


@dataclass(frozen=True)
class McGroupCreate(Command):
    group: int


@dataclass(frozen=True)
class McGroupDestroy(Command):
    group: int


@dataclass(frozen=True)
class McNodeCreate(Command):
    """``mc_node_create RID PORT...``; BMv2 numbers node handles 0, 1, ... ."""

    rid: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class McNodeUpdate(Command):
    handle: int
    ports: tuple[int, ...]


@dataclass(frozen=True)
class McNodeAssociate(Command):
    group: int
    handle: int


@dataclass(frozen=True)
class McNodeDissociate(Command):
    group: int
    handle: int


@dataclass(frozen=True)
class McNodeDestroy(Command):
    handle: int


# -- BMv2 CLI pass-through: externs --------------------------------------------------------


@dataclass(frozen=True)
class CounterRead(Command):
    counter: str
    index: int


@dataclass(frozen=True)
class CounterWrite(Command):
    counter: str
    index: int
    packets: int
    bytes: int


@dataclass(frozen=True)
class CounterReset(Command):
    counter: str


@dataclass(frozen=True)
class RegisterRead(Command):
    register: str
    index: int


@dataclass(frozen=True)
class RegisterWrite(Command):
    register: str
    index: int
    value: int


@dataclass(frozen=True)
class RegisterReset(Command):
    register: str


@dataclass(frozen=True)
class MeterRate:
    """One ``RATE:BURST`` pair in BMv2 CLI units: rate per microsecond, burst in
    units. Meter commands list the committed pair first, then the peak pair."""

    rate_per_us: float
    burst: int


@dataclass(frozen=True)
class MeterGetRates(Command):
    meter: str
    index: int


@dataclass(frozen=True)
class MeterSetRates(Command):
    meter: str
    index: int
    rates: tuple[MeterRate, ...]


@dataclass(frozen=True)
class MeterArraySetRates(Command):
    meter: str
    rates: tuple[MeterRate, ...]


AnyCommand = (
    AddEntry
    | RemoveEntry
    | RemoveAll
    | SetDefault
    | SendPacket
    | ExpectPacket
    | ExpectNoPacket
    | Wait
    | CheckCounter
    | MirroringAdd
    | MirroringAddMc
    | MirroringDelete
    | MirroringGet
    | McGroupCreate
    | McGroupDestroy
    | McNodeCreate
    | McNodeUpdate
    | McNodeAssociate
    | McNodeDissociate
    | McNodeDestroy
    | CounterRead
    | CounterWrite
    | CounterReset
    | RegisterRead
    | RegisterWrite
    | RegisterReset
    | MeterGetRates
    | MeterSetRates
    | MeterArraySetRates
)
