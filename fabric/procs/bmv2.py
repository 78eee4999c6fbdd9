"""The command line of a BMv2 device: ``simple_switch_grpc`` with no program (the
controller pushes p4c's JSON), its ports, and its target options after ``--``.

Which options a build has is read from ``simple_switch_grpc --help``: BMv2 prints its
generic options and then, under "Target specific options", the target's own
(behavioral-model src/bm_sim/options_parse.cpp, ``OptionsParser::parse``: the target
parser's ``help_msg`` is printed only for the generic ``--help``; ``-- --help`` makes
``--help`` the positional JSON file and prints nothing useful).
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from protocol.constants import CPU_PORT

from .free_ports import free_tcp_port
from .layout import MAX_SOCKET_PATH, DeviceSpec

__all__ = ["BMV2_SWITCH", "bmv2_command", "bmv2_help"]

BMV2_SWITCH = "simple_switch_grpc"
HELP_TIMEOUT_S = 10.0

@cache
def bmv2_help() -> str:
    """What ``simple_switch_grpc --help`` says, target options included ("" if it
    cannot be asked)."""
    try:
        done = subprocess.run([BMV2_SWITCH, "--help"], capture_output=True, text=True,
                              timeout=HELP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def notifications_address(device: DeviceSpec) -> str | None:
    """``ipc://`` beside the device's log, if the path fits a Unix socket."""
    path = str(Path(device.log_file).resolve().with_name(f"{device.name}.bmv2-notify.ipc"))
    return f"ipc://{path}" if len(path) <= MAX_SOCKET_PATH else None


def bmv2_command(device: DeviceSpec, ports: list[str], log_level: str,
                 priority_queues: int) -> list[str]:
    """``ports``: the ``-i PORT@IFACE`` or ``--packet-in ADDR`` arguments."""
    help_text = bmv2_help()
    generic: list[str] = []
    # A build with Thrift starts its Thrift server on 9090 unless told otherwise, and
    # exits when the port is taken ("Thrift returned an exception when trying to bind
    # to port 9090", behavioral-model src/bm_runtime/server.cpp, ``serve``): every
    # device of a fabric needs a port of its own. Builds without Thrift refuse the
    # option, so it is given only where --help lists it.
    if "--thrift-port" in help_text:
        generic += ["--thrift-port", str(free_tcp_port("0.0.0.0"))]
    # Learning/ageing notifications are published on
    # ipc:///tmp/bmv2-<device-id>-notifications.ipc by default (options_parse.cpp),
    # which two fabrics (or a PTF run) with the same device ids would share.
    address = notifications_address(device)
    if "--notifications-addr" in help_text and address is not None:
        generic += ["--notifications-addr", address]
    # BMv2 writes pcaps for the -i interfaces only (with --packet-in its ports come and
    # go by nn messages, and port_add_ ignores the pcap files: bm_sim/dev_mgr_packet_in.cpp).
    # The value is optional (boost's implicit_value), so it has to be attached with "=":
    # "--pcap DIR" would make DIR the positional JSON file.
    if device.pcap_dir:
        generic.append(f"--pcap={device.pcap_dir}")
    options = ["--grpc-server-addr", device.grpc_address, "--cpu-port", str(CPU_PORT)]
    # With one queue per port (the default) simple_switch drops every packet whose
    # standard_metadata.priority is not below the number of queues ("Priority out of
    # range, dropping packet", targets/simple_switch/simple_switch.cpp,
    # ``SimpleSwitch::enqueue``), and both programs set priorities up to 7: the option
    # is needed wherever the build has it. A build without it must not get it: an
    # unknown target option makes BMv2 drop all of them, gRPC address and CPU port
    # included (bm_sim/target_parser.cpp, ``TargetParserBasicStore::parse`` stores
    # nothing when boost throws; OptionsParser::parse only prints "Target parser
    # returned an error" and goes on).
    if "priority-queues" in help_text:
        options += ["--priority-queues", str(priority_queues)]
    return [BMV2_SWITCH, "--no-p4", "--device-id", str(device.device_id), *ports,
            *generic, "--log-file", device.log_file, "--log-level", log_level,
            "--", *options]
