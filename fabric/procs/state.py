"""The state file of a running fabric (``WORKDIR/fabric.json``): who runs it, its
devices' pids and addresses, its sockets. ``up`` writes it, ``down``, ``status`` and
``link`` read it."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "fabric.json"
CONTROL_SOCKET = "panel.sock"

STARTING, UP, FAILED, STOPPED = "starting", "up", "failed", "stopped"


@dataclass
class DeviceRecord:
    name: str
    role: str
    device_id: int
    grpc_address: str
    packet_in: str
    host_socket: str | None
    pid: int | None
    log_file: str


@dataclass
class FabricState:
    topology: str
    name: str
    supervisor_pid: int
    control_socket: str
    status: str = STARTING
    message: str = ""  # why it failed
    devices: list[DeviceRecord] = field(default_factory=list)
    wiring: str = "nn"  # or "veth": then ``down`` also removes these
    namespace: str = ""
    interfaces: list[str] = field(default_factory=list)  # veth ends in the root namespace


def state_path(workdir: Path) -> Path:
    return workdir / STATE_FILE


def write_state(workdir: Path, state: FabricState) -> None:
    """Replace the state file at once, so a reader never sees half of it."""
    path = state_path(workdir)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(asdict(state), indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def read_state(workdir: Path) -> FabricState | None:
    """The state file's content; None if there is none (or it is not ours)."""
    try:
        data = json.loads(state_path(workdir).read_text(encoding="utf-8"))
        devices = [DeviceRecord(**d) for d in data.pop("devices")]
        return FabricState(**data, devices=devices)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def process_alive(pid: int | None, command_part: str = "") -> bool:
    """Whether ``pid`` runs and its command line contains ``command_part`` (which
    guards against a pid reused by another program since the state was written)."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] in "ZX":  # zombie or dead
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return command_part.encode() in cmdline.read()
    except (OSError, IndexError):
        return False
