"""Free TCP ports for the processes this package starts (gRPC servers, BMv2's Thrift).

The kernel may hand a port it has just released to the next bind, so a port is never
handed out twice by one process: two devices on one address would make a bad topology,
and a second BMv2 on a taken Thrift port exits.
"""

from __future__ import annotations

import socket
import threading

__all__ = ["free_tcp_port"]

_handed_out: set[int] = set()
_lock = threading.Lock()


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at ``host`` now ("0.0.0.0": on every address), never
    one this process returned before."""
    with _lock:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.bind((host, 0))
                port = int(probe.getsockname()[1])
            if port not in _handed_out:
                _handed_out.add(port)
                return port
