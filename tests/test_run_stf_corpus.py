"""scripts/run_stf_corpus.py: discovery, classification and the JSON report, on a
temporary corpus of tiny programs of our own."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "run_stf_corpus.py"

# Ingress copies the first byte to egress_spec and writes 0x5a to the second byte.
ECHO_P4 = """\
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> port; bit<8> data; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>) hdr.h.port;
        hdr.h.data = 0x5a;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

PASSING_STF = """\
packet 0 02 00 abcd
expect 2 02 5a abcd
"""

# Expects the data byte unchanged, which the program does not do.
FAILING_STF = """\
packet 0 03 00
expect 3 03 00
"""

BAD_STF = """\
packet 0 zz
"""

BROKEN_P4 = """\
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
control I(inout h_t h) { apply { h.a = undeclared_name; } }
"""

PSA_P4 = """\
#include <core.p4>
#include <psa.p4>
"""


def _load_script() -> ModuleType:
    # Importable by name (scripts/ on sys.path) so that worker processes, forked or
    # spawned, can unpickle its functions and results.
    if str(SCRIPT.parent) not in sys.path:
        sys.path.insert(0, str(SCRIPT.parent))
    return importlib.import_module("run_stf_corpus")


@pytest.fixture(scope="module")
def corpus_script() -> ModuleType:
    return _load_script()


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "good-bmv2.p4").write_text(ECHO_P4)
    (tmp_path / "good-bmv2.stf").write_text(PASSING_STF)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bad-bmv2.p4").write_text(ECHO_P4)
    (sub / "bad-bmv2.stf").write_text(FAILING_STF)
    (tmp_path / "broken-bmv2.p4").write_text(BROKEN_P4)
    (tmp_path / "broken-bmv2.stf").write_text(PASSING_STF)
    (tmp_path / "badstf-bmv2.p4").write_text(ECHO_P4)
    (tmp_path / "badstf-bmv2.stf").write_text(BAD_STF)
    (tmp_path / "psa-thing-bmv2.p4").write_text(PSA_P4)
    (tmp_path / "psa-thing-bmv2.stf").write_text(PASSING_STF)
    (tmp_path / "no-stf.p4").write_text(ECHO_P4)  # no sibling .stf: not a test
    return tmp_path


def test_discover_pairs_and_skips_other_architectures(
    corpus_script: ModuleType, corpus: Path
) -> None:
    tests, skipped = corpus_script.discover(corpus)
    assert [t.name for t in tests] == ["badstf-bmv2", "broken-bmv2", "good-bmv2",
                                       "sub/bad-bmv2"]
    assert skipped == [("psa-thing-bmv2", "psa.p4")]
    filtered, _ = corpus_script.discover(corpus, "bad-*")
    assert [t.name for t in filtered] == ["sub/bad-bmv2"]


def test_run_classifies_and_writes_json(
    corpus_script: ModuleType, corpus: Path, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path_factory.mktemp("report") / "results.json"
    code = corpus_script.main([str(corpus), "--jobs", "2", "--timeout", "60", "--plain",
                               "--json", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    statuses = {r["name"]: r["status"] for r in report["results"]}
    assert statuses == {
        "good-bmv2": "pass",
        "sub/bad-bmv2": "fail",
        "broken-bmv2": "frontend-error",
        "badstf-bmv2": "frontend-error",
    }
    by_name = {r["name"]: r for r in report["results"]}
    assert "differs from the expected packet" in by_name["sub/bad-bmv2"]["detail"]
    assert "undeclared_name" in by_name["broken-bmv2"]["detail"]
    assert by_name["broken-bmv2"]["phase"] == "compile"
    assert by_name["badstf-bmv2"]["detail"].startswith("STF file rejected: ")
    assert report["counts"]["pass"] == 1
    assert report["total"] == 4
    printed = capsys.readouterr().out
    assert "pass rate: 1/4 = 25.0 %" in printed


def test_classify_exception(corpus_script: ModuleType) -> None:
    from behavioral_model.frontend.errors import P4TypeError

    status, detail = corpus_script.classify_exception(
        P4TypeError("extern function foo is not supported by this target"))
    assert status == "unsupported"
    assert corpus_script.classify_exception(P4TypeError("no such name 'x'"))[0] == (
        "frontend-error")
    try:
        {}["missing"]  # noqa: B018 - raise a KeyError with a traceback
    except KeyError as error:
        status, detail = corpus_script.classify_exception(error)
    assert status == "crash"
    assert detail.startswith("KeyError: 'missing' at ")
    assert "test_classify_exception" in detail


def test_timeout(corpus_script: ModuleType, monkeypatch: pytest.MonkeyPatch,
                 corpus: Path) -> None:
    import behavioral_model.program as program

    def slow(*args: object, **kwargs: object) -> None:
        while True:
            pass

    monkeypatch.setattr(program, "load_program", slow)
    test = corpus_script.CorpusTest("good-bmv2", str(corpus / "good-bmv2.p4"),
                                    str(corpus / "good-bmv2.stf"))
    result = corpus_script.run_one(test, 0.2)
    assert result.status == "timeout"
    assert result.phase == "compile"


def test_usage_error(corpus_script: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        corpus_script.main([str(tmp_path / "missing")])
    assert exit_info.value.code == 2
