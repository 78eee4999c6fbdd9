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
