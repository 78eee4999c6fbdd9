"""The suite's own set-up: on pytest-xdist workers (``make test TEST_WORKERS=2``) a test
file is one group, so its module fixtures (fabrics of processes) exist once."""

from __future__ import annotations

import os

import pytest


def test_a_file_runs_as_one_group_on_the_workers(request: pytest.FixtureRequest) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("checks pytest-xdist's groups: run with TEST_WORKERS=2")
    assert request.config.getvalue("loadgroup"), "make test runs --dist loadgroup"
    # pytest-xdist marks a grouped test by its node id's "@group" suffix, and schedules
    # by that id: without it the file's tests go to either worker.
    assert request.node.nodeid.endswith("@tests/test_suite_groups.py"), request.node.nodeid
