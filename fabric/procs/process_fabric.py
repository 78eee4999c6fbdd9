"""A whole fabric of processes, in-process API: the device processes, the patch panel
between them, its control socket and the state file, started and stopped together.

    layout = layout_from_topology(load_topology("controller/examples/small.yaml"), workdir)
    with ProcessFabric(layout, workdir) as fabric:       # returns once all answer
        fabric.panel.set_link("nic0:1", up=False)
        ...                                              # P4Runtime to each device
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from .control import ControlServer
from .launcher import DeviceFailure, DeviceProcesses
from .layout import FabricLayout, check_socket_path
from .panel import PatchPanel
from .state import (
    CONTROL_SOCKET,
    FAILED,
    STARTING,
    STOPPED,
    UP,
    DeviceRecord,
    FabricState,
    write_state,
)
from .veth_plan import VethPlan
from .veth_wiring import VethWiring

__all__ = ["DeviceFailure", "ProcessFabric"]

READY_TIMEOUT_S = 60.0


class ProcessFabric:
    """Runs ``layout`` with its files in ``workdir``: wired by the patch panel, or by
    the veths of ``veth`` (``veth_layout``; root). ``failure`` says what went wrong
    once a device has died; ``changed`` is set whenever that may have happened."""

    def __init__(self, layout: FabricLayout, workdir: Path, *, seed: int = 0,
                 log_level: str = "info", topology: str = "",
                 veth: VethPlan | None = None) -> None:
        self.layout = layout
        self.workdir = workdir
        self.seed = seed
        self.topology = topology
        self.devices = DeviceProcesses(layout.devices, log_level=log_level)
        # the wiring: both offer link, set_link and snapshot
        self.panel: PatchPanel | VethWiring = (
            VethWiring(veth) if veth is not None
            else PatchPanel(layout, seed, on_device_lost=self._device_lost,
                            on_device_back=self._device_back))
        self.control_socket = str(workdir.resolve() / CONTROL_SOCKET)
        check_socket_path(self.control_socket)
        self.changed = threading.Event()
        self._lost: list[str] = []
        self._control: ControlServer | None = None
        self._state = FabricState(topology=topology, name=layout.name,
                                  supervisor_pid=os.getpid(),
                                  control_socket=self.control_socket)
        if veth is not None:
            self._state.wiring, self._state.namespace = "veth", veth.namespace
            self._state.interfaces = veth.root_interfaces()

    def start(self, ready_timeout_s: float = READY_TIMEOUT_S) -> None:
        """Start every device, wait until each answers on gRPC, cable them. On
        DeviceFailure (or any error) whatever was started is stopped again."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._write(STARTING)
        try:
            if isinstance(self.panel, VethWiring):
                self.panel.start()  # the devices open their interfaces as they start
            self.devices.start()
            self._write(STARTING)  # now with the pids, for ``down`` if we die here
            self.devices.wait_ready(ready_timeout_s)
            try:
                if isinstance(self.panel, PatchPanel):
                    self.panel.start()
            except OSError as error:
                gone = self.devices.exited()  # the likelier cause, if a device died
                raise DeviceFailure(self.devices.exit_message(gone) if gone else
                                    f"patch panel: {error}") from None
            self._control = ControlServer(self.control_socket, self.panel)
        except BaseException as error:
            self.stop(FAILED, str(error) or type(error).__name__)
            raise
        self._write(UP)

    def _device_lost(self, name: str) -> None:
        self._lost.append(name)
        self.changed.set()

    def _device_back(self, name: str) -> None:
        """The panel reached ``name`` again (restarted by someone on its address)."""
        if name in self._lost:
            self._lost.remove(name)
        self.changed.set()

    @property
    def failure(self) -> str | None:
        """Why the fabric is broken (a device exited or closed its socket), or None."""
        name = self.devices.exited() or (self._lost[0] if self._lost else None)
        if name is None:
            return None
        if self.devices.processes[name].poll() is None:
            return f"{name} closed its nn socket"
        return self.devices.exit_message(name)

    def stop(self, status: str = STOPPED, message: str = "") -> None:
        """Stop the panel and every device; remove the sockets (or the veths: after
        the devices, which would otherwise see their interfaces vanish); record
        ``status``."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if isinstance(self.panel, PatchPanel):
            self.panel.close()
        self.devices.stop()
        if isinstance(self.panel, VethWiring):
            self.panel.close()
        for path in [d.packet_in for d in self.layout.devices] + [
                h.address for h in self.layout.host_sockets]:
            _remove_socket(path.removeprefix("ipc://"))
        self._write(status, message)

    def _write(self, status: str, message: str = "") -> None:
        state = self._state
        state.status, state.message = status, message
        pids = self.devices.pids
        hosts = {h.port.device: h.address for h in self.layout.host_sockets}
        if isinstance(self.panel, VethWiring):
            plan = self.panel.plan
            hosts = {link.ends[0].rpartition(":")[0]:
                     f"{link.interfaces[1]} (netns {plan.namespace})"
                     for link in plan.links if link.to_host}
        state.devices = [DeviceRecord(d.name, d.role, d.device_id, d.grpc_address,
                                      d.packet_in, hosts.get(d.name), pids.get(d.name),
                                      d.log_file)
                         for d in self.layout.devices]
        write_state(self.workdir, state)

    def __enter__(self) -> ProcessFabric:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _remove_socket(path: str) -> None:
    """Remove a socket file a killed process left behind (only a socket)."""
    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass
