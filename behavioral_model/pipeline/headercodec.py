"""Python source of the functions that extract a header from packet bytes and emit it
back (P4_16 spec 12.8.1 `extract`, 15.3 `emit`): one pair per header type.

Fields are laid out most significant bit first, in declaration order. A fixed-width
header whose size is a whole number of bytes, extracted at a byte boundary (nearly
every real header), is read with one ``struct`` unpack: its fields are grouped into
byte-aligned words (a run of sub-byte fields such as IPv6's version / traffic class /
flow label forms one word), and each word is split with shifts on a small integer
instead of a shift of the whole header. Any other case reads the header's bits as one
integer. Emitting mirrors it: a whole-byte fixed-width header is packed word by word
with one ``struct`` pack (a word that is a single field of 16 bytes, such as an IPv6
address, converts on its own); any other header is built as one integer and converted
once. Either way the bytes are the same; the word-wise form avoids shifting integers as
wide as the whole header.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..frontend.errors import P4TypeError
from ..frontend.types import BitT, BoolT, HeaderT, StructT, Type, VarbitT, width_of
from .exprgen import mask, strip
from .values import py_name

__all__ = ["emit_source", "extract_source", "fixed_width", "inline_emit", "inline_extract",
           "leaf_fields", "native_extract", "native_fields"]

_STRUCT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


def fixed_width(t: Type) -> int:
    width = width_of(t)
    if width is None:
        raise P4TypeError(f"type {t} has no fixed width", None)
    return width


def leaf_fields(t: HeaderT) -> list[tuple[str, Type, int]]:
    """(attribute path, type, width) of a header's fields; nested structs flattened."""
    out: list[tuple[str, Type, int]] = []

    def walk(prefix: str, ft: Type) -> None:
        ft = strip(ft)
        if isinstance(ft, StructT):
            for f, sub in ft.fields:
                walk(f"{prefix}.{py_name(f)}", sub)
        elif isinstance(ft, VarbitT):
            out.append((prefix, ft, ft.max_width))
        else:
            out.append((prefix, ft, fixed_width(ft)))

    for f, ft in t.fields:
        walk(py_name(f), ft)
    return out


def _field_from_bits(code: str, ft: Type, width: int) -> str:
    if isinstance(ft, BoolT):
        return f"({code} != 0)"
    if isinstance(ft, BitT) and ft.signed:
        half = 1 << (width - 1)
        return f"((({code}) + {half}) & {mask(width)}) - {half}"
    return code


@dataclass
class _Word:
    """Fields that together start and end on byte boundaries: one unpacked value."""

    size: int = 0  # bits
    fields: list[tuple[str, Type, int]] = field(default_factory=list)

    @property
    def code(self) -> str:
        nbytes = self.size // 8
        return _STRUCT_CODES.get(nbytes, f"{nbytes}s")


def _words(fields: list[tuple[str, Type, int]]) -> list[_Word]:
    words: list[_Word] = []
    current = _Word()
    for leaf in fields:
        current.fields.append(leaf)
        current.size += leaf[2]
        if current.size % 8 == 0:
            words.append(current)
            current = _Word()
    if current.fields:  # pragma: no cover - the caller checks the total is whole bytes
        raise ValueError("header is not a whole number of bytes")
    return words


def _aligned_extract(fn: str, fields: list[tuple[str, Type, int]], total: int,
                     too_short: int) -> list[str]:
    """The byte-aligned fast path: a struct unpack at ``pos >> 3``; the struct object is
    a module-level constant defined before the function."""
    words = [w for w in _words(fields) if w.size]
    fmt = ">" + "".join(w.code for w in words)
    lines = [f"_S{fn} = _Struct({fmt!r})", "",
             f"def {fn}(buf, pos, end, h):",
             f"    stop = pos + {total}",
             "    if stop > end:",
             f"        raise _ParserError({too_short})",
             "    if not pos & 7:"]
    body = _unpack_lines(fn, words, "h", [f"w{i}" for i in range(len(words))])
    body += ["h._valid = True", "return stop"]
    lines += [f"        {line}" for line in body]
    return lines


def _unpack_lines(fn: str, words: list[_Word], h: str, names: list[str]) -> list[str]:
    """Unpack the words at byte ``pos >> 3`` of ``buf`` with ``fn``'s struct into the
    locals ``names`` and split them into the fields of header object ``h``."""
    body: list[str] = []
    if len(names) == 1:
        body.append(f"{names[0]}, = _S{fn}.unpack_from(buf, pos >> 3)")
    elif names:
        body.append(f"{', '.join(names)} = _S{fn}.unpack_from(buf, pos >> 3)")
    for name, word in zip(names, words, strict=True):
        value = name
        if word.code.endswith("s"):
            value = f"_from_bytes({name}, 'big')"
        if len(word.fields) == 1:
            path, ft, w = word.fields[0]
            body.append(f"{h}.{path} = {_field_from_bits(value, ft, w)}")
            continue
        if value != name:
            body.append(f"{name} = {value}")
        shift = word.size
        for path, ft, w in word.fields:
            shift -= w
            raw = f"({name} >> {shift})" if shift else name
            if shift + w < word.size:
                raw = f"({raw} & {mask(w)})"
            body.append(f"{h}.{path} = {_field_from_bits(raw, ft, w)}")
    return body


def inline_extract(fn: str, t: HeaderT, h: str, fresh: Callable[[str], str],
                   aligned: bool = False) -> list[str] | None:
    """The lines of an extraction of ``t`` into the local ``h`` at the call site, for
    a whole-byte fixed-width header (else None): at a byte boundary with enough bytes
    left, the body of ``fn``'s fast path in place (no call; ``fresh`` names its word
    locals); otherwise a call of ``fn``, which reads unaligned bits or raises
    PacketTooShort. Either way ``pos`` ends after the header, as from the call. With
    ``aligned`` (``pos`` is known to be a multiple of 8) only the length is tested."""
    fields = leaf_fields(t)
    if any(isinstance(ft, VarbitT) for _, ft, _ in fields):
        return None
    total = sum(w for _, _, w in fields)
    if not total or total % 8:
        return None
    words = [w for w in _words(fields) if w.size]
    body = _unpack_lines(fn, words, h, [fresh("w") for _ in words])
    return ([f"if {'' if aligned else 'not pos & 7 and '}pos + {total} <= end:"]
            + [f"    {line}" for line in body]
            + [f"    {h}._valid = True", f"    pos += {total}", "else:",
               f"    pos = {fn}(buf, pos, end, {h})"])


def native_fields(t: HeaderT) -> list[tuple[str, int, int]] | None:
    """The ``(slot, width, kind)`` of each field of ``t`` for a C ``Codec`` (native.py;
    kind 0 unsigned, 1 signed, 2 bool, as ``_field_from_bits`` reads them), or None
    when the codec cannot serve the header: a varbit, a field of a nested struct, or a
    total width that is not a whole number of bytes."""
    fields = leaf_fields(t)
    total = sum(w for _, _, w in fields)
    if not total or total % 8:
        return None
    out = []
    for path, ft, w in fields:
        if isinstance(ft, VarbitT) or "." in path:
            return None
        kind = 2 if isinstance(ft, BoolT) else 1 if isinstance(ft, BitT) and ft.signed else 0
        out.append((path, w, kind))
    return out


def native_extract(fn: str, t: HeaderT, codec: str, h: str, new: str | None,
                   aligned: bool) -> list[str]:
    """The lines of an extraction of ``t`` by the C codec bound to ``codec`` (the
    name of its ``extract`` when ``new`` is given, else of its ``extract_into``): at a
    byte boundary with enough bytes left one call reads the header into the local
    ``h`` (a new object, or the one ``h`` holds); otherwise ``fn`` does it, or raises
    PacketTooShort (``new`` then names the expression of a new empty header). ``pos``
    ends after the header either way; ``aligned`` as for ``inline_extract``."""
    total = sum(w for _, _, w in leaf_fields(t))
    test = f"if {'' if aligned else 'not pos & 7 and '}pos + {total} <= end:"
    if new is None:
        return [test, f"    {codec}(buf, pos >> 3, {h})", f"    pos += {total}", "else:",
                f"    pos = {fn}(buf, pos, end, {h})"]
    return [test, f"    {h} = {codec}(buf, pos >> 3)", f"    pos += {total}", "else:",
            f"    {h} = {new}", f"    pos = {fn}(buf, pos, end, {h})"]


def extract_source(fn: str, t: HeaderT, varbit: bool, checked: Any) -> str:
    """Generated extractor ``fn(buf, pos, end, h[, vlen])``: read the header's bits at
    bit offset ``pos`` into ``h``, return the offset after it; ``_ParserError`` when the
    packet is too short (or the varbit length is bad)."""
    too_short = checked.error_code("PacketTooShort")
    fields = leaf_fields(t)
    fixed = sum(w for _, ft, w in fields if not isinstance(ft, VarbitT))
    lines = []
    if varbit:
        lines.append(f"def {fn}(buf, pos, end, h, vlen):")
        vmax = next(w for _, ft, w in fields if isinstance(ft, VarbitT))
        header_err = checked.error_code("HeaderTooShort") \
            if "HeaderTooShort" in checked.error_members else too_short
        lines += [f"    if vlen > {vmax}:", f"        raise _ParserError({header_err})"]
        if "ParserInvalidArgument" in checked.error_members:
            # BMv2 extracts whole bytes only: a varbit length that is not a multiple of 8
            # is ParserInvalidArgument and nothing is consumed.
            bad_arg = checked.error_code("ParserInvalidArgument")
            lines += ["    if vlen & 7:", f"        raise _ParserError({bad_arg})"]
        lines += [f"    total = {fixed} + vlen",
                  "    stop = pos + total",
                  "    if stop > end:",
                  f"        raise _ParserError({too_short})"]
    elif fixed and fixed % 8 == 0:
        lines += _aligned_extract(fn, fields, fixed, too_short)
        lines += ["    first = pos >> 3",
                  "    last = (stop + 7) >> 3",
                  f"    v = (int.from_bytes(buf[first:last], 'big') >> ((last << 3) - stop))"
                  f" & {mask(fixed)}"]
    else:
        lines += [f"def {fn}(buf, pos, end, h):",
                  f"    total = {fixed}",
                  "    stop = pos + total",
                  "    if stop > end:",
                  f"        raise _ParserError({too_short})"]
    if varbit or not fixed or fixed % 8:
        lines += [
            "    if pos & 7 == 0 and total & 7 == 0:",
            "        v = int.from_bytes(buf[pos >> 3:stop >> 3], 'big')",
            "    else:",
            "        first = pos >> 3",
            "        last = (stop + 7) >> 3",
            "        v = (int.from_bytes(buf[first:last], 'big') >> ((last << 3) - stop))"
            " & ((1 << total) - 1)",
        ]
    # Fields from the most significant end: the shift of a field is the width of what
    # follows it; with a varbit the fields after it shift by vlen too.
    shift_static = fixed
    after_varbit = False
    for path, ft, w in fields:
        if isinstance(ft, VarbitT):
            lines.append(f"    h._w_{path} = vlen")
            tail = shift_static
            lines.append(f"    h.{path} = (v >> {tail}) & ((1 << vlen) - 1)")
            after_varbit = True
            continue
        shift_static -= w
        shift = f"{shift_static}" if not (varbit and not after_varbit) else \
            f"({shift_static} + vlen)"
        raw = f"((v >> {shift}) & {mask(w)})"
        lines.append(f"    h.{path} = {_field_from_bits(raw, ft, w)}")
    lines += ["    h._valid = True", "    return stop"]
    return "\n".join(lines)


def emit_source(fn: str, t: HeaderT) -> str:
    """Generated emitter ``fn(h)``: the header's bytes (fields most significant first;
    a header that is not a whole number of bytes is padded with zero bits)."""
    fields = leaf_fields(t)
    if any(isinstance(ft, VarbitT) for _, ft, _ in fields):
        lines = [f"def {fn}(h):", "    v = 0", "    n = 0"]
        for path, ft, w in fields:
            if isinstance(ft, VarbitT):
                lines += [f"    vw = h._w_{path}",
                          f"    v = (v << vw) | (h.{path} & ((1 << vw) - 1))", "    n += vw"]
                continue
            lines += [f"    v = (v << {w}) | {_field_bits(path, ft, w)}", f"    n += {w}"]
        lines.append("    return v.to_bytes((n + 7) >> 3, 'big')")
        return "\n".join(lines)
    total = sum(w for _, _, w in fields)
    pad = -total % 8
    if not fields:
        return f"def {fn}(h):\n    return b''"
    if not total % 8:
        return _aligned_emit(fn, fields)
    parts = []
    shift = total + pad
    for path, ft, w in fields:
        shift -= w
        bits = _field_bits(path, ft, w)
        parts.append(f"({bits} << {shift})" if shift else bits)
    value = " | ".join(parts)
    return f"def {fn}(h):\n    return ({value}).to_bytes({(total + pad) // 8}, 'big')"


def _aligned_emit(fn: str, fields: list[tuple[str, Type, int]]) -> str:
    """The emitter of a whole-byte header: each word (as the extractor groups them) is
    a small integer, packed by one module-level ``struct`` pack; words of a width
    ``struct`` has no integer code for (3, 6, 16 bytes...) convert with ``to_bytes``."""
    words = _words(fields)
    value = _aligned_emit_value(fn, words, "h")
    if len(words) == 1 and words[0].code.endswith("s"):
        return f"def {fn}(h):\n    return {value}"
    fmt = ">" + "".join(w.code for w in words)
    return "\n".join([f"_P{fn} = _Struct({fmt!r}).pack", "",
                      f"def {fn}(h):", f"    return {value}"])


def _aligned_emit_value(fn: str, words: list[_Word], h: str, unmasked: bool = False
                        ) -> str:
    """The bytes of header object ``h`` as ``fn``'s emitter computes them. With
    ``unmasked``, an unsigned field that is a word of its own goes to ``struct`` or
    ``to_bytes`` as it is: a value out of its range raises (``_PackError``) instead of
    being cut to its width, for the caller to fall back on the masked form."""
    values = []
    for word in words:
        shift = word.size
        parts = []
        for path, ft, w in word.fields:
            shift -= w
            if unmasked and len(word.fields) == 1 and isinstance(ft, BitT) and not ft.signed:
                parts.append(f"{h}.{path}")
                continue
            bits = _field_bits(path, ft, w, h)
            parts.append(f"({bits} << {shift})" if shift else bits)
        value = " | ".join(parts)
        if word.code.endswith("s"):
            value = f"({value}).to_bytes({word.size // 8}, 'big')"
        values.append(value)
    if len(words) == 1 and words[0].code.endswith("s"):
        return values[0]
    return f"_P{fn}({', '.join(values)})"


def inline_emit(fn: str, t: HeaderT, h: str) -> tuple[str, str] | None:
    """The bytes of the header in local ``h`` as expressions, ``fn``'s emitter's body
    in place (no call), for a whole-byte fixed-width header; else None: the masked
    form and the ``unmasked`` one (see ``_aligned_emit_value``; the same when no field
    is a word of its own). The generated code keeps values in range, so the unmasked
    form, two operations fewer per such field, nearly always serves."""
    fields = leaf_fields(t)
    if not fields or any(isinstance(ft, VarbitT) for _, ft, _ in fields):
        return None
    if sum(w for _, _, w in fields) % 8:
        return None
    words = _words(fields)
    return (_aligned_emit_value(fn, words, h),
            _aligned_emit_value(fn, words, h, unmasked=True))


def _field_bits(path: str, ft: Type, width: int, h: str = "h") -> str:
    """A field's value as ``width`` unsigned bits (signed values wrap, bools are 0/1)."""
    if isinstance(ft, BoolT):
        return f"(1 if {h}.{path} else 0)"
    return f"({h}.{path} & {mask(width)})"
