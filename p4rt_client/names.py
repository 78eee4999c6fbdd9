"""How control-plane names are written and found: one set of rules for the P4Runtime
helper, the ``cli`` command language and STF files (``behavioral_model.stf``).

A name is the full name (``SwitchIngress.ipv6_route``) or any dot-separated suffix
that only one candidate ends with (``ipv6_route``). p4c's JSON spellings are accepted
too: ``stack$0.f`` for ``stack[0].f``, and for a key field that tests a header's
validity ``hdr.h.$valid$``, ``hdr.h.valid``, ``hdr.h.isValid()`` or plain ``hdr.h``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

__all__ = [
    "UnknownNameError",
    "normalize_name",
    "resolve_name",
    "resolve_key_field",
]

_ARRAY_INDEX = re.compile(r"\$(\d+)(?=\.|$)")
_VALID_SUFFIXES = (".$valid$", ".valid", ".isValid()", ".isValid")
_VALID = ".$valid$"


class UnknownNameError(KeyError):
    """A name that matches nothing, or several things; the message says what exists.
    A KeyError, as a failed lookup by name is one, but printed without quotes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def normalize_name(name: str) -> str:
    """p4c's ``$N`` array notation to ``[N]``: ``extra$0.h`` -> ``extra[0].h``."""
    return _ARRAY_INDEX.sub(r"[\1]", name)


def resolve_name(query: str, names: Iterable[str], what: str, owner: str = "") -> str:
    """The name equal to ``query``, else the only one ending in ``"." + query``.
    ``what`` ("table") and ``owner`` (" in table 'T'") make the error message."""
    all_names = sorted(names)
    query = normalize_name(query)
    if query in all_names:
        return query
    candidates = [n for n in all_names if n.endswith("." + query)]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise UnknownNameError(f"ambiguous {what} name '{query}'{owner}: candidates are "
                               f"{', '.join(candidates)}")
    known = ", ".join(all_names) if all_names else "none"
    raise UnknownNameError(f"no {what} '{query}'{owner}; known {what}s: {known}")


def _canonical_key(name: str) -> str:
    """One spelling per key field: validity keys end in ``.$valid$``."""
    name = normalize_name(name)
    for suffix in _VALID_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] + _VALID
        if name == suffix[1:]:
            return _VALID[1:]
    return name


def resolve_key_field(query: str, names: Sequence[str], table: str) -> int:
    """Position in ``names`` (the key fields of ``table``) of the field ``query``."""
    if not names:
        raise UnknownNameError(f"table '{table}' has no key")
    canonical = [_canonical_key(n) for n in names]
    wanted = _canonical_key(query)
    stages: list[Callable[[str], bool]] = [
        lambda c: c == wanted,
        # `hdr.h` for the validity of hdr.h (p4c: key + '.$valid$').
        lambda c: c == wanted + _VALID,
        lambda c: c.endswith("." + wanted),
        lambda c: c.endswith("." + wanted + _VALID),
    ]
    if wanted == _VALID[1:]:
        stages.append(lambda c: c.endswith(_VALID))
    for stage in stages:
        found = [i for i, c in enumerate(canonical) if stage(c)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            candidates = ", ".join(names[i] for i in found)
            raise UnknownNameError(f"ambiguous key field '{query}' for table '{table}': "
                                   f"candidates are {candidates}")
    raise UnknownNameError(f"table '{table}' has no key field '{query}'; its key fields "
                           f"are {', '.join(names)}")
