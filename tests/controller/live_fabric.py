"""Helpers for tests that run the controller against real device processes: topologies
on free loopback ports, the controller's command line as a subprocess, and waiting
without timing anything."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"


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


def small_on_free_ports(folder: Path) -> Path:
    """small.yaml with every gRPC address moved to a free port (other tests, or a
    fabric someone runs by hand, may hold the fixed ones)."""
    text = SMALL.read_text()
    for address in sorted(set(re.findall(r"127\.0\.0\.1:\d+", text))):
        text = text.replace(f'"{address}"', f'"127.0.0.1:{free_tcp_port()}"')
    path = folder / "small.yaml"
    path.write_text(text)
    return path


def mrc_ctl(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m controller ARGS`` from the repository root."""
    return subprocess.run([sys.executable, "-m", "controller", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          check=False)


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; the timeout only keeps a broken run from
    hanging (it is not what the test checks)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)
