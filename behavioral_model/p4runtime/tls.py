"""TLS for the P4Runtime server, with simple_switch_grpc's semantics: the server
presents ``cert`` (with ``key``); with ``client_auth`` it requires a client
certificate and verifies it against ``cacert``, otherwise it asks for none."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc

__all__ = ["ServerTls", "TlsConfigError"]


class TlsConfigError(ValueError):
    """A missing, unreadable or non-PEM certificate or key, or options that do not
    go together; the message names the file and the option."""


def _read_pem(path: Path, option: str) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TlsConfigError(f"{option} {path}: no such file") from None
    except OSError as error:
        raise TlsConfigError(f"{option} {path}: cannot read it ({error.strerror})") from None
    if b"-----BEGIN " not in data:
        raise TlsConfigError(f"{option} {path}: not a PEM file")
    return data


@dataclass(frozen=True)
class ServerTls:
    cert: Path
    key: Path
    cacert: Path | None = None
    client_auth: bool = False

    def credentials(self) -> grpc.ServerCredentials:
        """The gRPC server credentials; TlsConfigError if a file is unusable (read
        here, so that errors show at start-up, not at the first handshake)."""
        if self.client_auth and self.cacert is None:
            raise TlsConfigError("--grpc-server-with-client-auth needs "
                                 "--grpc-server-cacert (the CA client certificates are "
                                 "verified against)")
        cert = _read_pem(self.cert, "--grpc-server-cert")
        key = _read_pem(self.key, "--grpc-server-key")
        root = (_read_pem(self.cacert, "--grpc-server-cacert")
                if self.cacert is not None else None)
        return grpc.ssl_server_credentials([(key, cert)], root_certificates=root,
                                           require_client_auth=self.client_auth)
