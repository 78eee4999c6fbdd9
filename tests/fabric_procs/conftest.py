"""Shared by the fabric_procs tests: short work folders (Unix socket paths are limited to
107 bytes). Free loopback ports and waiting: tests/loopback.py."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fp-") as tmp:
        yield Path(tmp)
