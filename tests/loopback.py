"""Helpers of the tests that start real processes on loopback: free ports and waiting for
something to happen without timing it."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

# Ports already handed out by this process: the kernel may give a port it just released
# to the next bind, and two devices on one address make a topology invalid.
_HANDED_OUT: set[int] = set()


def free_tcp_port() -> int:
    """A loopback port nothing listens on, never the same one twice in a test run."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; the timeout only keeps a broken run from
    hanging (it is not what the test checks)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)
