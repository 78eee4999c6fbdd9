"""Run-time helpers that generated pipeline code calls (its module namespace)."""

from __future__ import annotations

import struct
from typing import Any

from ..runtime.tables import ActionCall
from . import hashes
from .exprgen import make_value
from .values import HeaderStack


class ParserError(Exception):
    """Ends parsing in `reject` with an error code (core.p4's `error` enum, as an int)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class ExitControl(Exception):
    """The `exit` statement: leaves the current top-level control."""


class AssertionFailed(Exception):
    """v1model `assert`/`assume` failed; BMv2 stops, we drop the packet and report it."""


def peek(buf: bytes, pos: int, width: int, end: int, too_short: int) -> int:
    """`lookahead`: `width` bits at bit offset `pos`, without consuming them."""
    stop = pos + width
    if stop > end:
        raise ParserError(too_short)
    first = pos >> 3
    last = (stop + 7) >> 3
    return (int.from_bytes(buf[first:last], "big") >> ((last << 3) - stop)) & ((1 << width) - 1)


def lookahead_header(extract: Any, buf: bytes, pos: int, end: int, header: Any) -> Any:
    extract(buf, pos, end, header)
    return header


def push_front(stack: HeaderStack, count: int) -> None:
    """Spec 8.18: shift elements up by `count`; the first `count` become invalid."""
    elems = stack.elems
    size = len(elems)
    for i in range(size - 1, -1, -1):
        if i >= count:
            elems[i]._set(elems[i - count])
        else:
            elems[i]._clear()
    stack.next_index = min(stack.next_index + count, size)


def pop_front(stack: HeaderStack, count: int) -> None:
    """Spec 8.18: shift elements down by `count`; the last `count` become invalid."""
    elems = stack.elems
    size = len(elems)
    for i in range(size):
        if i + count < size:
            elems[i]._set(elems[i + count])
        else:
            elems[i]._clear()
    stack.next_index = max(stack.next_index - count, 0)


def stack_elem(stack: HeaderStack, index: int) -> Any:
    elems = stack.elems
    if 0 <= index < len(elems):
        return elems[index]
    return type(elems[0])()


def value_set_match(members: list[tuple[int, int]], value: int) -> bool:
    for v, m in members:
        if value & m == v & m:
            return True
    return False


def hash_value(algo: str, fields: tuple, base: int, max_: int, width: int, pk: Any) -> int:
    h = hashes.compute(algo, fields, rng=pk.rng)
    return hashes.hash_result(h, base, max_, width)


def selector_hash(profile: Any, fields: tuple, pk: Any) -> int:
    """The hash an action selector uses to pick a group member (BMv2: the selector's
    algorithm over the table's `selector` key fields)."""
    if not profile.with_selector or not fields:
        return 0
    return hashes.compute(profile.algorithm, fields, rng=pk.rng)


def checksum_value(algo: str, fields: tuple, payload: bytes, width: int, pk: Any) -> int:
    return hashes.compute(algo, fields, payload, rng=pk.rng) & ((1 << width) - 1)


NAMESPACE: dict[str, Any] = {
    "_ParserError": ParserError,
    "_Exit": ExitControl,
    "_AssertionFailed": AssertionFailed,
    "_ONCE": (None,),
    "_make": make_value,
    "_peek": peek,
    "_lookahead_header": lookahead_header,
    "_push_front": push_front,
    "_pop_front": pop_front,
    "_vs_match": value_set_match,
    "_stack_elem": stack_elem,
    "_hash": hash_value,
    "_checksum": checksum_value,
    "_HeaderStack": HeaderStack,
    "_selector_hash": selector_hash,
    "_ActionCall": ActionCall,
    "_Struct": struct.Struct,
    "_from_bytes": int.from_bytes,
    "_new": object.__new__,
    # what struct.pack and int.to_bytes raise for a value out of a field's range
    "_PackError": (struct.error, OverflowError),
}
