"""p4c's rule for directionless parameters (its TypeUnification::unifyCall): the argument
of a directionless parameter of an extern function, an extern method, a function or a
constructor must be known at compile time. Literals, constants, enum and error members,
instances and directionless parameters (an action's own included: that is how p4c's PNA
samples call send_to_port from a table action) are known, and so is what is built from
them; a variable, a header field or an `in` parameter is not, nor is the parameter of
an action that is also called directly (p4c then binds it like an `in`). In a table, an action's
directionless parameter is bound by the control plane (action list) or by a known value
(default action, entries). Each rejected case below is rejected by p4test 1.2.5 too."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.checker import CheckedProgram
from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source


def check(text: str) -> CheckedProgram:
    return check_source(preprocess_text(text))

CORE = """
#include <core.p4>
extern void sink(bit<8> v);
extern Box { Box(bit<8> size); void put(bit<8> v); }
const bit<8> K = 3;
bit<8> twice(bit<8> v) { return v + v; }
control C(inout bit<8> x);
package P(C c);
control Ctl(inout bit<8> x) {
    bit<8> local = 1;
    Box(K + 1) box;
    %s
    apply { %s }
}
P(Ctl()) main;
"""

PNA = """
#include <core.p4>
#include <pna.p4>
struct h_t { }
struct m_t { bit<32> port; }
parser Parse(packet_in pkt, out h_t hdr, inout m_t meta,
             in pna_main_parser_input_metadata_t istd) {
    state start { transition accept; }
}
control Pre(in h_t hdr, inout m_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) { apply { } }
control Main(inout h_t hdr, inout m_t meta, in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    %s
    apply { %s }
}
control Deparse(packet_out pkt, in h_t hdr, in m_t meta,
                in pna_main_output_metadata_t ostd) { apply { } }
PNA_NIC(Parse(), Pre(), Main(), Deparse()) main;
"""

REJECTED = {
    "extern function, variable": (CORE, "", "sink(local);", "'v' of sink"),
    "extern function, inout parameter": (CORE, "", "sink(x);", "'v' of sink"),
    "extern function, expression of a variable": (CORE, "", "sink(x + 1);", "'v' of sink"),
    "extern method": (CORE, "", "box.put(x);", "'v' of put"),
    "function": (CORE, "", "x = twice(x);", "'v' of twice"),
    "action's in parameter": (CORE, "action a(in bit<8> v) { sink(v); }", "a(x);",
                              "'v' of sink"),
    "action called directly": (CORE, "action a(bit<8> v) { sink(v); } "
                               "table t { key = { x: exact; } actions = { a; } }",
                               "a(3); t.apply();",
                               "'v' of sink must be a compile-time constant: action a is "
                               "called directly, which makes its parameter 'v' a run-time "
                               "value"),
    "PNA send_to_port of a field": (PNA, "", "send_to_port((PortId_t)meta.port);",
                                    "'dest_port' of send_to_port"),
    "PNA send_to_port of a local": (PNA, "", "PortId_t p = (PortId_t)meta.port; "
                                    "send_to_port(p);", "'dest_port' of send_to_port"),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_an_unknown_argument_of_a_directionless_parameter_is_rejected(case: str) -> None:
    template, locals_, body, where = REJECTED[case]
    with pytest.raises(P4TypeError) as info:
        check(template % (locals_, body))
    assert f"argument used for directionless parameter {where}" in info.value.message
    assert "must be a compile-time constant" in info.value.message


ACCEPTED = {
    "literal, constant and their arithmetic": (CORE, "", "sink(8w1); sink(K); sink(K * 2);"),
    "casts and slices of constants": (CORE, "", "sink((bit<8>)16w300); sink(K[7:0]);"),
    "an action's directionless parameter": (
        CORE, "action a(bit<8> v) { sink(v); box.put(v + K); } "
        "table t { key = { x: exact; } actions = { a; } }", "t.apply();"),
    "an action called directly whose parameters need not be known": (
        CORE, "action a(bit<8> v) { x = v; } action b(bit<8> w) { sink(w); } "
        "table t { key = { x: exact; } actions = { a; b; } }", "a(x); t.apply();"),
    "function of a constant": (CORE, "", "x = twice(K);"),
    "PNA send_to_port from a table action": (
        PNA, "action fwd(bit<32> port) { send_to_port((PortId_t)port); } "
        "table t { key = { meta.port: exact; } actions = { fwd; } }", "t.apply();"),
    "PNA drop and a known port": (PNA, "", "send_to_port((PortId_t)32w4); drop_packet();"),
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_a_known_argument_of_a_directionless_parameter_is_accepted(case: str) -> None:
    template, locals_, body = ACCEPTED[case]
    assert check(template % (locals_, body)).main is not None


TABLES = {
    "entry with a variable": (
        "bit<8> y = 1; action a(bit<8> v) { x = v; } "
        "table t { key = { x: exact; } actions = { a; } const entries = { 1 : a(y); } }",
        "action argument must be a compile-time constant"),
    "default action with a variable": (
        "bit<8> y = 1; action a(bit<8> v) { x = v; } "
        "table t { key = { x: exact; } actions = { a; } default_action = a(y); }",
        "action argument must be a compile-time constant"),
    "action list binding control-plane data": (
        "action a(bit<8> v) { x = v; } table t { key = { x: exact; } actions = { a(1); } }",
        "parameter 'v' of a cannot be bound: it is set by the control plane"),
}


@pytest.mark.parametrize("case", sorted(TABLES))
def test_table_action_arguments_follow_p4c(case: str) -> None:
    locals_, message = TABLES[case]
    with pytest.raises(P4TypeError) as info:
        check(CORE % (locals_, "t.apply();"))
    assert message in info.value.message


def test_a_table_entry_with_known_action_data_is_accepted() -> None:
    program = CORE % ("action a(bit<8> v) { x = v; } table t { key = { x: exact; } "
                      "actions = { a; } const entries = { 1 : a(K + 1); } "
                      "default_action = a(2); }", "t.apply();")
    assert check(program).main is not None
