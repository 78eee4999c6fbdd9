"""P4Info of actions as p4c lists them after its front end: which parameters an action
keeps depends on its first user (p4c's LocalizeAllActions gives each table and each
direct call its own copy, RemoveActionParameters binds what that user supplies), and a
table with an empty actions list gets a @defaultonly NoAction."""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import load_program_text

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in p, out headers hdr, inout metadata m, inout standard_metadata_t s) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout headers h, inout metadata m) { apply { } }
action top_called(inout bit<8> x, bit<8> v) { x = v; }
control C(inout headers hdr, inout metadata m, inout standard_metadata_t s) {
    action called(inout bit<8> x, bit<8> v) { x = x + v; }
    action both(bit<8> v) { hdr.h.b = v; }
    action in_table(inout bit<8> x, bit<8> v) { x = v; }
    table t {
        key = { hdr.h.a : exact; }
        actions = { both; in_table(hdr.h.a); }
        default_action = both(1);
    }
    table empty {
        actions = { }
    }
    apply {
        t.apply();
        empty.apply();
        called(hdr.h.a, 3);
        both(4);
        top_called(hdr.h.b, 5);
    }
}
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control CC(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), C(), E(), CC(), D()) main;
"""


def _info() -> p4info_pb2.P4Info:
    return generate_p4info(load_program_text(PROGRAM, "actions.p4").checked)


def _params(info: p4info_pb2.P4Info) -> dict[str, list[tuple[int, str, int]]]:
    return {a.preamble.name: [(p.id, p.name, p.bitwidth) for p in a.params]
            for a in info.actions}


def test_directly_called_actions_lose_their_parameters() -> None:
    assert _params(_info()) == {
        "top_called": [],                     # top-level, only called: no parameters
        "NoAction": [],
        "C.called": [],                       # only called: every argument is bound
        "C.both": [(1, "v", 8)],              # a table lists it first: data kept
        "C.in_table": [(1, "v", 8)],          # x bound by the table, v renumbered
    }


def test_empty_actions_list_gets_a_default_only_no_action() -> None:
    info = _info()
    table = next(t for t in info.tables if t.preamble.name == "C.empty")
    no_action = next(a for a in info.actions if a.preamble.name == "NoAction")
    assert [(r.id, r.scope) for r in table.action_refs] == [
        (no_action.preamble.id, p4info_pb2.ActionRef.DEFAULT_ONLY)]
    assert table.initial_default_action.action_id == no_action.preamble.id
