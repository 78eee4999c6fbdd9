"""The veth wiring at run time (root): ``start`` creates the fabric's namespace and its
veth pairs (``veth_plan``), ``close`` removes them all, and in between the links can be
taken down (``ip link set ... down`` on both ends, as a pulled cable) or made lossy
(``tc qdisc ... netem loss P%`` on both ends, each direction drawing on its own).

It offers the patch panel's controls (``link``, ``set_link``, ``snapshot``), so the
control socket, ``status`` and ``link`` work on either wiring. The kernel counts what
the panel counts, with one gap: a frame a device sends into a port that is down is
refused at its socket (ENETDOWN) and counted nowhere; the frames it sends toward a
down peer are (``dropped_down``)."""

from __future__ import annotations

from dataclasses import dataclass

from .layout import Endpoint
from .netns import (
    NetnsError,
    delete_interface,
    delete_namespace,
    disable_ipv6,
    in_namespace,
    interface_counters,
    interface_exists,
    ip_batch,
    missing_tools,
    namespace_exists,
    qdisc_drops,
    run_ip,
    set_netem,
)
from .veth_plan import HOST_END, VethLink, VethPlan

__all__ = ["VethLinkState", "VethWiring", "remove_wiring"]


@dataclass
class VethLinkState:
    link: VethLink
    up: bool = True
    loss: float = 0.0

    def as_dict(self) -> dict[str, object]:
        """The panel's form (``links.LinkState.as_dict``), from the kernel's counters."""
        a, b = (interface_counters(i) for i in self.link.interfaces)
        if self.link.to_host:  # the host's end is in the namespace: count at the NIC's
            counters = [_direction(a["tx_packets"], a["tx_dropped"],
                                   qdisc_drops(self.link.interfaces[0])),
                        _direction(a["rx_packets"], 0, 0)]
        else:
            counters = [_direction(b["rx_packets"], a["tx_dropped"],
                                   qdisc_drops(self.link.interfaces[0])),
                        _direction(a["rx_packets"], b["tx_dropped"],
                                   qdisc_drops(self.link.interfaces[1]))]
        return {"name": self.link.name, "ends": list(self.link.ends), "up": self.up,
                "loss": self.loss, "interfaces": list(self.link.interfaces),
                "counters": counters}


def _direction(forwarded: int, dropped_down: int, dropped_loss: int) -> dict[str, int]:
    return {"forwarded": forwarded, "dropped_down": dropped_down,
            "dropped_loss": dropped_loss}


class VethWiring:
    """The veths of ``plan``. ``start`` before the devices (they open their interfaces
    as they start), ``close`` after them; ``close`` is safe at any point of ``start``."""

    def __init__(self, plan: VethPlan) -> None:
        self.plan = plan
        self._links: dict[str, VethLinkState] = {}
        for link in plan.links:
            state = VethLinkState(link)
            for end in link.ends:
                if end != HOST_END:
                    self._links[end] = state

    def start(self) -> None:
        """Create the namespace and every veth, up, with IPv6 off (so the kernel sends
        nothing into the fabric). NetnsError if a tool is missing, the fabric's names
        are taken (left over from a fabric that was killed: ``down`` removes them) or a
        command fails; whatever was created is removed again."""
        missing = missing_tools()
        if missing:
            raise NetnsError(f"{' and '.join(missing)} not found: the veth wiring needs "
                             "iproute2 (ip, tc)")
        plan = self.plan
        taken = [n for n in plan.root_interfaces() if interface_exists(n)]
        if namespace_exists(plan.namespace) or taken:
            raise NetnsError(f"namespace {plan.namespace} or interfaces {plan.prefix}* "
                             "exist already (a fabric left over? 'python -m fabric.procs "
                             "down' with its --workdir removes them)")
        try:
            run_ip("netns", "add", plan.namespace)
            in_namespace(plan.namespace, _quiet_namespace)
            ip_batch([_add_command(link, plan.namespace) for link in plan.links])
            root = plan.root_interfaces()
            for name in root:
                disable_ipv6(name)
            ip_batch([f"link set {name} up" for name in root])
            ip_batch([f"link set {link.interfaces[1]} up" for link in plan.links
                      if link.to_host], namespace=plan.namespace)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        remove_wiring(self.plan.namespace, self.plan.root_interfaces())

    # -- the panel's controls -----------------------------------------------------------
    def link(self, port: Endpoint | str) -> VethLinkState:
        """The link at ``port`` (``dev:port``); KeyError if the port has none."""
        endpoint = Endpoint.parse(port) if isinstance(port, str) else port
        try:
            return self._links[str(endpoint)]
        except KeyError:
            raise KeyError(f"{endpoint} has no link") from None

    def set_link(self, port: Endpoint | str, *, up: bool | None = None,
                 loss: float | None = None) -> VethLinkState:
        """Bring the link at ``port`` down or up, or drop each frame with probability
        ``loss`` in each direction; KeyError, ValueError for bad input, NetnsError if
        ``ip``/``tc`` fails."""
        state = self.link(port)
        if loss is not None:
            if not 0.0 <= loss <= 1.0:
                raise ValueError(f"loss probability {loss} is not between 0 and 1")
            for name, namespace in self._ends(state.link):
                set_netem(name, loss, namespace)
            state.loss = loss
        if up is not None:
            for name, namespace in self._ends(state.link):
                run_ip("link", "set", name, "up" if up else "down", namespace=namespace)
            state.up = up
        return state

    def _ends(self, link: VethLink) -> list[tuple[str, str | None]]:
        return [(link.interfaces[0], None),
                (link.interfaces[1], self.plan.namespace if link.to_host else None)]

    def snapshot(self) -> dict[str, object]:
        """Links with their settings and the kernel's counters (as the panel's)."""
        seen = {id(state): state for state in self._links.values()}
        return {"links": [state.as_dict() for state in seen.values()], "hosts": [],
                "unlinked": {}, "not_frames": 0, "undelivered": 0, "devices_lost": [],
                "namespace": self.plan.namespace}


def _add_command(link: VethLink, namespace: str) -> str:
    a, b = link.interfaces
    return f"link add {a} type veth peer name {b}" + \
        (f" netns {namespace}" if link.to_host else "")


def _quiet_namespace() -> None:
    """IPv6 off for every interface created in (or moved to) the namespace from now on,
    before its host ends arrive."""
    for scope in ("all", "default"):
        disable_ipv6(scope)


def remove_wiring(namespace: str, root_interfaces: list[str]) -> None:
    """Remove a fabric's namespace (with the hosts' ends and so their peers) and every
    veth end it left in the root namespace; what is gone already is skipped."""
    delete_namespace(namespace)
    for name in root_interfaces:
        delete_interface(name)
