"""A host whose QPs send with go-back-N (``GoBackNSender``), at DCQCN's rate when
given ``dcqcn``: ``host.Endpoint`` with another sender; receiving, memory regions and
completions are the endpoint's own."""

from __future__ import annotations

import ipaddress
from typing import Any

from ..codec import Route
from ..endpoint import Endpoint, ipv6_bytes
from .dcqcn import DcqcnConfig
from .sender import GoBackNSender

__all__ = ["RoceEndpoint"]


class RoceEndpoint(Endpoint):
    def __init__(self, *args: Any, dcqcn: DcqcnConfig | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dcqcn = dcqcn

    def open_qp(self, qpn: int, peer: str | bytes | ipaddress.IPv6Address | None = None, *,
                remote_qpn: int | None = None) -> None:
        """Open local QP ``qpn``; with ``peer`` it writes with go-back-N."""
        super().open_qp(qpn, None, remote_qpn=remote_qpn)
        if peer is None:
            return
        qp = self._qps[qpn]
        qp.peer = ipv6_bytes(peer)
        route = Route(self._nic_mac, self._host_mac, self.local, qp.peer)
        qp.sender = GoBackNSender(qpn, route, self.config, self.clock,  # type: ignore[assignment]
                                  self.port.send, qp.stats, self.dcqcn)
