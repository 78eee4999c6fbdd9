"""The switch's P4Info names do not drift: the controller (controller/plan/p4names.py)
and the PTF suites name tables, actions, counters and controller headers, so moving
the switch's behaviour into shared controls (p4src/include/switch/) must keep every
name, match field and parameter as it was, and the TNA switch has the same names.

The expected names are checked in (tests/p4info_names/srv6_switch.names), one line per
P4Info object: a renamed table, a re-ordered key or a wider parameter shows up as a
readable diff. After an intended change, regenerate the file with
`python tests/test_p4info_names.py` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from p4.config.v1 import p4info_pb2

from behavioral_model.frontend import ast
from behavioral_model.frontend.naming import BlockInstance, block_instances, qualify
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import preprocess
from behavioral_model.program import check_source

REPO = Path(__file__).resolve().parents[1]
EXPECTED_DIR = Path(__file__).parent / "p4info_names"
PROGRAMS = {"srv6_switch": REPO / "p4src" / "srv6_switch.p4"}

_MATCH = {v: k.lower() for k, v in p4info_pb2.MatchField.MatchType.items()}
_UNITS = {v: k.lower() for k, v in p4info_pb2.CounterSpec.Unit.items()}


def p4info_names(info: p4info_pb2.P4Info) -> list[str]:
    """One line per table, action, counter, register and controller header."""
    actions = {a.preamble.id: a.preamble.name for a in info.actions}
    lines = []
    for t in info.tables:
        keys = ", ".join(f"{m.name}:{_MATCH[m.match_type]}:{m.bitwidth}" for m in t.match_fields)
        refs = ", ".join(actions[r.id] for r in t.action_refs)
        lines.append(f"table {t.preamble.name} size={t.size} key=({keys}) actions=({refs})")
    for a in info.actions:
        params = ", ".join(f"{p.name}:{p.bitwidth}" for p in a.params)
        lines.append(f"action {a.preamble.name}({params})")
    for c in info.counters:
        lines.append(f"counter {c.preamble.name} size={c.size} unit={_UNITS[c.spec.unit]}")
    for r in info.registers:
        lines.append(f"register {r.preamble.name} size={r.size}")
    for h in info.controller_packet_metadata:
        fields = ", ".join(f"{m.name}:{m.bitwidth}" for m in h.metadata)
        lines.append(f"controller_header {h.preamble.name}({fields})")
    return lines


def _names(name: str) -> list[str]:
    return p4info_names(generate_p4info(check_source(preprocess(PROGRAMS[name]))))


def test_switch_p4info_names_unchanged() -> None:
    expected = (EXPECTED_DIR / "srv6_switch.names").read_text().splitlines()
    assert _names("srv6_switch") == expected


def _control_plane_names(path: Path) -> set[str]:
    """Tables (with their actions) and extern instances, named as p4c names them."""
    checked = check_source(preprocess(path))
    top = {id(d) for d in checked.program.decls}
    names: set[str] = set()

    def visit(inst: BlockInstance) -> None:
        for local in getattr(inst.decl, "locals", []):
            if isinstance(local, ast.TableDecl):
                refs = sorted(qualify("" if id(r.decl) in top else inst.path, r.decl)
                              for r in local.actions)
                names.add(f"table {qualify(inst.path, local)} {refs}")
            elif isinstance(local, ast.InstantiationDecl) and \
                    local.type_ref.resolved.name.lower() == "counter":  # v1model, TNA
                names.add(f"counter {qualify(inst.path, local)}")
        for child in inst.children:
            visit(child)

    for inst in block_instances(checked.package_blocks):
        visit(inst)
    return names


def test_the_tna_switch_has_the_v1model_names() -> None:
    v1model = _control_plane_names(PROGRAMS["srv6_switch"])
    tna = _control_plane_names(REPO / "p4src" / "tna" / "srv6_switch.p4")
    assert len(v1model) == 11
    # The RED ramp's mask table is TNA's own (docs/architectures.md).
    assert tna - v1model == {"table SwitchEgress.ecn_ramp_mask ['SwitchEgress.set_ramp_mask']"}
    assert v1model <= tna


if __name__ == "__main__":
    for prog in PROGRAMS:
        (EXPECTED_DIR / f"{prog}.names").write_text("\n".join(_names(prog)) + "\n")
    sys.exit(0)
