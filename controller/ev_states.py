"""What a NIC holds of one QP end's EVs, read over P4Runtime (``mrc-ctl paths --live``).

A NIC's EV states (in a slot, retired, spare) live in registers, which P4Runtime on
BMv2 does not serve, so what can be seen from outside is: whether each planned EV id
has its path in ``qp_ev`` (and which backups were topped up since the plan), and per
slot how many packets it sent and how often its EV was retired (slot counters).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.device import DeviceLink
from controller.plan import FabricPlan, QpEndPlan, qp_ev_entry
from controller.plan import p4names as n
from controller.topology import QpDecl
from controller.topups import found_top_ups
from protocol import constants as c

CONFIGURED, TOPPED_UP, MISSING, DIFFERS = "configured", "topped up", "missing", "differs"


@dataclass(frozen=True)
class EvState:
    on_nic: str  # CONFIGURED, TOPPED_UP, MISSING or DIFFERS
    slot_tx_packets: int | None = None  # slots' EVs only
    slot_retirements: int | None = None


def read_ev_states(plan: FabricPlan, qp: QpDecl, side: int, link: DeviceLink
                   ) -> tuple[QpEndPlan, dict[int, EvState]]:
    """The QP end as the NIC holds it (top-ups included) and each EV id's state."""
    local = qp.ends[side]
    current, _ = link.read_owned()
    found = found_top_ups(plan, local.nic, link.helper, current)
    end = plan.qp_end(qp, side, found.get(local.qp_index))
    helper = link.helper
    counters = {}
    slots = range(end.ev_slots)
    reads = [helper.counter_entry(name, local.qp_index * c.NIC_EV_SLOTS + s)
             for name in (n.NIC_SLOT_COUNTERS[0], n.NIC_SLOT_COUNTERS[3]) for s in slots]
    for entity in link.read(reads):
        entry = entity.counter_entry
        counters[entry.counter_id, entry.index.index] = entry.data.packet_count
    tx_id = helper.get_id("counters", n.NIC_SLOT_COUNTERS[0])
    retire_id = helper.get_id("counters", n.NIC_SLOT_COUNTERS[3])
    states = {}
    for ev in end.evs:
        (key, (value, _)), = link.desired([qp_ev_entry(local.qp_index, ev)]).items()
        if key not in current:
            on_nic = MISSING
        elif current[key][0] != value:
            on_nic = DIFFERS
        elif ev.slot is None and (ev.ev_id - c.NIC_EV_BACKUP_BASE) \
                % qp.backup_ids_per_plane >= qp.backups_per_plane:
            on_nic = TOPPED_UP
        else:
            on_nic = CONFIGURED
        if ev.slot is None:
            states[ev.ev_id] = EvState(on_nic)
        else:
            index = local.qp_index * c.NIC_EV_SLOTS + ev.slot
            states[ev.ev_id] = EvState(on_nic, counters.get((tx_id, index), 0),
                                       counters.get((retire_id, index), 0))
    return end, states
