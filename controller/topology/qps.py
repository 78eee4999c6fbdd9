"""QP declarations: defaults filled in, QPNs and per-NIC QP indexes allocated, limits of
the NIC program (``qp_context`` fields, EV ids) checked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import constants as c

from .errors import Problem
from .fabric import QpDecl, QpEnd
from .schema import QpSettings, QpSpec

# QPNs the controller hands out start here: InfiniBand reserves QP0 and QP1 [ours].
QP_QPN_BASE = 0x100

# Used where neither the QP nor qp_defaults says otherwise [ours]. min_active's default
# depends on the QP's size (half its slots), so it is not here.
QP_BUILTIN_DEFAULTS = {
    "evs_per_plane": 2,
    "backups_per_plane": 1,
    "sack_every": 4,
    "probe_threshold": 3,
}


def default_backup_ids_per_plane(planes: int) -> int:
    """The NIC's backup ids shared equally by the planes (qp_context holds 8 bits)."""
    return min(0xFF, (c.NIC_EV_IDS - c.NIC_EV_BACKUP_BASE) // planes)


def _setting(name: str, qp: QpSpec, defaults: QpSettings) -> int | None:
    value = getattr(qp, name)
    if value is None:
        value = getattr(defaults, name)
    if value is None:
        value = QP_BUILTIN_DEFAULTS.get(name)
    return value


def resolve_qps(specs: Sequence[QpSpec], defaults: QpSettings, planes: int,
                is_nic: Callable[[str], bool]) -> tuple[tuple[QpDecl, ...], list[Problem]]:
    """The declared QPs with defaults, QPNs and QP indexes; problems instead of raising."""
    problems: list[Problem] = []
    names: dict[str, str] = {}
    explicit_qpns: dict[str, dict[int, str]] = {}
    # First pass: explicit QPNs, so that allocated ones can step around them.
    for q, qp in enumerate(specs):
        for e, endpoint in enumerate(qp.endpoints):
            if endpoint.qpn is not None:
                taken = explicit_qpns.setdefault(endpoint.nic, {})
                where = f"qps[{q}].endpoints[{e}].qpn"
                if endpoint.qpn in taken:
                    problems.append(Problem(where, f"QPN {endpoint.qpn:#x} of NIC "
                                            f"{endpoint.nic!r} is already {taken[endpoint.qpn]}"))
                taken[endpoint.qpn] = where

    next_index: dict[str, int] = {}
    next_qpn: dict[str, int] = {}
    decls: list[QpDecl] = []
    for q, qp in enumerate(specs):
        where = f"qps[{q}]"
        if qp.name in names:
            problems.append(Problem(f"{where}.name",
                                    f"QP name {qp.name!r} is already used by {names[qp.name]}"))
        names.setdefault(qp.name, where)
        settings = {name: _setting(name, qp, defaults)
                    for name in ("evs_per_plane", "backups_per_plane", "backup_ids_per_plane",
                                 "sack_every", "min_active", "probe_threshold")}
        ev_slots = settings["evs_per_plane"] * planes
        if ev_slots > c.NIC_EV_SLOTS:
            problems.append(Problem(f"{where}.evs_per_plane", (
                f"{settings['evs_per_plane']} EVs on each of {planes} planes is {ev_slots} "
                f"slots; the NIC has {c.NIC_EV_SLOTS} per QP")))
        if settings["backup_ids_per_plane"] is None:
            settings["backup_ids_per_plane"] = max(
                settings["backups_per_plane"], default_backup_ids_per_plane(planes))
        backup_ids = settings["backup_ids_per_plane"] * planes
        if c.NIC_EV_BACKUP_BASE + backup_ids > c.NIC_EV_IDS:
            field = ("backup_ids_per_plane" if qp.backup_ids_per_plane is not None
                     or defaults.backup_ids_per_plane is not None else "backups_per_plane")
            problems.append(Problem(f"{where}.{field}", (
                f"{settings[field]} backup ids on each of {planes} planes need "
                f"{backup_ids} EV ids; the NIC has {c.NIC_EV_IDS - c.NIC_EV_BACKUP_BASE}")))
        elif settings["backups_per_plane"] > settings["backup_ids_per_plane"]:
            problems.append(Problem(f"{where}.backups_per_plane", (
                f"{settings['backups_per_plane']} backups per plane do not fit in "
                f"backup_ids_per_plane ({settings['backup_ids_per_plane']})")))
        if settings["min_active"] is None:
            settings["min_active"] = max(1, ev_slots // 2)
        elif settings["min_active"] > ev_slots:
            problems.append(Problem(f"{where}.min_active", (
                f"{settings['min_active']} is more than the QP's {ev_slots} EV slots")))

        ends: list[QpEnd] = []
        for e, endpoint in enumerate(qp.endpoints):
            nic = endpoint.nic
            if not is_nic(nic):
                problems.append(Problem(f"{where}.endpoints[{e}]", f"no NIC named {nic!r}"))
                continue
            index = next_index.get(nic, 0)
            next_index[nic] = index + 1
            if index == c.NIC_QP_COUNT:
                problems.append(Problem(f"{where}.endpoints[{e}]", (
                    f"NIC {nic!r} already has {c.NIC_QP_COUNT} QPs, as many as it can hold")))
            qpn = endpoint.qpn
            if qpn is None:
                qpn = next_qpn.get(nic, QP_QPN_BASE)
                while qpn in explicit_qpns.get(nic, {}):
                    qpn += 1
                next_qpn[nic] = qpn + 1
            ends.append(QpEnd(nic=nic, qpn=qpn, qp_index=index))
        if len(ends) == 2 and ends[0].nic == ends[1].nic:
            problems.append(Problem(f"{where}.endpoints",
                                    f"both ends are NIC {ends[0].nic!r}; a QP joins two NICs"))
        if len(ends) == 2:
            decls.append(QpDecl(name=qp.name, ends=(ends[0], ends[1]), where=where, **settings))
    return tuple(decls), problems
