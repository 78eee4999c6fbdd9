"""Helpers of the tests that start real processes on loopback: free ports and waiting for
something to happen without timing it."""

from __future__ import annotations

import time
from collections.abc import Callable

from fabric.procs.free_ports import free_tcp_port

__all__ = ["free_tcp_port", "wait_until"]


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; the timeout only keeps a broken run from
    hanging (it is not what the test checks)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)
