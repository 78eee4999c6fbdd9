"""Controls given to controls as constructor arguments (spec 15.2): the instances are
named and counted once, wherever they are applied, in P4Info as in the executor
(tests/stf/a_ctrl_constructor_control checks the packets and counters)."""

from __future__ import annotations

from pathlib import Path

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import load_program

PROGRAM = Path(__file__).parent / "stf" / "a_ctrl_constructor_control.p4"


def test_p4info_names_each_instance_once_in_declaration_order() -> None:
    info = generate_p4info(load_program(PROGRAM).checked)
    # `one` is applied only through `twice` and `sh`; the instance built in `anon`'s
    # argument is declared just before `anon`, named tmp as p4c's MoveConstructors does.
    assert [c.preamble.name for c in info.counters] == [
        "MyIngress.top.one.hits", "MyIngress.top.tmp.hits"]


def test_device_state_has_one_counter_per_instance() -> None:
    state = load_program(PROGRAM).new_state()
    assert sorted(state.counters) == ["MyIngress.top.one.hits", "MyIngress.top.tmp.hits"]
