"""The patch panel's control socket (``WORKDIR/panel.sock``): one JSON request line per
connection, one JSON reply line. The ``link`` and ``status`` commands use it to reach
the panel of a fabric running in another process.

Requests: ``{"op": "snapshot"}``, ``{"op": "link", "port": "dev:port", "up": bool,
"loss": float}`` (``up`` and ``loss`` optional). Replies: ``{"ok": true, ...}`` or
``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import threading
from typing import Any

from .netns import NetnsError
from .panel import PatchPanel
from .veth_wiring import VethWiring

__all__ = ["ControlError", "ControlServer", "request"]

REQUEST_TIMEOUT_S = 10.0
MAX_LINE = 1 << 16


class ControlError(Exception):
    """No panel answers on the control socket, or it refused the request."""


def _answer(panel: PatchPanel | VethWiring, req: Any) -> dict[str, Any]:
    if not isinstance(req, dict):
        return {"ok": False, "error": "a request is a JSON object"}
    op = req.get("op")
    if op == "snapshot":
        return {"ok": True, "snapshot": panel.snapshot()}
    if op == "link":
        up, loss = req.get("up"), req.get("loss")
        if up is not None and not isinstance(up, bool):
            return {"ok": False, "error": "up is true or false"}
        if loss is not None and (isinstance(loss, bool) or not isinstance(loss, (int, float))):
            return {"ok": False, "error": "loss is a number"}
        try:
            link = panel.set_link(str(req.get("port")), up=up, loss=loss)
        except (KeyError, ValueError, NetnsError) as error:
            return {"ok": False, "error": str(error).strip("'\"")}
        return {"ok": True, "link": link.as_dict()}
    return {"ok": False, "error": f"unknown op {op!r}"}


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        try:
            req = json.loads(self.rfile.readline(MAX_LINE))
        except ValueError:
            reply: dict[str, Any] = {"ok": False, "error": "not a JSON line"}
        else:
            reply = _answer(self.server.panel, req)
        self.wfile.write(json.dumps(reply).encode() + b"\n")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, panel: PatchPanel | VethWiring) -> None:
        self.panel = panel
        super().__init__(path, _Handler)


class ControlServer:
    """Serves ``panel`` on the Unix socket ``path`` from a thread of its own."""

    def __init__(self, path: str, panel: PatchPanel | VethWiring) -> None:
        self.path = path
        if os.path.exists(path):
            os.unlink(path)  # the state file said no fabric runs here any more
        self._server = _Server(path, panel)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="panel-control", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def request(path: str, req: dict[str, Any]) -> dict[str, Any]:
    """Send ``req`` to the panel at ``path``; its reply (``ok`` true). ControlError
    when nothing answers or the panel refused."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(REQUEST_TIMEOUT_S)
            sock.connect(path)
            sock.sendall(json.dumps(req).encode() + b"\n")
            with sock.makefile("rb") as replies:
                line = replies.readline(MAX_LINE * 16)
    except OSError as error:
        raise ControlError(f"no patch panel answers on {path}: "
                           f"{error.strerror or error}") from None
    try:
        reply = json.loads(line)
    except ValueError:
        raise ControlError(f"{path}: the panel's reply is not JSON") from None
    if not reply.get("ok"):
        raise ControlError(str(reply.get("error", "refused")))
    return reply
