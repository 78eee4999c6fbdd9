"""What the front-end tests that compare bm with p4c do with each case: check a program
text, and check that it is rejected with a message and a location, as p4c rejects it."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.checker import CheckedProgram
from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source


def check(text: str) -> CheckedProgram:
    return check_source(preprocess_text(text))


def assert_rejected(text: str, message: str) -> None:
    """``text`` fails the check with a type error saying ``message``, at a place."""
    with pytest.raises(P4TypeError) as err:
        check(text)
    assert message in err.value.message
    assert err.value.location is not None


V1MODEL_PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { %s }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
%s
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def v1model_program(header_fields: str, ingress: str) -> str:
    """A v1model program whose header ``h_t`` holds ``header_fields`` (line 4) and
    whose ingress control has the body ``ingress`` (from line 12)."""
    return V1MODEL_PROGRAM % (header_fields, ingress)
