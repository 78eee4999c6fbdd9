"""Fixtures shared across the test folders. ``harness``: a P4Runtime server on a
LocalTarget and a client channel to it (test_p4runtime_helpers.Harness), closed after
the test. Every test gets bm's logger back as it found it."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest
from test_p4runtime_helpers import Harness

from fabric.procs.free_ports import PORT_RANGE_VARIABLE

# Each pytest-xdist worker (and every process it starts) finds free loopback ports in a
# range of its own, below the kernel's ephemeral ports (32768-): two workers probing for
# a free port at the same moment could otherwise both be given it.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw") and _WORKER[2:].isdigit():
    _LOW = 20000 + 3000 * (int(_WORKER[2:]) % 4)
    os.environ.setdefault(PORT_RANGE_VARIABLE, f"{_LOW}-{_LOW + 2999}")


@pytest.fixture(autouse=True)
def _bm_logger_restored() -> Iterator[None]:
    """A test that runs the switch's command line in this process configures the
    "behavioral_model" logger as the switch process does (its own handler, no
    propagation): later tests' ``caplog`` would then see nothing of bm."""
    logger = logging.getLogger("behavioral_model")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)
    logger.propagate = propagate


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    try:
        yield h
    finally:
        h.close()


# Files that read the session's one ``run_ptf.sh --all`` run on our target
# (tests/ptf_suites.py, cached per process): on one worker it runs once.
PTF_ALL_TESTS = ("tests/test_ptf_mrc_nic.py", "tests/test_ptf_mrc_nic_pna.py",
                 "tests/test_ptf_smoke.py", "tests/test_ptf_srv6_switch.py",
                 "tests/test_run_ptf_all.py")


# The two files that run a controller against a live process fabric: one group.
LIVE_CONTROLLER_TESTS = ("tests/controller/test_controller_live.py",
                         "tests/controller/test_metrics_live.py")


# tryfirst: pytest-xdist's worker reads the xdist_group marks in its own
# pytest_collection_modifyitems, so they must be there before it runs. A group that is
# not applied splits a file's tests, and its module fixture (a fabric of processes), between
# the two workers (requirements.txt: why pytest 8).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test` runs the suite on two pytest-xdist workers with ``--dist loadgroup``.
    A group is a test file: its module fixtures, ``functools.cache``d runs and helper
    processes then stay on one worker. Files that start fabrics of processes run beside
    each other: each worker finds ports in a range of its own (above). The paper's
    experiments are a group each, so that the slowest file is shared between the
    workers."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = item.nodeid.split("::")[0]
        if group in PTF_ALL_TESTS:
            group = "ptf-all"
        elif group in LIVE_CONTROLLER_TESTS:
            group = "live-controller"
        experiment = _paper_experiment(item)
        if experiment:
            group = f"{group}:{experiment}"
        item.add_marker(pytest.mark.xdist_group(group))


def _paper_experiment(item: pytest.Item) -> str:
    """The paper experiment a test of tests/fabric_sim/test_paper.py runs, or ''."""
    callspec = getattr(item, "callspec", None)
    if item.path.name != "test_paper.py" or callspec is None:
        return ""
    params = callspec.params
    if "name" in params:
        return str(params["name"])
    experiment = params.get("experiment")
    return str(getattr(experiment, "name", ""))
