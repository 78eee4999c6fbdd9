"""Arguments as simple_switch_CLI writes them, turned into P4Runtime values.

Numbers and addresses follow ``p4rt_client.values`` (decimal, 0x hex, 0b binary, MAC,
IPv4, IPv6), the notation STF files share. Match keys, one per key field in P4Info
order: exact ``v``; LPM ``v/len``; ternary ``v&&&mask``; range ``lo->hi``; optional
``v`` (a bare value on an LPM, ternary or range field matches it exactly). A
wildcard (prefix length 0, mask 0, full range) leaves the field out of the entry, as
P4Runtime requires.

Priorities: in BMv2's CLI the *smallest* number wins; in P4Runtime the largest.
A CLI priority ``p`` is sent as ``PRIORITY_BASE - p``, which stays in 1..2**24-1.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from behavioral_model.cli.runtime_shell.context import CommandError
from p4rt_client.values import parse_int, parse_value

__all__ = [
    "PRIORITY_BASE",
    "needs_priority",
    "number",
    "value",
    "match_value",
    "split_arrow",
    "to_p4rt_priority",
    "from_p4rt_priority",
]

PRIORITY_BASE = (1 << 24) - 1
_MatchField = p4info_pb2.MatchField
_PRIORITY_KINDS = (_MatchField.TERNARY, _MatchField.RANGE, _MatchField.OPTIONAL)


def number(text: str, what: str) -> int:
    """A plain number (an index, a handle, a port...)."""
    try:
        return parse_int(text)
    except ValueError:
        raise CommandError(f"{what}: '{text}' is not a number") from None


def value(text: str, what: str, width: int | None = None) -> int:
    """A number or an address (of at most ``width`` bits)."""
    try:
        number_ = parse_value(text)
    except ValueError as error:
        raise CommandError(f"{what}: {error}") from None
    if width is not None and number_ >> width:
        raise CommandError(f"{what}: {text} does not fit in {width} bits")
    return number_


def needs_priority(table: p4info_pb2.Table) -> bool:
    return any(f.match_type in _PRIORITY_KINDS for f in table.match_fields)


def match_value(text: str, field: p4info_pb2.MatchField) -> object | None:
    """The P4InfoHelper match value of ``text`` for ``field``; None for a wildcard."""
    width = field.bitwidth
    full = (1 << width) - 1
    what = f"key field '{field.name}'"
    kind = field.match_type
    if kind == _MatchField.LPM:
        address, slash, length_text = text.rpartition("/")
        if not slash:
            return (value(text, what, width), width)
        length = number(length_text, what)
        if not 0 <= length <= width:
            raise CommandError(f"{what}: prefix length {length} is not in 0..{width}")
        mask = full ^ ((1 << (width - length)) - 1)
        return None if length == 0 else (value(address, what, width) & mask, length)
    if kind == _MatchField.TERNARY:
        key, amps, mask_text = text.partition("&&&")
        mask = value(mask_text, what, width) if amps else full
        return None if mask == 0 else (value(key, what, width) & mask, mask)
    if kind == _MatchField.RANGE:
        low_text, arrow, high_text = text.partition("->")
        low = value(low_text, what, width)
        high = value(high_text, what, width) if arrow else low
        if low > high:
            raise CommandError(f"{what}: empty range {low_text}->{high_text}")
        return None if (low, high) == (0, full) else (low, high)
    if kind in (_MatchField.EXACT, _MatchField.OPTIONAL):
        return value(text, what, width)
    raise CommandError(f"{what}: match kind {kind} is not supported")


def split_arrow(words: list[str]) -> tuple[list[str], list[str]]:
    """The words before and after ``=>`` (everything is before without one)."""
    if "=>" not in words:
        return words, []
    at = words.index("=>")
    return words[:at], words[at + 1:]


def to_p4rt_priority(text: str) -> int:
    priority = number(text, "priority")
    if not 0 <= priority < PRIORITY_BASE:
        raise CommandError(f"priority {priority} is not in 0..{PRIORITY_BASE - 1}")
    return PRIORITY_BASE - priority


def from_p4rt_priority(priority: int) -> int:
    return PRIORITY_BASE - priority
