"""The NIC's PTF suite (ptf_tests/mrc_nic/) against the PNA NIC (p4src/pna/mrc_nic.p4)
on bm, unchanged, through ``scripts/run_ptf.sh --all`` (suite ``mrc_nic_pna``): every
test that holds on PNA passes; the others skip and say what PNA lacks (README,
"Architectures": no multicast, no truncate).
"""

from __future__ import annotations

import shutil

import pytest
from ptf_suites import run_all, suite_classes

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

NO_MULTICAST = "PNA NIC: no multicast in pna.p4"
NO_TRUNCATE = "PNA NIC: no truncate in pna.p4"
# Tests that cannot hold on PNA, with the start of their skip message.
SKIPPED_ON_PNA = {
    "nic_drops.NotLocalDropTest": NO_MULTICAST,
    "nic_receive.ReceiveInOrderTest": NO_MULTICAST,
    "nic_receive.ReceiveOutOfOrderTest": NO_MULTICAST,
    "nic_receive.DuplicateTest": NO_MULTICAST,
    "nic_receive.OutOfWindowTest": NO_TRUNCATE,
    "nic_receive.TrimmedNackTest": NO_MULTICAST,
    "nic_receive.CeSackTest": NO_MULTICAST,
    "nic_receive.SackCoalescingTest": NO_MULTICAST,
    "nic_receive.GapFillSackTest": NO_MULTICAST,
    "nic_receive.GapFillCoalescedTest": NO_MULTICAST,
    "nic_receive.AckReqSackTest": NO_MULTICAST,
    "nic_receive.ProbeAnswerTest": NO_MULTICAST,
    "nic_receive.WindowWordsTest": NO_MULTICAST,
}


def test_mrc_nic_ptf_suite_on_pna() -> None:
    run = run_all("bm")
    section = run.section("mrc_nic_pna")
    results = run.results("mrc_nic_pna")
    assert set(results) == suite_classes("mrc_nic"), section
    for name, status in results.items():
        if name in SKIPPED_ON_PNA:
            assert status.startswith(f"skipped '{SKIPPED_ON_PNA[name]}"), (name, status)
        else:
            assert status == "ok", f"{name}: {status}\n{section}"
    assert run.verdict("mrc_nic_pna") == "passed", section
