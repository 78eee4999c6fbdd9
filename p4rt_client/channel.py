"""gRPC channels to a P4Runtime server: plain text, TLS or mutual TLS.

    tls = TlsConfig(root_ca="ca.pem")                               # TLS
    tls = TlsConfig(root_ca="ca.pem", cert="c.pem", key="c.key")    # mutual TLS
    channel = open_channel("switch1:9559", tls)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

__all__ = ["TlsConfig", "open_channel", "server_answers", "wait_for_grpc", "CHANNEL_OPTIONS"]

_MAX_MESSAGE = 256 * 1024 * 1024
_MAX_METADATA = 4 * 1024 * 1024
# A failed batch of many updates carries one p4.v1.Error per update in its trailers:
# more than gRPC's default 16 KiB metadata limit for a few hundred.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_send_message_length", _MAX_MESSAGE),
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
    ("grpc.max_metadata_size", _MAX_METADATA),
)


@dataclass(frozen=True)
class TlsConfig:
    """PEM files for a TLS channel. ``root_ca``: the CA that signed the server's
    certificate (None: the system's roots); ``cert`` and ``key``: this client's
    certificate and key, for servers that require client authentication;
    ``server_name``: the name to check the server's certificate against when it
    differs from the host in the address (e.g. connecting to an IP address)."""

    root_ca: str | Path | None = None
    cert: str | Path | None = None
    key: str | Path | None = None
    server_name: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        if (self.cert is None) != (self.key is None):
            raise ValueError("a client certificate needs its key, and a key its certificate")
        return grpc.ssl_channel_credentials(
            root_certificates=_read(self.root_ca, "root CA"),
            private_key=_read(self.key, "client key"),
            certificate_chain=_read(self.cert, "client certificate"))


def _read(path: str | Path | None, what: str) -> bytes | None:
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read the {what} {path}: {error.strerror}") from None


def open_channel(address: str, tls: TlsConfig | None = None,
                 options: Sequence[tuple[str, int | str]] = CHANNEL_OPTIONS) -> grpc.Channel:
    """A channel to ``address`` (HOST:PORT), plain text unless ``tls`` is given."""
    opts = list(options)
    if tls is None:
        return grpc.insecure_channel(address, options=opts)
    if tls.server_name:
        opts.append(("grpc.ssl_target_name_override", tls.server_name))
    return grpc.secure_channel(address, tls.credentials(), options=opts)


def server_answers(channel: grpc.Channel, timeout: float) -> bool:
    """Whether a gRPC server answers on ``channel`` within ``timeout`` s, waited for in
    the calling thread: a P4Runtime Capabilities call with ``wait_for_ready`` (any
    answer, even an error status such as UNIMPLEMENTED, is a server).

    Not ``grpc.channel_ready_future``: the connectivity-polling thread it starts
    outlives the future (``cancel()`` does not stop it) and raises ValueError in the
    background ("Cannot monitor channel state: Channel closed!", grpc issue 18995)
    when the channel is closed before that thread polls again, which a loaded machine
    makes likely: its traceback then lands in the middle of whatever the process
    prints (a PTF verdict line, for one)."""
    try:
        p4runtime_pb2_grpc.P4RuntimeStub(channel).Capabilities(
            p4runtime_pb2.CapabilitiesRequest(), timeout=timeout, wait_for_ready=True)
    except grpc.RpcError as error:
        return error.code() not in (grpc.StatusCode.UNAVAILABLE,
                                    grpc.StatusCode.DEADLINE_EXCEEDED)
    return True


def wait_for_grpc(address: str, timeout: float = 30.0,
                  alive: Callable[[], bool] | None = None,
                  tls: TlsConfig | None = None) -> None:
    """Block until a gRPC server answers at ``address`` (no fixed sleeps: the channel's
    connectivity is polled); TimeoutError after ``timeout`` s, or as soon as
    ``alive()`` returns False (e.g. the server process died)."""
    deadline = time.monotonic() + timeout
    with open_channel(address, tls) as channel:
        while not server_answers(channel, 0.1):
            if alive is not None and not alive():
                raise TimeoutError(f"the server at {address} exited")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no gRPC server at {address} after {timeout:.0f} s")
