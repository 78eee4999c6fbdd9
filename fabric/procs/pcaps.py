"""``--pcap DIR``, shared by ``up`` and ``run``: every device process records each of
its ports in ``DIR/<device>/`` (``NAME_in.pcap`` and ``NAME_out.pcap``; NAME is
``portN`` on the nn wiring, the interface on veths), for Wireshark with
tools/wireshark/mrc.lua (docs/wireshark.md)."""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from .wiring import FabricSetup, WiringError

__all__ = ["add_pcap_option", "with_pcaps"]


def add_pcap_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pcap", type=Path, metavar="DIR",
        help="record every frame each device receives and sends, per port, in "
             "DIR/<device>/portN_in.pcap and portN_out.pcap (on veths: the interface's "
             "name instead of portN); read them with tshark -X "
             "lua_script:tools/wireshark/mrc.lua (docs/wireshark.md). BMv2 devices "
             "record only on the veth wiring")


def with_pcaps(setup: FabricSetup, folder: Path | None) -> FabricSetup:
    """``setup`` with each device recording into ``folder/<device>`` (created here);
    ``setup`` itself without a folder. WiringError (one line) if a folder cannot be
    made or written, or a device cannot record on this wiring."""
    if folder is None:
        return setup
    folder = folder.resolve()
    # BMv2 records the ports given with -i only; on the nn wiring it has none
    silent = [d.name for d in setup.layout.devices if d.target == "bmv2" and not d.interfaces]
    if silent:
        raise WiringError(f"--pcap: BMv2 writes pcaps only for the interfaces it is given, "
                          f"and the nn wiring gives none to {', '.join(silent)}; use "
                          "--wiring veth (root) or --target bm")
    devices = []
    for device in setup.layout.devices:
        path = folder / device.name
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise WiringError(f"--pcap: cannot create {path}: "
                              f"{error.strerror or error}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise WiringError(f"--pcap: cannot write in {path}")
        devices.append(dataclasses.replace(device, pcap_dir=str(path)))
    layout = dataclasses.replace(setup.layout, devices=tuple(devices))
    return dataclasses.replace(setup, layout=layout)
