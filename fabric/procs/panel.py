"""The patch panel: the cables between the devices' nn sockets.

Every bm device listens on its own nn socket (BMv2's nanomsg PAIR framing) and sends the
frames of all its ports through it as PACKET_OUT messages. The panel dials every device
socket, and a frame that leaves ``dev:port`` enters the port at the other end of that
port's link as a PACKET_IN. A device socket takes one peer, the panel, so the panel also
listens on a host socket per host port (``ipc://WORKDIR/NIC-host.ipc``, the same
framing) for host software (``host.NanomsgPort``, ``mrc-host --socket``): what the host
sends enters the device port, what the device sends out of it goes to the host.

One thread serves every device socket: it polls them all, takes whatever each holds
(many messages per read), groups the frames by the link they take and writes each
group to its destination in one write. Sending blocks while a device does not read,
which is the back pressure of a real port. Each host socket has a thread of its own
(the listener accepts and reads in the thread that polls it). Frames out of a port
without a link are counted and dropped, as are messages that are not frames.

A device that closes its socket (its process died) is dialled again, with backoff,
until it answers: a device restarted on the same address is cabled as before, as a
switch rebooted in a rack keeps its cables. Frames for it meanwhile are dropped.
"""

from __future__ import annotations

import logging
import queue
import select
import socket
import struct
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from behavioral_model.ports.nn import HEADER, MSG_PACKET_IN, MSG_PACKET_OUT
from behavioral_model.ports.sp import SPPairListener
from behavioral_model.ports.sp_dialer import SPPairDialer
from behavioral_model.ports.sp_frames import SPProtocolError

from .layout import Endpoint, FabricLayout
from .links import LinkState

__all__ = ["PatchPanel"]

log = logging.getLogger("fabric.procs.panel")

HOST_END = "host"
HOST_SEND_TIMEOUT_S = 1.0  # a host that does not read for this long loses frames
# Dialling a lost device again: first after REDIAL_FIRST_S, then twice as long after each
# try that finds nobody, up to REDIAL_MAX_S between tries.
REDIAL_FIRST_S = 0.05
REDIAL_MAX_S = 2.0
REDIAL_CONNECT_S = 1.0
_TYPE_AND_PORT = struct.Struct("<ii")


class _DeviceSocket:
    """The panel's connection to one device's nn socket; any thread may send."""

    def __init__(self, name: str, address: str, timeout_s: float) -> None:
        self.name = name
        self.address = address
        try:
            self.dialer = SPPairDialer(address, timeout_s)
        except OSError as error:
            raise OSError(f"cannot reach {name} at {address}: "
                          f"{error.strerror or error}") from None
        self.routes: dict[int, _Route] = {}  # out port -> where its frames go
        self.connected = True
        self._lock = threading.Lock()

    def redial(self, timeout_s: float) -> None:
        """Connect to the device's address again (its process was restarted); OSError
        or SPProtocolError while nobody answers there."""
        dialer = SPPairDialer(self.address, timeout_s)
        with self._lock:
            self.dialer.close()
            self.dialer = dialer
            self.connected = True

    def send(self, messages: list[bytes]) -> int:
        """Write ``messages``; how many were dropped (all, once the device is gone)."""
        if not self.connected:
            return len(messages)
        with self._lock:
            try:
                self.dialer.send_many(messages)
            except OSError as error:
                log.warning("%s: send failed (%s); the device is gone", self.name, error)
                self.connected = False
                return len(messages)
        return 0


class _HostSocket:
    """The listening nn socket of one host port."""

    def __init__(self, port: Endpoint, address: str) -> None:
        self.port = port
        self.listener = SPPairListener(address)
        self.received = 0
        self.sent = 0
        self.dropped_no_host = 0
        # counted here, not in the panel's totals: each host socket has its own thread
        self.not_frames = 0
        self.undelivered = 0

    def send(self, messages: list[bytes]) -> int:
        taken = self.listener.send_many(messages, HOST_SEND_TIMEOUT_S)
        self.sent += taken
        self.dropped_no_host += len(messages) - taken
        return len(messages) - taken


@dataclass(slots=True)
class _Route:
    """Frames leaving one port: through ``link`` (sent from its end ``direction``) to
    ``target``. ``header`` is the first 8 bytes of the message the target gets (type
    and port); None keeps the device's message as it is (a host gets PACKET_OUTs)."""

    link: LinkState
    direction: int
    target: _DeviceSocket | _HostSocket
    header: bytes | None

    def forward(self, messages: list[bytes]) -> int:
        """Send what the link lets through; how many the target dropped."""
        kept = self.link.admit(self.direction, messages)
        if not kept:
            return 0
        header = self.header
        if header is not None:
            kept = [header + m[8:] for m in kept]
        return self.target.send(kept)


def _header(kind: int, port: int) -> bytes:
    return _TYPE_AND_PORT.pack(kind, port)


class PatchPanel:
    """Links between the devices of ``layout`` (whose processes must be running), and
    host sockets on its host ports. ``seed`` seeds every link's loss stream.

        with PatchPanel(layout, seed=1) as panel:       # dials and listens
            panel.set_link("nic0:1", loss=0.01)
            panel.set_link("p0-t0-0:3", up=False)
            panel.snapshot()                             # links and counters

    ``on_device_lost(name)`` is called (from the panel's thread) when a device closes
    its socket, ``on_device_back(name)`` (from another thread) once it answers again."""

    def __init__(self, layout: FabricLayout, seed: int = 0, *,
                 on_device_lost: Callable[[str], None] | None = None,
                 on_device_back: Callable[[str], None] | None = None) -> None:
        self.layout = layout
        self.seed = seed
        self.on_device_lost = on_device_lost
        self.on_device_back = on_device_back
        # counted by the device thread (host sockets count their own)
        self.unlinked: Counter[str] = Counter()  # frames out of ports without a link
        self._unlinked_lock = threading.Lock()  # snapshot() copies it from other threads
        self.not_frames = 0  # messages that were not frames (e.g. INFO_REP)
        self.undelivered = 0  # frames a destination could not take
        self._links: dict[Endpoint, LinkState] = {}
        self._devices: dict[str, _DeviceSocket] = {}
        self._hosts: list[_HostSocket] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()
        # devices dialled again, for the device thread to poll once more
        self._redialled: queue.SimpleQueue[_DeviceSocket] = queue.SimpleQueue()

    # -- set-up -------------------------------------------------------------------------
    def start(self, connect_timeout_s: float = 10.0) -> None:
        """Dial every device, listen on every host socket, start forwarding. OSError
        if a device socket does not answer within ``connect_timeout_s``."""
        try:
            for device in self.layout.devices:
                self._devices[device.name] = _DeviceSocket(device.name, device.packet_in,
                                                           connect_timeout_s)
            for cable in self.layout.cables:
                self._add_cable(cable.a, cable.b)
            for spec in self.layout.host_sockets:
                self._add_host(spec.port, spec.address)
        except BaseException:
            self.close()
            raise
        self._spawn(self._serve_devices, "panel-devices")
        for host in self._hosts:
            self._spawn(lambda h=host: self._serve_host(h), f"panel-{host.port}")

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _add_cable(self, a: Endpoint, b: Endpoint) -> None:
        link = LinkState(f"{a}-{b}", (str(a), str(b)), self.seed)
        for direction, (here, there) in enumerate(((a, b), (b, a))):
            self._devices[here.device].routes[here.port] = _Route(
                link, direction, self._devices[there.device],
                _header(MSG_PACKET_IN, there.port))
            self._links[here] = link

    def _add_host(self, port: Endpoint, address: str) -> None:
        host = _HostSocket(port, address)
        self._hosts.append(host)
        link = LinkState(f"{port}-{HOST_END}", (str(port), HOST_END), self.seed)
        self._devices[port.device].routes[port.port] = _Route(link, 0, host, None)
        self._links[port] = link

    # -- failure injection --------------------------------------------------------------
    def link(self, port: Endpoint | str) -> LinkState:
        """The link at ``port`` (``dev:port``); KeyError if the port has none."""
        endpoint = Endpoint.parse(port) if isinstance(port, str) else port
        try:
            return self._links[endpoint]
        except KeyError:
            raise KeyError(f"{endpoint} has no link") from None

    def set_link(self, port: Endpoint | str, *, up: bool | None = None,
                 loss: float | None = None) -> LinkState:
        """Bring the link at ``port`` down or up, or set the probability that it drops
        a frame (each direction on its own); KeyError, ValueError for bad input."""
        link = self.link(port)
        if loss is not None:
            link.set_loss(loss)
        if up is not None:
            link.up = up
        return link

    def snapshot(self) -> dict[str, object]:
        """Links with their settings and counters, and what the panel dropped."""
        seen: dict[str, LinkState] = {link.name: link for link in self._links.values()}
        return {
            "links": [link.as_dict() for link in seen.values()],
            "hosts": [{"port": str(h.port), "connected": h.listener.connected,
                       "received": h.received, "sent": h.sent,
                       "dropped_no_host": h.dropped_no_host, "not_frames": h.not_frames,
                       "undelivered": h.undelivered} for h in self._hosts],
            "unlinked": self._unlinked_copy(),
            "not_frames": self.not_frames,
            "undelivered": self.undelivered,
            "devices_lost": sorted(d.name for d in self._devices.values()
                                   if not d.connected),
        }

    def _unlinked_copy(self) -> dict[str, int]:
        with self._unlinked_lock:
            return dict(self.unlinked)

    # -- forwarding ---------------------------------------------------------------------
    def _serve_devices(self) -> None:
        poller = select.poll()
        by_fd: dict[int, _DeviceSocket] = {}
        for device in self._devices.values():
            by_fd[device.dialer.fileno()] = device
            poller.register(device.dialer.fileno(), select.POLLIN)
        wake_fd = self._wake_r.fileno()
        poller.register(wake_fd, select.POLLIN)
        while not self._stop.is_set():
            for fd, _ in poller.poll():
                device = by_fd.get(fd)
                if device is None:  # the wake-up socket: close(), or a device is back
                    self._wake_r.recv(4096)
                    while not self._redialled.empty():
                        back = self._redialled.get()
                        by_fd[back.dialer.fileno()] = back
                        poller.register(back.dialer.fileno(), select.POLLIN)
                    continue
                try:
                    messages = device.dialer.recv_batch(0)
                except (OSError, SPProtocolError) as error:
                    poller.unregister(fd)
                    del by_fd[fd]
                    self._lose(device, error)
                    continue
                if messages:
                    self._route(device, messages)

    def _lose(self, device: _DeviceSocket, error: Exception) -> None:
        device.connected = False
        if self._stop.is_set():
            return
        log.warning("%s: connection lost (%s)", device.name, error)
        if self.on_device_lost is not None:
            self.on_device_lost(device.name)
        self._spawn(lambda: self._redial(device), f"panel-redial-{device.name}")

    def _redial(self, device: _DeviceSocket) -> None:
        """Dial ``device`` until it answers or the panel closes; then hand it back to
        the device thread."""
        delay = REDIAL_FIRST_S
        while not self._stop.wait(delay):
            try:
                device.redial(REDIAL_CONNECT_S)
            except (OSError, SPProtocolError):
                delay = min(2 * delay, REDIAL_MAX_S)
                continue
            log.warning("%s: connected again", device.name)
            self._redialled.put(device)
            self._wake()
            if self.on_device_back is not None:
                self.on_device_back(device.name)
            return

    def _wake(self) -> None:
        """Make the device thread's poll return."""
        try:
            self._wake_w.send(b"\x00")
        except OSError:
            pass  # closed: the panel is shutting down

    def _route(self, device: _DeviceSocket, messages: list[bytes]) -> None:
        by_port: dict[int, list[bytes]] = {}
        unpack = _TYPE_AND_PORT.unpack_from
        header_size = HEADER.size
        for message in messages:
            if len(message) < header_size:
                self.not_frames += 1
                continue
            kind, port = unpack(message)
            if kind != MSG_PACKET_OUT:
                self.not_frames += 1
                continue
            group = by_port.get(port)
            if group is None:
                by_port[port] = [message]
            else:
                group.append(message)
        routes = device.routes
        for port, group in by_port.items():
            route = routes.get(port)
            if route is None:
                with self._unlinked_lock:
                    self.unlinked[f"{device.name}:{port}"] += len(group)
            else:
                self.undelivered += route.forward(group)

    def _serve_host(self, host: _HostSocket) -> None:
        device = self._devices[host.port.device]
        link = self._links[host.port]
        # frames from the host enter its port whatever port their header names
        header = _header(MSG_PACKET_IN, host.port.port)
        route = _Route(link, 1, device, header)
        unpack = _TYPE_AND_PORT.unpack_from
        while not self._stop.is_set():
            messages = host.listener.recv_batch(0.5)
            if messages is None:
                return
            frames = [m for m in messages
                      if len(m) >= HEADER.size and unpack(m)[0] == MSG_PACKET_IN]
            host.not_frames += len(messages) - len(frames)
            host.received += len(frames)
            if frames:
                host.undelivered += route.forward(frames)

    # -- shutdown -----------------------------------------------------------------------
    def close(self) -> None:
        """Stop forwarding; close every socket (host socket files are removed)."""
        self._stop.set()
        self._wake()
        for host in self._hosts:
            host.listener.wake()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()
        for host in self._hosts:
            host.listener.close()
        for device in self._devices.values():
            device.dialer.close()
        self._wake_r.close()
        self._wake_w.close()

    def __enter__(self) -> PatchPanel:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
