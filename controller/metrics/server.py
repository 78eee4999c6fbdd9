"""``/metrics`` over HTTP (prometheus-client's server, in a thread of its own) and the
``--metrics-port`` / ``--metrics-address`` options of the commands that offer it."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.registry import Collector

DEFAULT_ADDRESS = "127.0.0.1"


class MetricsError(Exception):
    """The metrics server cannot listen where it was asked to; the message says why."""


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535."""
    try:
        port = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1 to 65535)")
    return port


def add_metrics_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``what``: what the metrics describe, for the help text."""
    group = parser.add_argument_group("Prometheus metrics (docs/metrics.md)")
    group.add_argument("--metrics-port", type=port_number, metavar="N",
                       help=f"serve {what} at http://ADDRESS:N/metrics in the Prometheus "
                            "text format, read at each scrape (default: no metrics)")
    group.add_argument("--metrics-address", default=DEFAULT_ADDRESS, metavar="ADDRESS",
                       help="the address the metrics server listens on (default "
                            "%(default)s; 0.0.0.0 for a Prometheus on another host)")


def metrics_url(address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}/metrics"


class MetricsServer:
    """Serves ``collectors`` at ``http://address:port/metrics`` until ``close``.
    MetricsError if it cannot listen there (the port is taken, a bad address)."""

    def __init__(self, port: int, collectors: Iterable[Collector],
                 address: str = DEFAULT_ADDRESS) -> None:
        self.registry = CollectorRegistry()
        for collector in collectors:
            self.registry.register(collector)
        try:
            self._server, self._thread = start_http_server(port, address, self.registry)
        except OSError as error:  # socket.gaierror included: an address that resolves to nothing
            raise MetricsError(f"--metrics-port {port}: cannot listen on {address}:{port}: "
                               f"{error.strerror or error}") from None
        self.port = port
        self.address = address

    @property
    def url(self) -> str:
        return metrics_url(self.address, self.port)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_metrics(args: argparse.Namespace, collectors: Iterable[Collector]
                  ) -> MetricsServer | None:
    """The server ``--metrics-port`` asks for, or None without it."""
    if args.metrics_port is None:
        return None
    return MetricsServer(args.metrics_port, collectors, args.metrics_address)
