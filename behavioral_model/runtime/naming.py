"""Resolve a user-typed name to one full P4 name: exact, or a unique dotted suffix."""

from __future__ import annotations

from collections.abc import Iterable

from behavioral_model.runtime.errors import UnknownNameError

__all__ = ["resolve_name"]


def resolve_name(query: str, names: Iterable[str], what: str) -> str:
    """Return the name in ``names`` equal to ``query``, else the only one ending in
    ``"." + query`` (``"ipv6_lpm"`` finds ``"MyIngress.ipv6_lpm"``).

    Raises UnknownNameError naming the candidates when nothing or several match;
    ``what`` ("table", "register", ...) goes into the message.
    """
    all_names = list(names)
    if query in all_names:
        return query
    suffix = "." + query
    candidates = sorted(n for n in all_names if n.endswith(suffix))
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise UnknownNameError(
            f"ambiguous {what} name '{query}': candidates are {', '.join(candidates)}"
        )
    known = ", ".join(sorted(all_names)) or "none"
    raise UnknownNameError(f"unknown {what} '{query}'; known: {known}")
