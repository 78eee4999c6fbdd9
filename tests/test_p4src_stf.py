"""STF tests of the project's programs on our target, with strict ports (a packet leaving
on a port no line names is a failure):

- ``tests/stf_srv6/srv6_switch_*.stf`` against ``p4src/srv6_switch.p4``;
- ``tests/stf_nic/mrc_nic_*.stf`` against ``p4src/mrc_nic.p4``.

Expected packets were written from the RFCs, docs/mrc-protocol.md and docs/mrc-nic.md
(built with scapy), not taken from the target's output. Each file's header comment says
which behaviour it covers and which table entries it uses; congestion comes from
forced-threshold entries (threshold 0), since an STF run has no queues. Where the spec
leaves a field open, or the NIC's random rotation decides it, the nibbles are '*'.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

from behavioral_model.program import P4Program, load_program
from behavioral_model.stf.runner import run_stf_file

REPO = Path(__file__).resolve().parents[1]


class StfSuite(NamedTuple):
    program: Path
    folder: Path
    prefix: str
    behaviours: frozenset[str]   # what the program's issue asks the files to cover

    @property
    def files(self) -> list[Path]:
        return sorted(self.folder.glob(f"{self.prefix}*.stf"))


SUITES = {
    "srv6_switch": StfSuite(REPO / "p4src" / "srv6_switch.p4", REPO / "tests" / "stf_srv6",
                            "srv6_switch_", frozenset({"usid", "srh", "ecn", "trim", "cpu"})),
    "mrc_nic": StfSuite(REPO / "p4src" / "mrc_nic.p4", REPO / "tests" / "stf_nic", "mrc_nic_",
                        frozenset({"transmit", "receive", "sender", "drops"})),
}
CASES = [(name, stf) for name, suite in SUITES.items() for stf in suite.files]


@cache
def _program(path: Path) -> P4Program:
    return load_program(path)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_every_behaviour_has_a_file(name: str) -> None:
    suite = SUITES[name]
    assert suite.behaviours <= {stf.stem.removeprefix(suite.prefix) for stf in suite.files}


@pytest.mark.parametrize(("name", "stf"), CASES, ids=[stf.stem for _, stf in CASES])
def test_stf(name: str, stf: Path) -> None:
    result = run_stf_file(_program(SUITES[name].program), stf, strict_ports=True)
    assert result.passed, "\n" + result.report()
    assert result.counts.packets_expected == result.counts.packets_matched > 0
