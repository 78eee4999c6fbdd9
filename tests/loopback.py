"""Helpers of the tests that start real processes on loopback: free ports and waiting for
something to happen without timing it."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from fabric.procs.free_ports import free_tcp_port, port_range

__all__ = ["free_port_base", "free_tcp_port", "wait_until"]


def free_port_base(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports (a Clos topology numbers
    its devices' ports from a base), within this worker's ``MRC_FREE_PORTS`` range and
    otherwise below the kernel's ephemeral ports (32768-), which any socket may be
    given meanwhile."""
    low, high = port_range() or (21000, 32000)
    for base in range(low, high - count, 97):
        socks = []
        try:
            for port in range(base, base + count):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise AssertionError("no free ports")


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; the timeout only keeps a broken run from
    hanging (it is not what the test checks)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)
