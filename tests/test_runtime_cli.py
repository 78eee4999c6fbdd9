"""``python -m behavioral_model cli``: simple_switch_CLI commands over P4Runtime, run
against a bm switch process on loopback. A tutorial-style command file is run, then
everything it wrote is read back over P4Runtime and compared; bad commands give one
``Error:`` line each and the CLI goes on; a target without P4Runtime register access
is reported in one line."""

from __future__ import annotations

import io
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from p4.v1 import p4runtime_pb2
from test_p4runtime_helpers import Harness

from behavioral_model.cli import main
from behavioral_model.cli.runtime_shell import RuntimeShell
from behavioral_model.cli.runtime_shell.context import ShellContext
from behavioral_model.cli.runtime_shell.syntax import PRIORITY_BASE
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import load_program
from p4rt_client import (
    P4InfoHelper,
    P4RuntimeSession,
    P4RuntimeWriteError,
    decode_value,
    wait_for_grpc,
)

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "p4" / "cli_router.p4"
COMMANDS = ROOT / "tests" / "runtime_cli" / "cli_router.txt"


@pytest.fixture
def switch() -> Iterator[str]:
    """A bm switch running cli_router.p4; yields its P4Runtime address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "behavioral_model", "switch", str(PROGRAM),
         "--grpc-server-addr", address, "-L", "off"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_grpc(address, alive=lambda: proc.poll() is None)
        yield address
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def helper() -> P4InfoHelper:
    return P4InfoHelper(generate_p4info(load_program(PROGRAM).checked))


def _read(address: str, *entities: Any) -> list[p4runtime_pb2.Entity]:
    with P4RuntimeSession(address, election_id=(0, 9)) as session:
        session.connect()
        return session.read(entities)


def _action(helper: P4InfoHelper, action: p4runtime_pb2.Action) -> tuple[str, ...]:
    return (helper.name_of(action.action_id),
            *(str(decode_value(p.value)) for p in action.params))


def _entries(address: str, helper: P4InfoHelper, table: str) -> dict[Any, Any]:
    """{match: action} of a table's entries, match and action as plain tuples."""
    found = {}
    for entity in _read(address, helper.table_entry(table)):
        entry = entity.table_entry
        match = []
        for m in entry.match:
            kind = m.WhichOneof("field_match_type")
            match.append(tuple(decode_value(v) if isinstance(v, bytes) else v
                               for _, v in getattr(m, kind).ListFields()))
        which = entry.action.WhichOneof("type")
        action = (_action(helper, entry.action.action) if which == "action"
                  else (which, getattr(entry.action, which)))
        found[(entry.priority, *match)] = action
    return found


def _default(address: str, helper: P4InfoHelper, table: str) -> tuple[str, ...]:
    probe = helper.table_entry(table, default=True)
    (entity,) = _read(address, probe)
    return _action(helper, entity.table_entry.action.action)


def test_command_file(switch: str, helper: P4InfoHelper,
                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cli", "--grpc-addr", switch, str(COMMANDS)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "CliIngress.ipv6_lpm              [hdr.ipv6.dst_addr(lpm, 128)]" in out
    assert out.count("Entry has been added with handle") == 10
    assert "port_in[1]= packets=5, bytes=500" in out
    assert "last_len[3]= 1500" in out
    assert "1: info rate = 0.0005, burst size = 200" in out
    assert "  action: member 0" in out and "  action: group 0" in out  # wcmp dump

    net = 0x20010DB8 << 96
    assert _entries(switch, helper, "ipv6_lpm") == {
        (0, (net | 1 << 80, 48)): ("CliIngress.set_nexthop", "1"),
        (0, (net | 2 << 80, 48)): ("CliIngress.set_nexthop", "2"),
        (0, (0xFF02 << 112, 16)): ("CliIngress.flood", "1"),
    }
    assert _default(switch, helper, "ipv6_lpm") == ("CliIngress.drop",)
    assert _entries(switch, helper, "nexthop") == {
        (0, (1,)): ("CliIngress.forward", "1", str(0x101), str(0xAA)),
        (0, (2,)): ("CliIngress.forward", "3", str(0x303), str(0xAA)),  # table_modify
    }
    assert _default(switch, helper, "nexthop") == ("CliIngress.forward", "511", "0", "0")
    mask48 = ((1 << 48) - 1) << 80
    assert _entries(switch, helper, "acl") == {
        (PRIORITY_BASE - 10, (net | 0xBAD << 80, mask48), (1, 4)): ("CliIngress.drop",),
        (PRIORITY_BASE - 20, (net, ((1 << 32) - 1) << 96)): ("CliIngress.mirror", "5"),
    }

    (counter,) = _read(switch, helper.counter_entry("port_in", 1))
    assert counter.counter_entry.data.packet_count == 0  # counter_reset came last
    meter = p4runtime_pb2.MeterEntry(meter_id=helper.get_id("meters", "port_meter"))
    meter.index.index = 1
    (found,) = _read(switch, meter)
    config = found.meter_entry.config
    assert (config.cir, config.cburst, config.pir, config.pburst) == (100, 100, 500, 200)
    (register,) = _read(switch, helper.register_entry("last_len", 3))
    assert decode_value(register.register_entry.data.bitstring) == 1500

    pre = p4runtime_pb2.PacketReplicationEngineEntry()
    pre.multicast_group_entry.multicast_group_id = 1
    (group,) = _read(switch, pre)
    replicas = group.packet_replication_engine_entry.multicast_group_entry.replicas
    assert sorted((r.egress_port, r.instance) for r in replicas) == [
        (1, 0), (2, 0), (3, 0), (4, 5)]
    pre = p4runtime_pb2.PacketReplicationEngineEntry()
    pre.clone_session_entry.session_id = 5
    (session,) = _read(switch, pre)
    clone = session.packet_replication_engine_entry.clone_session_entry
    assert [r.egress_port for r in clone.replicas] == [7]

    profile = helper.get_id("action_profiles", "wcmp_selector")
    members = _read(switch, p4runtime_pb2.ActionProfileMember(action_profile_id=profile))
    assert sorted(_action(helper, m.action_profile_member.action)[1] for m in members) == [
        "1", "2"]
    (selector_group,) = _read(switch, p4runtime_pb2.ActionProfileGroup(
        action_profile_id=profile))
    group_members = selector_group.action_profile_group.members
    assert sorted(m.member_id for m in group_members) == sorted(
        m.action_profile_member.member_id for m in members)
    wcmp = _entries(switch, helper, "wcmp")
    assert wcmp[(0, (8,))] == ("action_profile_group_id",
                               selector_group.action_profile_group.group_id)
    assert wcmp[(0, (7,))][0] == "action_profile_member_id"


BAD_COMMANDS = """\
table_add nosuch drop 1 =>
table_add nexthop forward 1 => 1 2
table_add nexthop forward 1 => 1 2 0x1000000000000
table_add acl drop 2001:db8::&&&ffff:: 1->4 =>
table_add ipv6_lpm set_nexthop 2001:db8::/129 => 1
table_delete nexthop 42
frobnicate
counter_read port_in 64
mc_node_associate 3 0
register_read last_len
table_add nexthop drop 7 =>
table_add nexthop drop 7 =>
table_num_entries nexthop
"""


def test_bad_commands_give_one_line_each(switch: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    commands = tmp_path / "bad.txt"
    commands.write_text(BAD_COMMANDS)
    assert main(["cli", "--grpc-addr", switch, str(commands)]) == 1
    out, err = capsys.readouterr()
    errors = err.splitlines()
    assert all(line.startswith(f"Error: {commands}:") for line in errors), err
    failed = [int(line.split(":")[2]) for line in errors]
    assert failed == [1, 2, 3, 4, 5, 6, 7, 8, 9, 12]
    for text in ("no table 'nosuch'", "needs 3 parameter(s), got 2",
                 "does not fit in 48 bits", "needs 2 key value(s) and a priority",
                 "prefix length 129 is not in 0..128", "no entry with handle 42",
                 "unknown command 'frobnicate'", "index 64 is outside",
                 "multicast group 3 was not created by this CLI", "ALREADY_EXISTS"):
        assert text in err, text
    assert "last_len= 0, 0, 0" in out  # the CLI went on after each error
    assert out.rstrip().endswith("1")  # table_num_entries after the duplicate


def test_stdin_and_help(switch: str, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("help table_add\nhelp\nshow_actions\n"))
    assert main(["cli", "--grpc-addr", switch]) == 0
    out = capsys.readouterr().out
    assert "table_add <table> <action> <match fields> => <action params> [priority]" in out
    assert "mirroring_add" in out and "register_reset" in out
    assert "CliIngress.forward" in out and "port(9), dmac(48), smac(48)" in out


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cli", str(tmp_path / "none.txt")]) == 2
    assert main(["cli", "--p4info", str(tmp_path / "none.txtpb"), str(COMMANDS)]) == 2
    with pytest.raises(SystemExit) as info:
        main(["cli", "--device-id", "x"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "none.txt: no such command file" in err and "Traceback" not in err


class _Unimplemented(grpc.RpcError):
    """What BMv2's P4Runtime server answers to register reads and writes."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNIMPLEMENTED

    def details(self) -> str:
        return "Register reads are not supported yet"

    def trailing_metadata(self) -> tuple[()]:
        return ()


class _NoRegisters:
    """A session whose target refuses register access, as real BMv2 does."""

    def read(self, entities: Any) -> list[p4runtime_pb2.Entity]:
        raise P4RuntimeWriteError(_Unimplemented(), "Read")

    def write(self, updates: Any) -> None:
        raise P4RuntimeWriteError(_Unimplemented(), "Write")


def test_registers_not_supported_by_the_target(helper: P4InfoHelper,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    shell = RuntimeShell(ShellContext(_NoRegisters(), helper, lines.append))  # type: ignore[arg-type]
    shell.run_lines(["register_read last_len 1", "register_write last_len 1 7",
                     "register_reset last_len"], "cmds")
    assert shell.failures == 0
    assert lines == [f"{c}: not supported by this target over P4Runtime (UNIMPLEMENTED: "
                     "Register reads are not supported yet)"
                     for c in ("register_read", "register_write", "register_reset")]
    assert capsys.readouterr().err == ""


def test_device_without_pipeline(harness: Harness, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    commands = tmp_path / "c.txt"
    commands.write_text("show_tables\n")
    address = f"127.0.0.1:{harness.server.port}"
    assert main(["cli", "--grpc-addr", address, "--device-id", "1", str(commands)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "load one first" in err
    assert len(err.splitlines()) == 1
