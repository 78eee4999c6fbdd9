"""A scenario's failures on a simulated network, at their virtual times: cables down,
up, flapping or lossy, loss at NIC ingress, switches cut off or rebooted (the faults
themselves are ``fabric.sim.faults`` and the cables' own state). Returns the log of
what happened when: one entry per cable or device acted on.

What a NIC learns of its own ports reaches the controller as it would in a deployment:
``fabric.sim.ports`` detects a NIC port's link going down or coming back (whatever
took it down: the cable, its T0 switch) ``detect_us`` after the fact, and the
controller's ``Reactor.set_planes_down`` writes the NIC's ``nic_planes`` entry and
sends the port-status updates to its peers (docs/mrc-nic.md 3.1), which enter the NIC
at that virtual time. These reports are in the controller's log (``planes-down``),
not in the failures' log."""

from __future__ import annotations

from typing import Any

from .control import FabricController
from .scenario import Failure, Scenario
from .sim.events import call_later
from .sim.faults import set_nic_ingress_loss, set_switch_up
from .sim.network import Network
from .sim.ports import LINK_DETECT_US, PortStatusMonitor

__all__ = ["schedule_failures"]


def report_port_status(network: Network, controller: FabricController,
                       detect_us: float = LINK_DETECT_US) -> PortStatusMonitor:
    """From now on, a NIC port that goes down or comes back is told to the controller
    (plane failover) ``detect_us`` after it happens."""

    def report(nic: str, planes: frozenset[int]) -> None:
        reactor = controller.reactor
        assert reactor is not None, "the controller programs the fabric before traffic"
        # Virtual time stands still while the controller writes the entry and sends the
        # updates; they enter the NIC's CPU port now, as the probes do at each tick.
        sent = reactor.set_planes_down(nic, planes)
        if sent:
            network.await_packet_outs({nic: sent})
        network.inject_packet_outs()

    return PortStatusMonitor(network, report, detect_us)


def schedule_failures(scenario: Scenario, network: Network,
                      controller: FabricController | None) -> list[dict[str, Any]]:
    """Without a controller (a switch process of a partitioned run,
    ``fabric.sim.partition``) only the devices' and cables' part is done: the
    process with the controller reports and reprograms."""
    env = network.env
    log: list[dict[str, Any]] = []
    if controller is not None:
        report_port_status(network, controller)

    def note(action: str, target: str | None, **extra: Any) -> None:
        log.append({"at_us": env.now, "action": action, "target": target, **extra})

    def cable_state(end: str, up: bool) -> None:
        network.cable(end).up = up
        note("up" if up else "down", end)

    def loss(end: str, rate: float) -> None:
        network.cable(end).loss = rate
        note("loss", end, rate=rate)

    def switch(device: str, up: bool) -> None:
        set_switch_up(network, device, up)
        note("switch-up" if up else "switch-down", device)

    def nic_loss(failure: Failure) -> None:
        set_nic_ingress_loss(network, failure.rate, failure.nics)
        note("nic-loss", ",".join(failure.nics) if failure.nics else "every NIC",
             rate=failure.rate)

    def reboot(device: str, down_us: float) -> None:
        cables = network.cables_of(device)
        network.devices[device].target.reboot()
        for cable in cables:
            cable.up = False
        note("reboot", device)
        call_later(env, down_us, rebooted, device, cables)

    def rebooted(device: str, cables: list) -> None:
        # The controller finds the device back and programs it again; virtual time
        # stands still while it does (a blocking call from the simulation thread).
        if controller is not None:
            controller.program_device(device)
        for cable in cables:
            cable.up = True
        note("reprogrammed", device)

    for failure in scenario.failures:
        at = failure.at_us
        action = failure.action
        if action == "reboot":
            call_later(env, at, reboot, failure.device, failure.down_us)
        elif action in ("switch-down", "switch-up"):
            call_later(env, at, switch, failure.device, action == "switch-up")
        elif action == "nic-loss":
            call_later(env, at, nic_loss, failure)
        elif action == "flap":
            for n in range(failure.times):
                start = at + n * failure.period_us
                for end in failure.cables():
                    call_later(env, start, cable_state, end, False)
                    call_later(env, start + failure.down_us, cable_state, end, True)
        else:
            for k, end in enumerate(failure.cables()):
                when = at + k * failure.every_us
                if action == "loss":
                    call_later(env, when, loss, end, failure.rate)
                else:
                    call_later(env, when, cable_state, end, action == "up")
    return log
