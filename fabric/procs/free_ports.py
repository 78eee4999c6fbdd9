"""Free TCP ports for the processes this package starts (gRPC servers, BMv2's Thrift).

The kernel may hand a port it has just released to the next bind, so a port is never
handed out twice by one process: two devices on one address would make a bad topology,
and a second BMv2 on a taken Thrift port exits.

``MRC_FREE_PORTS=LOW-HIGH`` in the environment limits the search to that range. Processes
that choose ports at the same time (the test suite's workers) give each one a range of
its own: a port found free by binding and releasing it could otherwise be found by both.
"""

from __future__ import annotations

import os
import random
import re
import socket
import threading
from collections.abc import Iterable

__all__ = ["PORT_RANGE_VARIABLE", "free_tcp_port", "move_to_free_ports", "port_range",
           "reserve_tcp_ports"]

PORT_RANGE_VARIABLE = "MRC_FREE_PORTS"

_handed_out: set[int] = set()
_lock = threading.Lock()


def port_range() -> tuple[int, int] | None:
    """The (low, high) range ``MRC_FREE_PORTS`` names, or None (any port the kernel
    gives). A value that is not LOW-HIGH within 1..65535 is ignored."""
    low, _, high = os.environ.get(PORT_RANGE_VARIABLE, "").partition("-")
    if not (low.isdigit() and high.isdigit()):
        return None
    first, last = int(low), int(high)
    return (first, last) if 0 < first <= last <= 65535 else None


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def reserve_tcp_ports(addresses: Iterable[str]) -> None:
    """Never hand out the ports of ``addresses`` ("HOST:PORT"): a fabric's devices
    listen there soon, though nothing may listen yet when another port is chosen (a
    BMv2 device's Thrift port was once given a later device's gRPC port)."""
    with _lock:
        for address in addresses:
            port = address.rpartition(":")[2]
            if port.isdigit():
                _handed_out.add(int(port))


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at ``host`` now ("0.0.0.0": on every address), never
    one this process returned before; within ``MRC_FREE_PORTS`` when it is set."""
    with _lock:
        limits = port_range()
        if limits is not None:
            low, high = limits
            start = random.randrange(low, high + 1)
            for offset in range(high - low + 1):
                port = low + (start - low + offset) % (high - low + 1)
                if port not in _handed_out and _bindable(host, port):
                    _handed_out.add(port)
                    return port
            raise OSError(f"no free TCP port left in {PORT_RANGE_VARIABLE}={low}-{high}")
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.bind((host, 0))
                port = int(probe.getsockname()[1])
            if port not in _handed_out:
                _handed_out.add(port)
                return port


_LOOPBACK_ADDRESS = re.compile(r'"127\.0\.0\.1:(\d+)"')


def move_to_free_ports(text: str) -> str:
    """``text`` (a topology) with each quoted ``"127.0.0.1:PORT"`` moved to a free port,
    the same new port wherever one old port appears. One pass over the text: replacing
    address by address would move an address already given a new port again whenever
    that new port equals an old one still to be replaced (two devices, one address)."""
    moved: dict[str, int] = {}

    def new_address(match: re.Match[str]) -> str:
        if match.group(1) not in moved:
            moved[match.group(1)] = free_tcp_port()
        return f'"127.0.0.1:{moved[match.group(1)]}"'

    return _LOOPBACK_ADDRESS.sub(new_address, text)
