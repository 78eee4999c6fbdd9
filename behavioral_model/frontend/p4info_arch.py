"""What P4Info makes of each architecture's externs, as p4c's P4RuntimeArchHandlers do:
v1model's `counter`, `register`, `action_selector`, ... and PNA's `Counter`,
`Register`, `ActionSelector`, ... (pna.p4) are the same P4Info kinds, named and sized
alike; PNA's units are upper case. A PNA `Digest` is an instance named as the instance,
not a `digest()` call named after its type (p4info.py handles both)."""

from __future__ import annotations

from typing import Any

PROFILE_TYPES = ("action_profile", "action_selector", "ActionProfile", "ActionSelector")
SELECTOR_TYPES = ("action_selector", "ActionSelector")
DIRECT_COUNTER_TYPES = ("direct_counter", "DirectCounter")
DIRECT_METER_TYPES = ("direct_meter", "DirectMeter")

# PNA extern -> (the v1model extern of the same P4Info kind, its size parameter).
_PNA_EXTERNS = {"Counter": ("counter", "n_counters"), "Meter": ("meter", "n_meters"),
                "Register": ("register", "size"), "ActionProfile": ("action_profile", "size"),
                "ActionSelector": ("action_selector", "size"),
                "DirectCounter": ("direct_counter", ""), "DirectMeter": ("direct_meter", ""),
                "Digest": ("digest", "")}
_PNA_UNITS = {"PACKETS": "packets", "BYTES": "bytes", "PACKETS_AND_BYTES": "packets_and_bytes"}


def extern_kind(name: str) -> tuple[str, str]:
    """The v1model name of an extern's P4Info kind and its size parameter's name."""
    return _PNA_EXTERNS.get(name, (name, "size"))


def unit_name(member: str | None) -> str | None:
    """A counter or meter unit as v1model spells it (`packets`, not `PACKETS`)."""
    return _PNA_UNITS.get(member or "", member)


def arch_name(main: Any) -> str:
    """`pkg_info.arch`: "pna" for a `PNA_NIC` package, else "v1model"."""
    package = main.type_ref.resolved if main is not None else None
    return "pna" if getattr(package, "name", None) == "PNA_NIC" else "v1model"
