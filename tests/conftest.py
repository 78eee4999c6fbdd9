"""Fixtures shared across the test folders. ``harness``: a P4Runtime server on a
LocalTarget and a client channel to it (test_p4runtime_helpers.Harness), closed after
the test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_p4runtime_helpers import Harness


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    try:
        yield h
    finally:
        h.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test` runs the suite on two pytest-xdist workers with ``--dist loadgroup``.
    A group is a test file: its module fixtures, ``functools.cache``d runs and helper
    processes then stay on one worker. The paper's experiments are the exception, a
    group each, so that the slowest file is shared between the workers."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = item.nodeid.split("::")[0]
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
