"""Shared by the fabric_procs tests: free loopback ports, short work folders (Unix socket
paths are limited to 107 bytes), and waiting for something without timing it."""

from __future__ import annotations

import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def free_tcp_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    """Poll ``condition`` until it holds; the timeout only keeps a broken run from
    hanging (it is not what the test checks)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fp-") as tmp:
        yield Path(tmp)
