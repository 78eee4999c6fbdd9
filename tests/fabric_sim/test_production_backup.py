"""Issue 16's bound for a backup that fails too, at production shape (8 planes, one QP
with 1 active + 1 backup EV per plane, test_production_shape's set-up): "a backup
that also fails is retired in its turn within the same bound", 50 us of its first
loss.

Plane 0's T1 under the backups (p0-t1-0) goes down first, while they carry nothing;
then the T1 under the active EV (p0-t1-1). The active EV is retired, its slot is
refilled from the backup on the dead T1, whose first packets are lost from the moment
it takes over: it must be retired within 50 us of that retirement (its first loss
comes no earlier), and so must each backup after it, and nothing on another plane."""

from __future__ import annotations

from itertools import pairwise

from test_production_shape import (
    ACTIVE_BACKUP,
    FAIL_AT_US,
    failure,
    other_plane_events,
    retirements,
    run,
)

from protocol.constants import ev_plane

BOUND_US = 50.0
BACKUPS_T1 = "p0-t1-0"  # where controller/plan/evs.py puts plane 0's backups of qp-a
ACTIVE_T1 = "p0-t1-1"  # and its active EV (slot 0)


def test_a_backup_on_a_dead_t1_is_retired_within_50us_in_its_turn() -> None:
    result = run(ACTIVE_BACKUP, (
        failure(action="switch-down", device=BACKUPS_T1, at_us=FAIL_AT_US / 2),
        failure(action="switch-down", device=ACTIVE_T1))).result
    assert result.intact
    retired = retirements(result)
    assert len(retired) >= 2, "the backup on the dead T1 was never retired"
    assert all(ev_plane(e.old_ev) == 0 for e in retired)
    assert other_plane_events(result, 0) == []
    active, backup = retired[0], retired[1]
    assert active.time_us - FAIL_AT_US <= BOUND_US
    assert backup.old_ev == active.new_ev  # the backup that took the slot over
    # Each backup after it is dead too (its T1 or the T1 under the slot is down).
    for before, after in pairwise(retired):
        assert after.time_us - before.time_us <= BOUND_US, (before, after)
