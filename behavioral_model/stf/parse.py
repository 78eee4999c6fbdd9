"""Parse STF text into command dataclasses.

``parse_stf(text, filename)`` returns ``list[AnyCommand]`` in file order; any syntax
or value problem raises :class:`STFSyntaxError` with ``file:line:col``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.tree import Meta

from behavioral_model.stf import commands as cmd
from behavioral_model.stf.errors import SourceLocation, STFError, STFSyntaxError
from behavioral_model.stf.expected_packet import ExpectedPacket
from behavioral_model.stf.grammar import STF_GRAMMAR
from behavioral_model.stf.key_values import (
    KeyValue,
    MaskedValue,
    NumberValue,
    PrefixValue,
    RangeValue,
)
from p4rt_client.values import parse_int

__all__ = ["parse_stf", "parse_stf_file"]

# Readable names for the terminals an error message may list.
_TERMINAL_NAMES = {
    "NUMBER": "a number",
    "ID": "a name",
    "QUOTED_ID": "a quoted name",
    "PACKET_DATA": "hex packet data",
    "DOLLAR": "'$'",
    "COUNT_KIND": "'packets' or 'bytes'",
    "COMPARE": "a comparison (== != < <= > >=)",
    "_NL": "end of line",
    "$END": "end of file",
}
_COMMANDS = "add, setdefault, packet, expect, wait, check_counter, mirroring_add, mc_mgrp_create"


@cache
def _parser() -> Lark:
    return Lark(STF_GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)


class _BadValue(Exception):
    """Raised inside the transformer; turned into STFSyntaxError with the file name."""

    def __init__(self, message: str, token: Token | Meta) -> None:
        super().__init__(message)
        self.message = message
        self.line = getattr(token, "line", 0) or 0
        self.column = getattr(token, "column", 0) or 0


def _integer(token: Token) -> int:
    """A plain integer: decimal, 0x hex or 0b binary, no '*' digits, no fraction."""
    text = str(token)
    if "*" in text:
        raise _BadValue(f"'{text}': don't-care digits are only allowed in key values", token)
    if "." in text:
        raise _BadValue(f"'{text}': expected an integer", token)
    return parse_int(text)


def _key_number(token: Token) -> NumberValue:
    text = str(token)
    prefix = text[:2].lower()
    if prefix in ("0x", "0b"):
        digits = text[2:]
        bits_per_digit, base = (4, 16) if prefix == "0x" else (1, 2)
        all_ones = "f" if base == 16 else "1"
        care = "".join("0" if d == "*" else all_ones for d in digits)
        return NumberValue(
            value=int(digits.replace("*", "0"), base),
            care_mask=int(care, base),
            written_bits=bits_per_digit * len(digits),
            text=text,
        )
    return NumberValue(_integer(token), 0, None, text)


def _rate(token: Token) -> float:
    text = str(token)
    if "*" in text:
        raise _BadValue(f"'{text}': expected a rate", token)
    return float(text) if "." in text else float(_integer(token))


def _packet_bytes(hex_text: str) -> bytes:
    """The bytes of a ``packet`` line's data, read two hex digits at a time.

    A lone last digit is a byte of its own (``0a0`` is ``0a 00``, ``0a5`` is
    ``0a 05``): p4c's BMv2 runner converts the data pair by pair with
    ``int(text[i:i + 2], 16)``, so a file with an odd digit count still sends a
    packet there, and p4c samples depend on it.
    """
    return bytes(int(hex_text[i:i + 2], 16) for i in range(0, len(hex_text), 2))


def _line(meta: Meta) -> int:
    return getattr(meta, "line", 0)


@v_args(meta=True)
class _ToCommands(Transformer[Token, list[cmd.AnyCommand]]):
    """Parse tree -> command dataclasses (a separate pass, see ``parse_stf``)."""

    def start(self, meta: Meta, children: list[cmd.AnyCommand]) -> list[cmd.AnyCommand]:
        return children

    # -- pieces ------------------------------------------------------------------------

    def name_part(self, meta: Meta, children: list[Token]) -> str:
        text = str(children[0])
        if children[0].type == "QUOTED_ID":
            text = text[1:-1]
        if len(children) == 2:
            text += f"[{_integer(children[1])}]"
        return text

    def name(self, meta: Meta, children: list[str]) -> str:
        return ".".join(children)

    def priority(self, meta: Meta, children: list[Token]) -> int | None:
        return _integer(children[0]) if children else None

    def handle(self, meta: Meta, children: list[Token]) -> str | None:
        return str(children[0]) if children else None

    def number_value(self, meta: Meta, children: list[Token]) -> KeyValue:
        return _key_number(children[0])

    def masked_value(self, meta: Meta, children: list[Token]) -> KeyValue:
        value, mask = children
        return MaskedValue(_integer(value), _integer(mask), f"{value}&&&{mask}")

    def prefix_value(self, meta: Meta, children: list[Token]) -> KeyValue:
        value, length = children
        return PrefixValue(_integer(value), _integer(length), f"{value}/{length}")

    def range_value(self, meta: Meta, children: list[Token]) -> KeyValue:
        low, high = children
        low_value, high_value = _integer(low), _integer(high)
        if low_value > high_value:
            raise _BadValue(f"range {low}..{high}: low is above high", low)
        return RangeValue(low_value, high_value, f"{low}..{high}")

    def key_match(self, meta: Meta, children: list[Any]) -> tuple[str, KeyValue]:
        return children[0], children[1]

    def action_arg(self, meta: Meta, children: list[Token]) -> tuple[str, int]:
        return str(children[0]), _integer(children[1])

    def action_call(
        self, meta: Meta, children: list[Any]
    ) -> tuple[str, tuple[tuple[str, int], ...]]:
        return children[0], tuple(a for a in children[1:] if a is not None)

    def meter_rate(self, meta: Meta, children: list[Token]) -> cmd.MeterRate:
        return cmd.MeterRate(_rate(children[0]), _integer(children[1]))

    # -- tables --------------------------------------------------------------------------

    def add(self, meta: Meta, children: list[Any]) -> cmd.AddEntry:
        table, priority, *keys, (action, args), handle = children
        return cmd.AddEntry(table, priority, tuple(keys), action, args, handle, line=_line(meta))

    def remove_all(self, meta: Meta, children: list[Any]) -> cmd.RemoveAll:
        return cmd.RemoveAll(line=_line(meta))

    def remove_entry(self, meta: Meta, children: list[Any]) -> cmd.RemoveEntry:
        table, priority, *keys = children
        return cmd.RemoveEntry(table, priority, tuple(keys), line=_line(meta))

    def setdefault(self, meta: Meta, children: list[Any]) -> cmd.SetDefault:
        table, (action, args) = children
        return cmd.SetDefault(table, action, args, line=_line(meta))

    # -- packets -------------------------------------------------------------------------

    def packet(self, meta: Meta, children: list[Token]) -> cmd.SendPacket:
        port, *data = children
        hex_text = "".join(data)
        if "*" in hex_text:
            raise _BadValue("'*' is only allowed in expected packets", data[0])
        return cmd.SendPacket(_integer(port), _packet_bytes(hex_text), line=_line(meta))

    def expect(self, meta: Meta, children: list[Token]) -> cmd.ExpectPacket:
        port, *data = children
        exact = bool(data) and data[-1].type == "DOLLAR"
        nibbles = "".join(str(t) for t in data if t.type == "PACKET_DATA")
        if not nibbles and not exact:
            return cmd.ExpectPacket(_integer(port), None, line=_line(meta))
        try:
            expected = ExpectedPacket(nibbles, exact)
        except ValueError as error:
            raise _BadValue(str(error), data[-1]) from None
        return cmd.ExpectPacket(_integer(port), expected, line=_line(meta))

    def no_packet(self, meta: Meta, children: list[Any]) -> cmd.ExpectNoPacket:
        return cmd.ExpectNoPacket(line=_line(meta))

    def wait(self, meta: Meta, children: list[Any]) -> cmd.Wait:
        return cmd.Wait(line=_line(meta))

    def check_counter(self, meta: Meta, children: list[Any]) -> cmd.CheckCounter:
        counter, index_token, *check = children
        index: int | str = (
            _integer(index_token) if index_token.type == "NUMBER" else str(index_token)
        )
        if not check:
            return cmd.CheckCounter(counter, index, line=_line(meta))
        kind, op, value = check
        return cmd.CheckCounter(
            counter, index, str(kind).lower(), str(op), _integer(value),  # type: ignore[arg-type]
            line=_line(meta),
        )

    # -- BMv2 CLI pass-through -----------------------------------------------------------

    def _ints(self, children: list[Token]) -> list[int]:
        return [_integer(t) for t in children]

    def mirroring_add(self, meta: Meta, children: list[Token]) -> cmd.MirroringAdd:
        return cmd.MirroringAdd(*self._ints(children), line=_line(meta))

    def mirroring_add_mc(self, meta: Meta, children: list[Token]) -> cmd.MirroringAddMc:
        return cmd.MirroringAddMc(*self._ints(children), line=_line(meta))

    def mirroring_delete(self, meta: Meta, children: list[Token]) -> cmd.MirroringDelete:
        return cmd.MirroringDelete(*self._ints(children), line=_line(meta))

    def mirroring_get(self, meta: Meta, children: list[Token]) -> cmd.MirroringGet:
        return cmd.MirroringGet(*self._ints(children), line=_line(meta))

    def mc_mgrp_create(self, meta: Meta, children: list[Token]) -> cmd.McGroupCreate:
        return cmd.McGroupCreate(*self._ints(children), line=_line(meta))

    def mc_mgrp_destroy(self, meta: Meta, children: list[Token]) -> cmd.McGroupDestroy:
        return cmd.McGroupDestroy(*self._ints(children), line=_line(meta))

    def mc_node_create(self, meta: Meta, children: list[Token]) -> cmd.McNodeCreate:
        rid, *ports = self._ints(children)
        return cmd.McNodeCreate(rid, tuple(ports), line=_line(meta))

    def mc_node_update(self, meta: Meta, children: list[Token]) -> cmd.McNodeUpdate:
        handle, *ports = self._ints(children)
        return cmd.McNodeUpdate(handle, tuple(ports), line=_line(meta))

    def mc_node_associate(self, meta: Meta, children: list[Token]) -> cmd.McNodeAssociate:
        return cmd.McNodeAssociate(*self._ints(children), line=_line(meta))

    def mc_node_dissociate(self, meta: Meta, children: list[Token]) -> cmd.McNodeDissociate:
        return cmd.McNodeDissociate(*self._ints(children), line=_line(meta))

    def mc_node_destroy(self, meta: Meta, children: list[Token]) -> cmd.McNodeDestroy:
        return cmd.McNodeDestroy(*self._ints(children), line=_line(meta))

    def counter_read(self, meta: Meta, children: list[Any]) -> cmd.CounterRead:
        name, index = children
        return cmd.CounterRead(name, _integer(index), line=_line(meta))

    def counter_write(self, meta: Meta, children: list[Any]) -> cmd.CounterWrite:
        name, *numbers = children
        return cmd.CounterWrite(name, *self._ints(numbers), line=_line(meta))

    def counter_reset(self, meta: Meta, children: list[Any]) -> cmd.CounterReset:
        return cmd.CounterReset(children[0], line=_line(meta))

    def register_read(self, meta: Meta, children: list[Any]) -> cmd.RegisterRead:
        name, index = children
        return cmd.RegisterRead(name, _integer(index), line=_line(meta))

    def register_write(self, meta: Meta, children: list[Any]) -> cmd.RegisterWrite:
        name, *numbers = children
        return cmd.RegisterWrite(name, *self._ints(numbers), line=_line(meta))

    def register_reset(self, meta: Meta, children: list[Any]) -> cmd.RegisterReset:
        return cmd.RegisterReset(children[0], line=_line(meta))

    def meter_get_rates(self, meta: Meta, children: list[Any]) -> cmd.MeterGetRates:
        name, index = children
        return cmd.MeterGetRates(name, _integer(index), line=_line(meta))

    def meter_set_rates(self, meta: Meta, children: list[Any]) -> cmd.MeterSetRates:
        name, index, *rates = children
        return cmd.MeterSetRates(name, _integer(index), tuple(rates), line=_line(meta))

    def meter_array_set_rates(self, meta: Meta, children: list[Any]) -> cmd.MeterArraySetRates:
        name, *rates = children
        return cmd.MeterArraySetRates(name, tuple(rates), line=_line(meta))


def _describe_terminal(name: str) -> str:
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name
    if pattern.type == "str":
        return f"'{pattern.value}'"
    # Case-insensitive keywords are stored as regexps like (?i:add).
    value = pattern.value
    if value.startswith("(?i:") and value.endswith(")"):
        return f"'{value[4:-1]}'"
    return name


def _expected_list(names: set[str]) -> str:
    described = sorted({_describe_terminal(n) for n in names})
    if len(described) > 12:
        described = described[:12] + ["..."]
    return ", ".join(described)


def _syntax_error(error: UnexpectedInput, filename: str) -> STFSyntaxError:
    location = SourceLocation(filename, error.line or 0, error.column or 0)
    if isinstance(error, UnexpectedCharacters):
        message = f"unexpected character {error.char!r}"
        if error.allowed:
            message += f"; expected {_expected_list(set(error.allowed))}"
    elif isinstance(error, UnexpectedToken):
        token = error.token
        found = _TERMINAL_NAMES.get(token.type) if token.type in ("_NL", "$END") else None
        message = f"unexpected {found or repr(str(token))}"
        if "ADD" in error.expected and "PACKET" in error.expected:
            message = f"unknown command {str(token)!r}; expected a command such as {_COMMANDS}"
        elif error.expected:
            message += f"; expected {_expected_list(set(error.expected))}"
    elif isinstance(error, UnexpectedEOF):
        message = "unexpected end of file"
    else:
        message = str(error)
    return STFSyntaxError(message, location)


def parse_stf(text: str, filename: str = "<stf>") -> list[cmd.AnyCommand]:
    """Parse the text of an STF file; ``filename`` is used in error locations."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, filename) from None
    try:
        return _ToCommands().transform(tree)
    except VisitError as error:
        bad = error.orig_exc
        if isinstance(bad, _BadValue):
            location = SourceLocation(filename, bad.line, bad.column)
            raise STFSyntaxError(bad.message, location) from None
        raise


def parse_stf_file(path: str | Path) -> list[cmd.AnyCommand]:
    """Read and parse an STF file (UTF-8). Unreadable files raise STFError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise STFSyntaxError(
            f"not UTF-8 text (byte {error.start})", SourceLocation(str(path), 1, 1)
        ) from None
    except OSError as error:
        raise STFError(f"cannot read {path}: {error.strerror or error}") from None
    return parse_stf(text, str(path))
