"""A parser or control declaration given where a control type is expected may leave out
the type's trailing parameters that have a default value (p4c's
default-control-argument.p4), as it may `@optional` ones. The verdicts below are
p4test 1.2.5's."""

from __future__ import annotations

import re

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source

PROG = """
#include <core.p4>
struct md_t { bit<8> f0; bit<8> f1; }
control C<H, M>(inout H hdr, inout M meta, in md_t intr_md = {0, 0});
package P<H, M>(C<H, M> c);
struct hdr_t { }
struct meta_t { }
control MyC(PARAMS) { apply { } }
P(MyC()) main;
"""


def _check(params: str) -> None:
    check_source(preprocess_text(PROG.replace("PARAMS", params), "t.p4"))


@pytest.mark.parametrize("params", [
    "inout hdr_t hdr, inout meta_t meta",
    "inout hdr_t hdr, inout meta_t meta, in md_t m",
])
def test_accepted(params: str) -> None:
    _check(params)


@pytest.mark.parametrize(("params", "message"), [
    ("inout hdr_t hdr", "MyC has 1 parameters, C needs 2 to 3"),
    ("inout hdr_t hdr, inout meta_t meta, in bit<8> m",
     "parameter 'm' of MyC has type bit<8>, expected md_t"),
])
def test_rejected(params: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check(params)
