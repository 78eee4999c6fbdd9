"""The NIC's P4Runtime names do not drift (as sonic-pins pins its P4Info): the
controller (controller/plan/p4names.py), the PTF suites and the docs spell them.

`tests/p4info_expected/mrc_nic.names` lists, one line each, every table with its
keys and actions, every action with its parameters, every counter, register, digest
and controller header, with widths. The v1model NIC and the PNA NIC must both give
exactly this list: one controller drives both. A deliberate change regenerates it:

    python tests/test_p4info_drift.py > tests/p4info_expected/mrc_nic.names
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from p4.config.v1 import p4info_pb2

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import preprocess
from behavioral_model.program import check_source

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT / "tests" / "p4info_expected" / "mrc_nic.names"
NIC_PROGRAMS = {"v1model": ROOT / "p4src" / "mrc_nic.p4",
                "pna": ROOT / "p4src" / "pna" / "mrc_nic.p4"}
_MATCH = p4info_pb2.MatchField.MatchType


def name_lines(info: p4info_pb2.P4Info) -> list[str]:
    """The control-plane surface of a P4Info, one sorted line per object."""
    actions = {a.preamble.id: a.preamble.name for a in info.actions}
    lines = []
    for t in info.tables:
        keys = " ".join(f"{m.name}:{_MATCH.Name(m.match_type).lower()}:{m.bitwidth}"
                        for m in t.match_fields)
        refs = " ".join(sorted(actions[r.id] for r in t.action_refs))
        lines.append(f"table {t.preamble.name} size={t.size} keys=[{keys}] actions=[{refs}]")
    for a in info.actions:
        params = " ".join(f"{p.name}:{p.bitwidth}" for p in a.params)
        lines.append(f"action {a.preamble.name} params=[{params}]")
    for c in info.counters:
        unit = p4info_pb2.CounterSpec.Unit.Name(c.spec.unit).lower()
        lines.append(f"counter {c.preamble.name} size={c.size} unit={unit}")
    for r in info.registers:
        lines.append(f"register {r.preamble.name} size={r.size} "
                     f"width={r.type_spec.bitstring.bit.bitwidth}")
    for d in info.digests:
        lines.append(f"digest {d.preamble.name} type={d.type_spec.struct.name}")
    for h in info.controller_packet_metadata:
        fields = " ".join(f"{m.name}:{m.bitwidth}" for m in h.metadata)
        lines.append(f"controller_header {h.preamble.name} fields=[{fields}]")
    return sorted(lines)


def nic_names(arch: str) -> list[str]:
    return name_lines(generate_p4info(check_source(preprocess(NIC_PROGRAMS[arch]))))


@pytest.mark.parametrize("arch", sorted(NIC_PROGRAMS))
def test_nic_p4info_names_do_not_drift(arch: str) -> None:
    expected = EXPECTED.read_text().splitlines()
    assert nic_names(arch) == expected


if __name__ == "__main__":
    sys.stdout.write("\n".join(nic_names("v1model")) + "\n")
