"""One ``python -m behavioral_model switch`` process per device: started together,
waited for until each answers on gRPC, and stopped with SIGTERM (SIGKILL after a grace
period)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from p4rt_client import wait_for_grpc
from protocol.constants import CPU_PORT

from .bmv2 import bmv2_command
from .free_ports import reserve_tcp_ports
from .layout import DeviceSpec

__all__ = ["DeviceFailure", "DeviceProcesses", "switch_command"]

PRIORITY_QUEUES = 8  # both programs set standard_metadata.priority up to 7
STOP_GRACE_S = 5.0


class DeviceFailure(RuntimeError):
    """A device process exited, or never answered on gRPC."""


def switch_command(device: DeviceSpec, python: str = sys.executable,
                   log_level: str = "info") -> list[str]:
    """The command line of ``device``: bm, or BMv2's simple_switch_grpc for a ``bmv2``
    device; no program (the controller pushes it)."""
    ports = [arg for port, iface in device.interfaces for arg in ("-i", f"{port}@{iface}")]
    ports = ports or ["--packet-in", device.packet_in]
    if device.target == "bmv2":
        return bmv2_command(device, ports, log_level, PRIORITY_QUEUES)
    return [python, "-m", "behavioral_model", "switch", "--no-p4",
            "--device-id", str(device.device_id),
            "--grpc-server-addr", device.grpc_address,
            *ports,
            "--cpu-port", str(CPU_PORT),
            "--priority-queues", str(PRIORITY_QUEUES),
            "--log-file", device.log_file, "--log-level", log_level,
            *(["--pcap", device.pcap_dir] if device.pcap_dir else [])]


def output_file(device: DeviceSpec) -> Path:
    """Where the device's standard output and error go (start-up errors land here)."""
    return Path(device.log_file).with_suffix(".out")


class DeviceProcesses:
    """The processes of ``devices``. ``start`` launches them all at once (they start
    in parallel), ``wait_ready`` waits for their gRPC servers, ``stop`` ends them."""

    def __init__(self, devices: Sequence[DeviceSpec], *, python: str = sys.executable,
                 log_level: str = "info") -> None:
        self.devices = tuple(devices)
        self.python = python
        self.log_level = log_level
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self) -> None:
        # Ports a device's command line chooses (BMv2's Thrift) must not be a gRPC port
        # of a device started after it.
        reserve_tcp_ports(device.grpc_address for device in self.devices)
        for device in self.devices:
            with open(output_file(device), "wb") as out:
                # A session of its own: Ctrl-C at a terminal reaches only the launcher,
                # which then stops the devices in order (a device that got the SIGINT
                # itself would exit first and look like a failure).
                self.processes[device.name] = subprocess.Popen(
                    switch_command(device, self.python, self.log_level),
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True)

    @property
    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, proc in self.processes.items()}

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Return once every device answers on gRPC; DeviceFailure if one exits first
        or the time runs out."""
        deadline = time.monotonic() + timeout_s
        for device in self.devices:
            proc = self.processes[device.name]
            try:
                wait_for_grpc(device.grpc_address, max(0.0, deadline - time.monotonic()),
                              alive=lambda p=proc: p.poll() is None)
                # bm binds its nn socket before it serves gRPC, so the socket of a device
                # that answers is there; if it is not, whoever answered is another
                # process (two devices given one address), and this one is failing
                socket_file = Path(device.packet_in.removeprefix("ipc://"))
                while device.packet_in.startswith("ipc://") and not socket_file.exists():
                    if proc.poll() is not None:
                        raise TimeoutError
                    if time.monotonic() > deadline:
                        raise TimeoutError
                    time.sleep(0.02)
            except TimeoutError:
                if proc.poll() is not None:
                    raise DeviceFailure(self.exit_message(device.name)) from None
                raise DeviceFailure(f"{device.name}: no answer on {device.grpc_address} "
                                    f"after {timeout_s:.0f} s (log: {device.log_file})"
                                    ) from None
        gone = self.exited()
        if gone is not None:
            raise DeviceFailure(self.exit_message(gone))

    def exited(self) -> str | None:
        """The name of a device whose process has exited, if any."""
        return next((name for name, proc in self.processes.items()
                     if proc.poll() is not None), None)

    def exit_message(self, name: str) -> str:
        """Why device ``name`` is gone: its exit code and the last line it printed."""
        device = next(d for d in self.devices if d.name == name)
        code = self.processes[name].poll()
        try:
            lines = output_file(device).read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        said = f": {lines[-1]}" if lines else ""
        return f"{name} exited with code {code}{said} (output: {output_file(device)})"

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """SIGTERM to every device, SIGKILL to those still running after ``grace_s``;
        returns when all have been reaped."""
        running = [p for p in self.processes.values() if p.poll() is None]
        for proc in running:
            _signal(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for proc in running:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal(proc.pid, signal.SIGKILL)
                proc.wait()


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
