"""`python -m behavioral_model switch --arch v1model|pna`: the switch runs programs of
one architecture, detected from the program's package without the option; a program of
another architecture is refused at start-up and over P4Runtime."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from test_p4runtime_helpers import Harness
from test_switch_process import parse

from behavioral_model.switch.process import SwitchOptions, SwitchStartError, _load_program

ROOT = Path(__file__).resolve().parent.parent
V1MODEL_NIC = ROOT / "p4src" / "mrc_nic.p4"
PNA_NIC = ROOT / "p4src" / "pna" / "mrc_nic.p4"


def test_arch_option_parsed() -> None:
    assert parse(str(PNA_NIC), "--arch", "pna").arch == "pna"
    assert parse("--arch", "v1model", str(V1MODEL_NIC)).arch == "v1model"
    assert parse(str(PNA_NIC)).arch is None


def test_program_detected_or_refused_at_start() -> None:
    program, p4info = _load_program(SwitchOptions(program=str(PNA_NIC)))
    assert program.arch == "pna" and p4info.pkg_info.arch == "pna"
    assert _load_program(SwitchOptions(program=str(PNA_NIC), arch="pna"))[0].arch == "pna"
    with pytest.raises(SwitchStartError, match="a pna program, but this switch runs "
                                               "--arch v1model"):
        _load_program(SwitchOptions(program=str(PNA_NIC), arch="v1model"))


def test_p4runtime_refuses_another_architecture() -> None:
    h = Harness()
    try:
        h.target.arch = "pna"  # as SwitchCore(arch="pna") for --arch pna
        c = h.controller()
        with pytest.raises(grpc.RpcError) as err:
            c.set_pipeline(V1MODEL_NIC)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "v1model program; this device runs pna programs" in err.value.details()
        c.set_pipeline(PNA_NIC)
        program, p4info, _ = h.target.pipeline()
        assert program.arch == "pna"
    finally:
        h.close()


def test_pna_packets_traced_at_debug_level(caplog: pytest.LogCaptureFixture) -> None:
    """`-L debug` traces a PNA program's packets as it does v1model's: parser, tables,
    the drop."""
    from behavioral_model.program import load_program
    from behavioral_model.switch.engine import Dataplane

    dataplane = Dataplane()
    dataplane.set_program(load_program(PNA_NIC))
    frame = bytes.fromhex("0000000a0001" "0000000b0001" "86dd") + bytes(60)
    with caplog.at_level("DEBUG", logger="behavioral_model"):
        assert dataplane.process(1, frame, 0.0) == []
    assert "parser: headers [ethernet, ipv6]" in caplog.text
    assert "dropped at the end of ingress" in caplog.text
    assert dataplane.stats.ingress_drops == 1
