"""The smart NIC for PNA (p4src/pna/mrc_nic.p4) on our target: the NIC's STF files
run unchanged against it where the behaviour is the same on both architectures
(docs/architectures.md), and each file that cannot hold says why.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from behavioral_model.program import P4Program, load_program
from behavioral_model.stf.runner import run_stf_file

REPO = Path(__file__).resolve().parents[1]
PROGRAM = REPO / "p4src" / "pna" / "mrc_nic.p4"
STF_DIR = Path(__file__).parent / "stf_nic"
STF_FILES = sorted(STF_DIR.glob("mrc_nic_*.stf"))

# Files whose expectations need what PNA cannot express, and why.
V1MODEL_ONLY = {
    "receive": "PNA has no multicast, no egress and no truncate: a data packet is "
               "delivered without its SACK, and replies keep the arriving payload",
}
PNA_STF_FILES = [f for f in STF_FILES if f.stem.removeprefix("mrc_nic_") not in V1MODEL_ONLY]


def test_v1model_only_files_exist() -> None:
    """Every exception names a file that exists, so none hides a PNA run by a typo."""
    assert {f"mrc_nic_{name}.stf" for name in V1MODEL_ONLY} <= {f.name for f in STF_FILES}


# The macros each PNA compiler defines, on top of bm's own __TARGET_BMV2__:
# p4c-bm2-pna __TARGET_BMV2__, as bm (drops go to a port without an interface, BMv2
# pna_nic having no drop; Random; count(index)); p4c-dpdk none (byte counters given
# the frame length, no Random).
VARIANTS: dict[str, dict[str, str | None]] = {
    "pna-bmv2": {},
    "pna-dpdk": {"__TARGET_BMV2__": None},
}


@cache
def _program(variant: str = "pna-bmv2") -> P4Program:
    """The PNA NIC as bm reads it (p4c-bm2-pna's spelling), or as the compiler of
    another of ``VARIANTS`` sees it."""
    return load_program(PROGRAM, defines=VARIANTS[variant])


def test_pna_nic_is_a_pna_program() -> None:
    assert _program().arch == "pna"


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("stf", PNA_STF_FILES, ids=lambda p: p.stem)
def test_nic_stf_on_pna(stf: Path, variant: str) -> None:
    result = run_stf_file(_program(variant=variant), stf, strict_ports=True)
    assert result.passed, "\n".join(result.failures)


@pytest.mark.parametrize("stf", PNA_STF_FILES, ids=lambda p: p.stem)
def test_neutral_files_need_no_multicast(stf: Path) -> None:
    """The files meant for every architecture configure no multicast group or mirror
    session, so BMv2 pna_nic can run them as they are."""
    commands = [line.split()[0] for line in stf.read_text().splitlines() if line.strip()]
    assert not [c for c in commands if c.startswith(("mc_", "mirroring_"))]


def test_reply_without_multicast_delivers_only() -> None:
    """Where v1model multicasts deliver + SACK, the PNA NIC delivers alone: the
    receive file's expectations on the host port hold, those of the SACK copies not."""
    result = run_stf_file(_program(), STF_DIR / "mrc_nic_receive.stf", strict_ports=True)
    assert not result.passed
    assert not [f for f in result.failures if "port 0" in f], "\n".join(result.failures)
