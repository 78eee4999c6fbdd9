"""The command line of a BMv2 device: ``simple_switch_grpc`` with no program (the
controller pushes p4c's JSON), its ports, and its target options after ``--``."""

from __future__ import annotations

import subprocess
from functools import cache

from protocol.constants import CPU_PORT

from .layout import DeviceSpec

__all__ = ["BMV2_SWITCH", "bmv2_command"]

BMV2_SWITCH = "simple_switch_grpc"
HELP_TIMEOUT_S = 10.0


@cache
def bmv2_target_help() -> str:
    """What ``simple_switch_grpc -- --help`` says about its target options ("" if it
    cannot be asked)."""
    try:
        done = subprocess.run([BMV2_SWITCH, "--", "--help"], capture_output=True, text=True,
                              timeout=HELP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def bmv2_command(device: DeviceSpec, ports: list[str], log_level: str,
                 priority_queues: int) -> list[str]:
    """``ports``: the ``-i PORT@IFACE`` or ``--packet-in ADDR`` arguments."""
    options = ["--grpc-server-addr", device.grpc_address, "--cpu-port", str(CPU_PORT)]
    # Only builds of simple_switch_grpc that have the option accept it; the others
    # refuse to start on an unknown option, and run with one queue per port.
    if "priority-queues" in bmv2_target_help():
        options += ["--priority-queues", str(priority_queues)]
    return [BMV2_SWITCH, "--no-p4", "--device-id", str(device.device_id), *ports,
            "--log-file", device.log_file, "--log-level", log_level, "--", *options]
