"""Fig 16/17: ring all-reduce and all-to-all, MRC against RoCE (1 and 16 QPs),
with and without loss at NIC ingress.

`python -m fabric paper --only fig16-17 --quick`; the claims, their bounds (our
tolerances) and the expected failures are in fabric/paper/experiments.py."""

from __future__ import annotations

import pytest
from conftest import assert_claim, paper

from fabric.paper.experiments import EXPERIMENTS

NAME = "fig16-17"
CLAIMS = next(e.claims for e in EXPERIMENTS if e.name == NAME)


@pytest.mark.parametrize("index", range(len(CLAIMS)), ids=[c.what for c in CLAIMS])
def test_claim(index: int) -> None:
    assert_claim(NAME, index)


def test_report_and_figure() -> None:
    result = paper(NAME)
    assert result.report["experiment"] == NAME
    assert [c["claim"] for c in result.report["claims"]] == [c.what for c in CLAIMS]
    assert all(s["checks"][0]["ok"] for s in result.report["scenarios"])  # intact
    with open(result.report["figure_file"], "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
