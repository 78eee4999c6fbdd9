"""TLS and mutual TLS on bm's P4Runtime server (simple_switch_grpc's
``--grpc-server-ssl`` options), through p4rt_client: certificates made in the test,
accepted and refused clients, and one-line errors for unusable certificate files."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tls_certs import CertificateAuthority, Issued

from behavioral_model.cli import main
from behavioral_model.p4runtime.local_target import LocalTarget
from behavioral_model.p4runtime.server import P4RuntimeServer
from behavioral_model.p4runtime.tls import ServerTls, TlsConfigError
from p4rt_client import P4RuntimeSession, P4RuntimeSessionError, TlsConfig

ROOT = Path(__file__).resolve().parent.parent
# A refused handshake shows as a server that never becomes ready: how long to wait.
REFUSED_WAIT_S = 1.0


@dataclass(frozen=True)
class Pki:
    ca: CertificateAuthority
    server: Issued
    client: Issued
    stranger: Issued  # a client certificate from another CA


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    ca = CertificateAuthority(folder, "ca")
    other = CertificateAuthority(folder, "other-ca")
    return Pki(ca, ca.issue("switch", server=True), ca.issue("controller", server=False),
               other.issue("intruder", server=False))


def _server(tls: ServerTls) -> Iterator[str]:
    server = P4RuntimeServer(LocalTarget(device_id=0), "127.0.0.1:0", tls=tls)
    server.start()
    try:
        yield f"localhost:{server.port}"
    finally:
        server.stop(grace=0)


@pytest.fixture
def tls_server(pki: Pki) -> Iterator[str]:
    yield from _server(ServerTls(pki.server.cert, pki.server.key))


@pytest.fixture
def mtls_server(pki: Pki) -> Iterator[str]:
    yield from _server(ServerTls(pki.server.cert, pki.server.key, pki.ca.cert,
                                 client_auth=True))


def _connect(address: str, tls: TlsConfig | None, timeout: float = 10.0) -> None:
    session = P4RuntimeSession(address, 0, (0, 1), tls=tls)
    try:
        reply = session.connect(timeout=timeout)
        assert session.primary and reply.device_id == 0
        assert session.get_pipeline_cookie() is None  # an RPC besides the stream
    finally:
        session.close()


def test_tls(tls_server: str, pki: Pki) -> None:
    _connect(tls_server, TlsConfig(root_ca=pki.ca.cert))


def test_tls_server_name_override(tls_server: str, pki: Pki) -> None:
    address = tls_server.replace("localhost", "127.0.0.1")
    _connect(address, TlsConfig(root_ca=pki.ca.cert, server_name="localhost"))


def test_mutual_tls(mtls_server: str, pki: Pki) -> None:
    _connect(mtls_server, TlsConfig(pki.ca.cert, pki.client.cert, pki.client.key))


@pytest.mark.parametrize("client", ["no certificate", "another CA's certificate"])
def test_mutual_tls_refuses(mtls_server: str, pki: Pki, client: str) -> None:
    tls = (TlsConfig(pki.ca.cert) if client == "no certificate" else
           TlsConfig(pki.ca.cert, pki.stranger.cert, pki.stranger.key))
    with pytest.raises(P4RuntimeSessionError):
        _connect(mtls_server, tls, timeout=REFUSED_WAIT_S)


def test_plain_text_client_refused(tls_server: str) -> None:
    with pytest.raises(P4RuntimeSessionError, match="no P4Runtime server answers"):
        _connect(tls_server, None, timeout=REFUSED_WAIT_S)


def test_tls_client_refused_by_another_ca(tls_server: str, pki: Pki) -> None:
    with pytest.raises(P4RuntimeSessionError):
        _connect(tls_server, TlsConfig(root_ca=pki.stranger.cert), timeout=REFUSED_WAIT_S)


def test_server_tls_errors(pki: Pki, tmp_path: Path) -> None:
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello")
    for tls, message in (
            (ServerTls(tmp_path / "none.pem", pki.server.key), "--grpc-server-cert .*: no such"),
            (ServerTls(pki.server.cert, not_pem), "--grpc-server-key .*: not a PEM file"),
            (ServerTls(pki.server.cert, pki.server.key, client_auth=True),
             "needs --grpc-server-cacert")):
        with pytest.raises(TlsConfigError, match=message):
            tls.credentials()


def test_switch_cli_tls_errors(pki: Pki, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    base = ["switch", "--no-p4", "--grpc-server-addr", "127.0.0.1:0", "--grpc-server-ssl"]
    cases = (
        ([], "--grpc-server-ssl needs --grpc-server-cert and --grpc-server-key"),
        (["--grpc-server-cert", str(tmp_path / "missing.pem"), "--grpc-server-key",
          str(pki.server.key)], "missing.pem: no such file"),
        (["--grpc-server-cert", str(pki.server.cert), "--grpc-server-key",
          str(tmp_path)], "cannot read it"),
    )
    for extra, message in cases:
        assert main(base + extra) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_switch_process_with_mutual_tls(pki: Pki) -> None:
    """``python -m behavioral_model switch`` with simple_switch_grpc's TLS options."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "behavioral_model", "switch", "--no-p4",
         "--grpc-server-addr", f"127.0.0.1:{port}", "--grpc-server-ssl",
         "--grpc-server-cert", str(pki.server.cert), "--grpc-server-key", str(pki.server.key),
         "--grpc-server-cacert", str(pki.ca.cert), "--grpc-server-with-client-auth",
         "-L", "off"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        assert "ready" in ready and "(mutual TLS)" in ready, ready
        _connect(f"localhost:{port}", TlsConfig(pki.ca.cert, pki.client.cert, pki.client.key))
        with pytest.raises(P4RuntimeSessionError):
            _connect(f"localhost:{port}", TlsConfig(pki.ca.cert), timeout=REFUSED_WAIT_S)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_runtime_cli_over_mutual_tls(mtls_server: str, pki: Pki, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The ``cli`` command reaches a TLS server; this one has no pipeline, which the
    CLI reports once it is connected."""
    commands = tmp_path / "commands.txt"
    commands.write_text("show_tables\n")
    assert main(["cli", "--grpc-addr", mtls_server, "--grpc-cacert", str(pki.ca.cert),
                 "--grpc-cert", str(pki.client.cert), "--grpc-key", str(pki.client.key),
                 str(commands)]) == 1
    assert "the device has no pipeline" in capsys.readouterr().err
