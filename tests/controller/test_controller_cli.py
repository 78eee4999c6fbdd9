"""``mrc-ctl`` (``python -m controller``): plan, paths, the device subcommands without
devices, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from live_fabric import small_on_free_ports

from controller.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "controller" / "examples" / "small.yaml")
PRODUCTION = str(ROOT / "controller" / "examples" / "production.yaml")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["plan", SMALL], capsys)
    assert (code, err) == (0, "")
    assert "small" in out and "12 devices" in out and "3 QPs" in out
    assert "SwitchIngress.usid_route" in out and "NicIngress.ev.qp_ev" in out
    assert "170" in out


def test_plan_summary_is_one_line_for_any_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A long topology path (a deep checkout) must not split the summary line that scripts
    and people grep for."""
    deep = tmp_path / ("d" * 90) / ("e" * 90)
    deep.mkdir(parents=True)
    topology = deep / "small.yaml"
    topology.write_text(Path(SMALL).read_text())
    code, out, _ = run(["plan", str(topology)], capsys)
    first = out.splitlines()[0]
    assert code == 0
    assert str(topology) in first and first.endswith("12 devices, 3 QPs")


def test_plan_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", SMALL, "--json"], capsys)
    summary = json.loads(out)
    assert code == 0
    assert summary["entries"] == 170 and summary["devices"] == 12 and summary["planes"] == 2
    assert [r["role"] for r in summary["roles"]] == ["t1", "t0", "nic"]


def test_plan_entries_lists_every_entry_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", SMALL, "--entries"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 170 and len(set(lines)) == 170
    assert ("p0-t0-0  SwitchIngress.my_sid  dst_addr=fcbb:bb00:801::/48  ->  "
            "SwitchIngress.usid_un(end_to_cpu=0)") in lines
    assert ("p0-t0-1  SwitchIngress.usid_route  dst_usid_prefix=fcbb:bb00:1002  ->  "
            "SwitchIngress.set_next_hop(port=2, next_hop_mac=02:4e:00:00:03:00)") in lines


def test_plan_one_device_as_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", SMALL, "--device", "nic1", "--json"], capsys)
    entities = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and {e["device"] for e in entities} == {"nic1"}
    contexts = [e for e in entities if e.get("table") == "NicIngress.lookup.qp_context"]
    # nic1 holds qp-b (allocated QPN 0x100) and qp-c (QPN 0x42 from the file).
    assert sorted(e["match"]["local_qpn"]["exact"] for e in contexts) == [0x42, 0x100]
    assert {"device": "nic1", "kind": "digest", "digest": "ev_event_t", "max_timeout_ns": 0,
            "max_list_size": 1, "ack_timeout_ns": 10_000_000} in entities


def test_plan_production_device_on_demand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", PRODUCTION, "--device", "p3-t1-200"], capsys)
    assert code == 0 and len(out.splitlines()) == 1537
    assert "dst_addr=fcbb:bb00:60c9::/48" in out  # plane 3: 0x6000 | T1 200 + 1


def test_plan_unknown_device_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["plan", SMALL, "--device", "nic9"], capsys)
    assert (code, out) == (2, "")
    assert err == f"{SMALL}: no device named 'nic9'\n"


def test_paths(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["paths", SMALL, "qp-a"], capsys)
    assert code == 0
    assert "nic0 (QPN 0x100, index 0) -> nic2 (QPN 0x100)" in out
    assert "fcbb:bb00:2801:2002:2802:3001::" in out  # plane 1 through p1-t1-1
    assert out.count(" backup ") == 4  # one per plane, at each end


def test_paths_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["paths", SMALL, "qp-b", "--json"], capsys)
    paths = json.loads(out)
    assert code == 0 and paths["qp"] == "qp-b"
    a, b = paths["ends"]
    assert (a["nic"], b["nic"]) == ("nic1", "nic3")
    assert a["ev_slots"] == 8 and a["ev_mask"] == 7 and len(a["evs"]) == 8 + 2 * 2
    assert [p["down_usid"] for p in a["planes"]] == [0x1002, 0x3002]


def test_paths_unknown_qp_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["paths", SMALL, "qp-z"], capsys)
    assert (code, out) == (2, "")
    assert err == f"{SMALL}: no QP named 'qp-z' (QPs: qp-a, qp-b, qp-c)\n"


@pytest.mark.parametrize("command", ["apply", "status", "watch"])
def test_device_commands_exit_1_when_no_device_answers(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = small_on_free_ports(tmp_path)  # nothing listens there
    extra = ["--once", "--timeout", "1"] if command == "watch" else []
    code, out, err = run([command, str(topology), "--connect-timeout", "0.2", *extra],
                         capsys)
    assert code == 1
    assert "unreachable" in out + err
    assert "Traceback" not in out + err


def test_apply_with_a_program_that_does_not_exist_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = small_on_free_ports(tmp_path)
    topology.write_text(topology.read_text().replace("p4src/mrc_nic.p4", "p4src/nope.p4"))
    code, out, err = run(["apply", str(topology)], capsys)
    assert (code, out) == (2, "")
    assert err == "p4src/nope.p4: no such P4 program\n"


def test_bmv2_without_p4c_or_files_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no p4c-bm2-ss here
    topology = small_on_free_ports(tmp_path)
    topology.write_text(topology.read_text().replace("target: bm", "target: bmv2"))
    code, out, err = run(["apply", str(topology)], capsys)
    assert (code, out) == (2, "")
    assert "a bmv2 device needs p4c's JSON and P4Info" in err


@pytest.mark.parametrize("command", ["plan", "paths", "apply", "watch", "status"])
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert f"usage: mrc-ctl {command}" in capsys.readouterr().out


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["plan"])
    assert exit_info.value.code == 2


def test_python_dash_m_and_the_console_script() -> None:
    module = subprocess.run([sys.executable, "-m", "controller", "paths", SMALL, "qp-c"],
                            capture_output=True, text=True, cwd=ROOT, check=False)
    assert module.returncode == 0, module.stderr
    assert "nic1 (QPN 0x42, index 1)" in module.stdout
    script = Path(sys.executable).with_name("mrc-ctl")
    bad = subprocess.run([str(script), "paths", SMALL, "nope"], capture_output=True,
                         text=True, check=False)
    assert bad.returncode == 2 and "no QP named 'nope'" in bad.stderr


def test_plan_every_entry_as_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["plan", SMALL, "--entries", "--json"], capsys)
    entities = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(entities) == 170
    my_sid = next(e for e in entities if e["device"] == "p1-t1-1"
                  and e.get("table") == "SwitchIngress.my_sid")
    assert my_sid["match"] == {"dst_addr": {"lpm": 0xFCBBBB00_2002 << 80, "prefix_len": 48}}
