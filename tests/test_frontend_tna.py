"""TNA programs in our front end: tna.p4/tofino.p4 (our own text, declarations as in
Intel's open-source files), blocks that leave out @optional intrinsic metadata,
`Pipeline(...) pipe; Switch(pipe) main;`, and extern instances with an initializer
(RegisterAction's abstract apply, spec 11.3.1). bm checks TNA programs; it does not
run them, and says so instead of failing inside.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import BUILTIN_INCLUDE_DIR, preprocess, preprocess_text
from behavioral_model.program import check_source

REPO = Path(__file__).resolve().parents[1]

HEADER = """#include <core.p4>
#include <tna.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<8> x; }
parser IP(packet_in pkt, out H hdr, out M md, out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.h);
        transition accept;
    }
}
parser EP(packet_in pkt, out H hdr, out M md, out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); pkt.extract(hdr.h); transition accept; }
}
control E(inout H hdr, inout M md) { apply { } }
control D(packet_out pkt, inout H hdr, in M md) { apply { pkt.emit(hdr); } }
"""
MAIN = "Pipeline(IP(), I(), D(), EP(), E(), D()) pipe;\nSwitch(pipe) main;\n"

GOOD_INGRESS = """
control I(inout H hdr, inout M md, in ingress_intrinsic_metadata_t ig_intr_md,
          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Register<bit<8>, PortId_t>(512) seen;
    RegisterAction<bit<8>, PortId_t, bit<8>>(seen) bump = {
        void apply(inout bit<8> value, out bit<8> rv) {
            rv = value;
            value = value + 1;
        }
    };
    Counter<bit<64>, PortId_t>(512, CounterType_t.PACKETS_AND_BYTES) rx;
    action fwd(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    action drop() { ig_dprsr_md.drop_ctl = 1; }
    table t { key = { hdr.h.a: exact; } actions = { fwd; drop; } default_action = drop(); }
    apply {
        rx.count(ig_intr_md.ingress_port);
        md.x = bump.execute(ig_intr_md.ingress_port);
        ig_tm_md.qid = 7;
        t.apply();
    }
}
"""


def _check(text: str):
    return check_source(preprocess_text(text, "tna_test.p4"))


def _error(text: str) -> tuple[int, str]:
    with pytest.raises(P4Error) as info:
        _check(text)
    err = info.value
    assert err.location is not None, str(err)
    return err.location.line, str(err)


def _line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_a_tna_program_checks() -> None:
    checked = _check(HEADER + GOOD_INGRESS + MAIN)
    # The blocks of the pipe, through the Pipeline instance main is given.
    assert [b.name for b in checked.package_blocks] == ["IP", "I", "D", "EP", "E", "D"]


def test_what_typical_tna_programs_use_checks() -> None:
    checked = check_source(preprocess(REPO / "tests" / "p4" / "tna_typical.p4"))
    assert [b.name for b in checked.package_blocks] == ["IP", "I", "ID", "EP", "E", "ED"]
    text = (REPO / "tests" / "p4" / "tna_typical.p4").read_text()
    line, err = _error(text.replace("ActionSelector(ap, h,", "ActionSelector(ap, ap,"))
    assert "argument 'hash' of ActionSelector: expected Hash<_>, got ActionProfile" in err
    assert line == _line_of(text, "ActionSelector(ap, h,")


def test_the_tna_switch_checks_in_the_cli() -> None:
    out = subprocess.run([sys.executable, "-m", "behavioral_model", "check",
                          "p4src/tna/srv6_switch.p4"], cwd=REPO, capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"ok \(7 tables, \d+ actions\)", out.stdout), out.stdout


def test_p4info_and_compile_say_tna_is_not_supported() -> None:
    prog = REPO / "p4src" / "tna" / "srv6_switch.p4"
    for args in (["p4info", str(prog), "-o", "-"], ["check", str(prog), "--compile"]):
        out = subprocess.run([sys.executable, "-m", "behavioral_model", *args], cwd=REPO,
                             capture_output=True, text=True, check=False)
        assert out.returncode == 1
        assert "Traceback" not in out.stderr and "internal error" not in out.stderr
        assert re.match(r"\S+srv6_switch\.p4:\d+:\d+: ", out.stderr), out.stderr
    with pytest.raises(P4Error, match="not supported for tna"):
        generate_p4info(_check(HEADER + GOOD_INGRESS + MAIN))


@pytest.mark.parametrize(("change", "where", "message"), [
    (("out bit<8> rv) {", "out bit<4> rv) {"), "out bit<4> rv",
     "parameter 'rv' of apply has type bit<4>, expected bit<8>"),
    (("inout bit<8> value, out", "in bit<8> value, out"), "in bit<8> value",
     "parameter 'value' of apply must be inout"),
    (("void apply(inout", "void run(inout"), "void run",
     "extern RegisterAction has no abstract method 'run'"),
    (("bump = {", "bump = { bit<8> helper() { return 1; }"), "bump = {",
     "no abstract method 'helper'"),
])
def test_a_wrong_initializer_is_reported_where_it_is(change: tuple[str, str], where: str,
                                                     message: str) -> None:
    text = HEADER + GOOD_INGRESS.replace(*change) + MAIN
    line, err = _error(text)
    assert message in err
    assert line == _line_of(text, where)


def test_abstract_methods_left_out_and_an_initializer_of_a_non_extern() -> None:
    text = HEADER + GOOD_INGRESS.replace(
        """void apply(inout bit<8> value, out bit<8> rv) {
            rv = value;
            value = value + 1;
        }""", "") + MAIN
    line, err = _error(text)
    assert "does not implement the abstract method 'apply' of RegisterAction" in err
    assert line == _line_of(text, "RegisterAction<bit<8>")
    text = HEADER + GOOD_INGRESS.replace(""" = {
        void apply(inout bit<8> value, out bit<8> rv) {
            rv = value;
            value = value + 1;
        }
    };""", ";") + MAIN
    line, err = _error(text)
    assert "instance bump needs an initializer: RegisterAction has the abstract method" in err
    assert line == _line_of(text, "RegisterAction<bit<8>")
    text = HEADER + GOOD_INGRESS + "Pipeline(IP(), I(), D(), EP(), E(), D()) pipe = { };\n"
    _, err = _error(text)
    assert "only an extern instance can have an initializer" in err


def test_optional_block_parameters_may_be_left_out_but_not_required_ones() -> None:
    # E and D above already leave out every @optional parameter.
    text = HEADER + GOOD_INGRESS + MAIN.replace("E(), D()) pipe", "E(), E()) pipe")
    _, err = _error(text)
    assert "E has 2 parameters, EgressDeparserT needs 3 to 6" in err


def test_our_tna_declarations_have_the_real_names() -> None:
    """Names and parameters read from Intel's tna.p4/tofino1arch.p4/tofino.p4."""
    tna = (BUILTIN_INCLUDE_DIR / "tna.p4").read_text()
    tofino = (BUILTIN_INCLUDE_DIR / "tofino.p4").read_text()
    for block in ("IngressParserT", "EgressParserT", "IngressT", "EgressT",
                  "IngressDeparserT", "EgressDeparserT"):
        assert re.search(rf"\b(parser|control) {block}<H, M>\(", tna), block
    assert "package Pipeline<IH, IM, EH, EM>(" in tna
    assert '@pkginfo(arch="TNA", version="1.0.2")' in tna
    for name in ("ingress_intrinsic_metadata_t", "ingress_intrinsic_metadata_for_tm_t",
                 "ingress_intrinsic_metadata_from_parser_t",
                 "ingress_intrinsic_metadata_for_deparser_t", "egress_intrinsic_metadata_t",
                 "egress_intrinsic_metadata_from_parser_t",
                 "egress_intrinsic_metadata_for_deparser_t",
                 "egress_intrinsic_metadata_for_output_port_t"):
        assert re.search(rf"@__intrinsic_metadata\n(header|struct) {name} {{", tofino), name
    for proto in ("extern RegisterAction<T, I, U> {", "abstract void apply(inout T value, "
                  "@optional out U rv);", "extern Counter<W, I> {",
                  "void emit<T>(in MirrorId_t session_id, in T hdr);",
                  "extern Random<W> {", "typedef bit<9>  PortId_t;"):
        assert proto in tofino, proto
