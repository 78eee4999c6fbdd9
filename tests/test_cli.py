"""The command line: ``python -m behavioral_model`` / ``mrc-bm`` (check, p4info, stf)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from behavioral_model.cli import SUBCOMMANDS, main

STF_DIR = Path(__file__).parent / "stf"
ROUTER = STF_DIR / "ipv6_router.p4"
ROUTER_STF = STF_DIR / "ipv6_router.stf"

SMALL_P4 = """\
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table t { key = { hdr.h.a: exact; } actions = { fwd; drop; } default_action = drop(); }
    apply {
#ifdef FORWARD_ALL
        sm.egress_spec = FORWARD_ALL;
#else
        t.apply();
#endif
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.p4"
    path.write_text(SMALL_P4)
    return path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in args], prog="mrc-bm")
    out, err = capsys.readouterr()
    return code, out, err


# -- help and usage ----------------------------------------------------------------------


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"], prog="mrc-bm")
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: mrc-bm")
    for sub in SUBCOMMANDS:
        assert sub.name in out
    assert {sub.name for sub in SUBCOMMANDS} >= {"check", "p4info", "stf"}


@pytest.mark.parametrize("command", ["check", "p4info", "stf"])
def test_subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"], prog="mrc-bm")
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: mrc-bm {command}")
    assert "-I DIR" in out and "-D NAME[=VALUE]" in out


@pytest.mark.parametrize(
    "args",
    [[], ["frobnicate"], ["check"], ["stf", "x.p4"], ["p4info", "x.p4"],
     ["check", "x.p4", "--bogus"], ["check", "x.p4", "-D", "1abc"]],
)
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(args, prog="mrc-bm")
    assert info.value.code == 2
    assert "usage: mrc-bm" in capsys.readouterr().err


# -- check -------------------------------------------------------------------------------


def test_check_ok(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["check", small], capsys)
    assert (code, out, err) == (0, f"{small}: ok (1 table, 2 actions)\n", "")


def test_check_router_with_compile(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["check", ROUTER, "--compile"], capsys)
    assert (code, out) == (0, f"{ROUTER}: ok (3 tables, 5 actions)\n")


def test_check_reports_p4_error_with_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.p4", SMALL_P4.replace("sm.egress_spec = port;",
                                                     "sm.egress_spec = nosuch;"))
    code, out, err = run_main(["check", bad], capsys)
    assert code == 1
    assert out == ""
    assert err.startswith(f"{bad}:11:")
    assert "nosuch" in err
    assert len(err.splitlines()) == 1


def test_check_syntax_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "syntax.p4", "header h_t { bit<8> a }\n")
    code, _, err = run_main(["check", bad], capsys)
    assert code == 1
    assert err.startswith(f"{bad}:1:")
    assert "Traceback" not in err


def test_check_defines_and_include_dirs(
    tmp_path: Path, small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["check", small, "-D", "FORWARD_ALL=3"], capsys)
    assert code == 0
    assert "(1 table, 2 actions)" in out
    incdir = tmp_path / "inc"
    incdir.mkdir()
    (incdir / "body.p4").write_text(SMALL_P4)
    main_p4 = write(tmp_path, "main.p4", '#include "body.p4"\n')
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    main_p4 = main_p4.rename(moved / "main.p4")
    code, _, err = run_main(["check", main_p4], capsys)
    assert code == 1 and "body.p4" in err
    code, out, _ = run_main(["check", main_p4, "-I", incdir], capsys)
    assert code == 0 and out.startswith(f"{main_p4}: ok")


def test_check_undefine_applies_in_order_after_defines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A program that only type-checks when __TARGET_BMV2__ is not defined.
    prog = write(tmp_path, "u.p4", "#ifdef __TARGET_BMV2__\n#error BMv2 build\n#endif\n"
                 + SMALL_P4)
    code, _, err = run_main(["check", prog], capsys)
    assert code == 1 and "BMv2 build" in err
    code, out, _ = run_main(["check", prog, "-U", "__TARGET_BMV2__"], capsys)
    assert code == 0 and out.startswith(f"{prog}: ok")
    code, _, err = run_main(["check", prog, "-U", "__TARGET_BMV2__", "-D", "__TARGET_BMV2__"],
                            capsys)
    assert code == 1 and "BMv2 build" in err
    with pytest.raises(SystemExit) as exit_info:
        run_main(["check", prog, "-U", "9lives"], capsys)
    assert exit_info.value.code == 2
    assert "invalid -U option '9lives'" in capsys.readouterr().err


def test_check_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.p4"
    code, out, err = run_main(["check", missing], capsys)
    assert (code, out, err) == (2, "", f"{missing}: no such file\n")
    code, _, err = run_main(["check", tmp_path], capsys)
    assert (code, err) == (2, f"{tmp_path}: not a file\n")


def test_check_missing_include_dir_exit_2(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_main(["check", small, "-I", tmp_path / "nodir"], capsys)
    assert code == 2
    assert err == f"-I {tmp_path / 'nodir'}: no such directory\n"


def test_internal_errors_are_one_line_unless_traceback(
    small: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from behavioral_model.cli import check

    def explode(checked: object) -> tuple[int, int]:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(check, "count_tables_and_actions", explode)
    code, _, err = run_main(["check", small], capsys)
    assert code == 1
    assert err == ("internal error: RuntimeError: kaboom (run with --traceback for "
                   "details)\n")
    code, _, err = run_main(["--traceback", "check", small], capsys)
    assert code == 1
    assert "Traceback (most recent call last)" in err


# -- stf ---------------------------------------------------------------------------------


def test_stf_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["stf", ROUTER, ROUTER_STF], capsys)
    assert code == 0, out + err
    assert out.splitlines()[-1].startswith(f"{ROUTER_STF}: PASS (")


def test_stf_failure_shows_diff(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stf = write(tmp_path, "t.stf", "add t a:1 fwd(port:2)\npacket 0 01\nexpect 2 02\n")
    code, out, _ = run_main(["stf", small, stf], capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{stf}:3: packet #1 on port 2")
    assert "first difference at byte 0" in out
    assert lines[-1].startswith(f"{stf}: FAIL (1 failure;")


def test_stf_verbose_traces(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stf = write(tmp_path, "t.stf", "add t a:1 fwd(port:2)\npacket 0 01\nexpect 2 01\n")
    code, out, _ = run_main(["stf", "-v", small, stf], capsys)
    assert code == 0
    assert f"{stf}:2: packet in on port 0: 01" in out
    assert f"{stf}:2: packet out on port 2: 01" in out


def test_stf_notes_and_strict_ports(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stf = write(tmp_path, "t.stf", "add t a:1 fwd(port:7)\npacket 0 01\n")
    code, out, _ = run_main(["stf", small, stf], capsys)
    assert code == 0
    assert out.startswith(f"note: {stf}:2: packet left on port 7")
    code, out, _ = run_main(["stf", "--strict-ports", small, stf], capsys)
    assert code == 1


def test_stf_defines(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stf = write(tmp_path, "t.stf", "packet 0 01\nexpect 3 01\n")
    code, _, _ = run_main(["stf", small, stf, "-D", "FORWARD_ALL=3"], capsys)
    assert code == 0
    code, _, _ = run_main(["stf", small, stf], capsys)
    assert code == 1


def test_stf_syntax_error_exit_2(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stf = write(tmp_path, "bad.stf", "add t a:1 fwd(port:2)\nfrobnicate 3\n")
    code, out, err = run_main(["stf", small, stf], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"{stf}:2:")
    assert "unknown command 'frobnicate'" in err
    assert len(err.splitlines()) == 1


def test_stf_missing_files_exit_2(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_main(["stf", small, tmp_path / "nope.stf"], capsys)
    assert (code, err) == (2, f"{tmp_path / 'nope.stf'}: no such file\n")
    code, _, err = run_main(["stf", tmp_path / "nope.p4", ROUTER_STF], capsys)
    assert (code, err) == (2, f"{tmp_path / 'nope.p4'}: no such file\n")


def test_stf_not_utf8_exit_2(small: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    stf = tmp_path / "binary.stf"
    stf.write_bytes(b"packet 0 01\n\xff\xfe\n")
    code, _, err = run_main(["stf", small, stf], capsys)
    assert code == 2
    assert err.startswith(f"{stf}:1:1: not UTF-8 text")


def test_stf_p4_error_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.p4", "control c() { apply { x = 1; } }\n")
    stf = write(tmp_path, "t.stf", "packet 0 01\n")
    code, _, err = run_main(["stf", bad, stf], capsys)
    assert code == 1
    assert err.startswith(f"{bad}:1:")


# -- p4info ------------------------------------------------------------------------------


def test_p4info_text_json_binary(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from google.protobuf import json_format, text_format
    from p4.config.v1 import p4info_pb2

    text_out = tmp_path / "small.p4info.txtpb"
    code, _, err = run_main(["p4info", small, "-o", text_out], capsys)
    assert code == 0, err
    info = text_format.Parse(text_out.read_text(), p4info_pb2.P4Info())
    assert [t.preamble.name for t in info.tables] == ["I.t"]
    assert {a.preamble.name for a in info.actions} >= {"I.fwd", "I.drop"}

    json_out = tmp_path / "small.json"
    assert run_main(["p4info", small, "-o", json_out], capsys)[0] == 0
    assert json_format.Parse(json_out.read_text(), p4info_pb2.P4Info()) == info

    bin_out = tmp_path / "small.p4info"
    assert run_main(["p4info", small, "-o", bin_out, "--format", "binary"], capsys)[0] == 0
    assert p4info_pb2.P4Info.FromString(bin_out.read_bytes()) == info


def test_p4info_to_stdout(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["p4info", str(small), "-o", "-"], prog="mrc-bm")
    assert code == 0
    out = capsys.readouterr().out
    assert 'name: "I.t"' in out


def test_p4info_errors(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["p4info", small, "-o", tmp_path / "no" / "dir" / "x.txtpb"],
                            capsys)
    assert code == 2 and "cannot write" in err
    code, _, _ = run_main(["p4info", tmp_path / "nope.p4", "-o", "-"], capsys)
    assert code == 2
    with pytest.raises(SystemExit) as info:
        main(["p4info", str(small), "-o", "x", "--format", "yaml"], prog="mrc-bm")
    assert info.value.code == 2


# -- entry points ------------------------------------------------------------------------


def test_python_dash_m(small: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "behavioral_model", "check", str(small)],
        capture_output=True, text=True, check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"{small}: ok (1 table, 2 actions)\n")
    done = subprocess.run(
        [sys.executable, "-m", "behavioral_model"], capture_output=True, text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python -m behavioral_model")


def test_console_script_entry_point() -> None:
    from behavioral_model.__main__ import main as script_main

    assert script_main is main


def test_a_p4_error_found_when_loading_is_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A program the checker passes but bm's loader refuses (a table size bound to an
    outer control's constructor parameter) fails with the P4 error's location, not as
    an internal error."""
    program = Path(__file__).parent / "p4" / "table_size_outer_param.p4"
    stf = tmp_path / "t.stf"
    stf.write_text("packet 0 01\nexpect 0 01\n")
    code, _, err = run_main(["stf", program, stf], capsys)
    assert code == 1
    assert err.startswith(f"{program}:") and "internal error" not in err
    assert err.count("\n") == 1
