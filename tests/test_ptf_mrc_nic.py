"""The PTF suite of the smart NIC (ptf_tests/mrc_nic/) on bm, through
``scripts/run_ptf.sh --all`` (the NIC suite runs there with ``--priority-queues 8``:
the NIC sends SACK/NACKs at priority 7, docs/mrc-nic.md section 1). Every test class
must run and pass, none skipped.
"""

from __future__ import annotations

import shutil

import pytest
from ptf_suites import run_all, suite_classes

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# One class per behaviour of p4src/mrc_nic.p4 (issues 8 and 16), by module.
TEST_CLASSES = {
    "nic_transmit.SprayTest", "nic_transmit.PartialRotationTest",
    "nic_transmit.TwoQpPsnTest",
    "nic_receive.ReceiveInOrderTest", "nic_receive.ReceiveOutOfOrderTest",
    "nic_receive.DuplicateTest", "nic_receive.OutOfWindowTest",
    "nic_receive.TrimmedNackTest", "nic_receive.CeSackTest",
    "nic_receive.SackCoalescingTest", "nic_receive.GapFillSackTest",
    "nic_receive.GapFillCoalescedTest",
    "nic_receive.AckReqSackTest",
    "nic_receive.ProbeAnswerTest", "nic_receive.ProbeNamedPsnTest",
    "nic_receive.WindowWordsTest",
    "nic_sender.SkipOnceTest", "nic_sender.TrimNackSenderTest",
    "nic_sender.AlwaysSkipRetireTest", "nic_sender.HostLossReportTest",
    "nic_sender.FloorTest", "nic_sender.ProbeRestoreTest",
    "nic_sender.HostProbeOnRetiredEvTest", "nic_sender.SparePoolTest",
    "nic_sender.SearchFallbackTest", "nic_sender.SearchPastSevenDeadTest",
    "nic_control.PacketOutTransmitTest", "nic_control.PacketOutPortTest",
    "nic_drops.UnknownQpDropTest", "nic_drops.TruncatedDropTest",
    "nic_drops.BadOpcodeDropTest", "nic_drops.NotLocalDropTest",
    "nic_drops.NotMrcDropTest", "nic_drops.BadPacketOutTest", "nic_drops.NoEvDropTest",
    "nic_drops.NoPathDropTest",
    "nic_failover.RetransmitOtherEvTest", "nic_failover.LossReportBlamesLatestTransmissionTest",
    "nic_failover.PsnEvWholeWindowTest", "nic_failover.LocalPlaneDownTest",
    "nic_failover.PlaneDownFirstUseTest", "nic_failover.PortStatusSendTest",
    "nic_failover.PortStatusReceiveTest",
}


def test_suite_lists_every_behaviour() -> None:
    assert suite_classes("mrc_nic") == TEST_CLASSES


def test_mrc_nic_ptf_suite_on_bm() -> None:
    run = run_all("bm")
    section = run.section("mrc_nic")
    results = run.results("mrc_nic")
    assert set(results) == TEST_CLASSES, section
    failed = {name: status for name, status in results.items() if status != "ok"}
    assert not failed, f"{failed}\n{section}"
    assert f"Ran {len(TEST_CLASSES)} tests in " in section, section
    assert "skipped" not in section.lower(), section
    assert "all tests passed on bm" in section, section
    assert run.verdict("mrc_nic") == "passed", run.output[-3000:]
