"""Faults beyond a cable's own state (``Cable.up``, ``Cable.loss``): loss at a NIC's
ingress on all its planes (the paper's inline P4 dropper in front of the NIC), and a
whole switch cut off (every cable of it down, its state kept).

A NIC dropper sits on the channels that deliver frames to the NIC's fabric ports: it
drops each arriving frame with the given probability (data, SACKs and NACKs alike),
from a generator seeded by the run's seed and the NIC's name, and counts the drop on
the cable (``dropped_loss``), so drops show with the cables' other losses.
"""

from __future__ import annotations

import random
from zlib import crc32

from .link import Cable, Channel, Receive
from .network import Network

__all__ = ["NicDropper", "set_nic_ingress_loss", "set_switch_up"]


class NicDropper:
    """Wraps the receive of a channel toward a NIC port."""

    def __init__(self, cable: Cable, receive: Receive, rng: random.Random) -> None:
        self.cable = cable
        self.receive = receive
        self.rng = rng
        self.rate = 0.0

    def __call__(self, port: int, frame: bytes) -> None:
        if self.rate and self.rng.random() < self.rate:
            self.cable.counters.dropped_loss += 1
            return
        self.receive(port, frame)


def _toward(network: Network, nic: str) -> list[Channel]:
    """The channels that deliver frames to ``nic``'s fabric ports."""
    fabric = network.plan.fabric
    channels = []
    for plane in range(fabric.planes):
        link = fabric.nic_link(nic, plane)
        channel = network.devices[link.peer].channels.get(link.peer_port)
        if channel is not None:
            channels.append(channel)
    return channels


def set_nic_ingress_loss(network: Network, rate: float, nics: list[str] | None = None) -> int:
    """Drop ``rate`` of the frames arriving at ``nics`` (default: every NIC) on every
    plane from now on (0 stops it); returns how many ports it applies to."""
    names = nics if nics is not None else [n.name for n in network.plan.fabric.nics()]
    ports = 0
    for nic in names:
        rng = random.Random(network.config.seed ^ crc32(f"drop:{nic}".encode()))
        for channel in _toward(network, nic):
            dropper = channel.receive
            if not isinstance(dropper, NicDropper):
                dropper = NicDropper(channel.cable, channel.receive, rng)
                channel.receive = dropper
            dropper.rate = rate
            ports += 1
    return ports


def set_switch_up(network: Network, switch: str, up: bool) -> None:
    """Every cable of ``switch`` down (or back up): the switch is cut off, as a switch
    that loses power is, but keeps its tables (it comes back as it was)."""
    for cable in network.cables_of(switch):
        cable.up = up

