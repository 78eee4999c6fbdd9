"""The running controller: devices kept programmed across restarts, NIC EV events
answered with backup top-ups and probes (``Reactor``)."""

from .probes import ProbeSchedule
from .reactor import Reactor, Recovery
from .supervisor import DeviceSupervisor, LinkState

__all__ = ["DeviceSupervisor", "LinkState", "ProbeSchedule", "Reactor", "Recovery"]
