"""Transport settings of an endpoint: segmentation, window and timers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol.constants import NIC_RX_WINDOW

from .nscc import NsccConfig

__all__ = ["TransportConfig"]


@dataclass(frozen=True)
class TransportConfig:
    """Per-endpoint settings (every QP of the endpoint uses them).

    - ``mtu``: payload bytes per packet.
    - ``window``: PSNs in flight past the peer's cumulative PSN; at most NIC_RX_WINDOW,
      the receiving NIC's window (docs/mrc-nic.md 7), so the peer never answers
      PSN_OUT_OF_WINDOW in normal operation.
    - ``cc``: congestion control: ``nscc`` (a byte window from ECN and delay,
      ``host/nscc.py``, parameters in ``nscc``) or ``none`` (only ``window`` limits).
    - ``rto``: retransmission timeout in seconds. The first transmission and the first
      ``fixed_retries`` retransmissions wait ``rto``, each later one twice as long as
      the one before (up to ``max_rto``): "a few fixed retries, then exponential
      backoff" (docs/mrc-protocol.md 4).
    - ``max_retries``: timeouts in a row without progress after which the QP's writes
      fail.
    - ``gap_threshold``, ``reorder_window``, ``reorder_allowance``,
      ``max_reorder_steps``: loss detection (``host/rack.py``, docs/mrc-nic.md 7: "a
      gap that later SACKs do not fill"). A transmission is lost once one sent after
      it was acknowledged, at least ``gap_threshold`` later ones were, and it has
      been out for that later one's round trip plus the reordering window:
      ``reorder_window`` times the smallest round trip (RFC 8985 section 6.2: a
      quarter) plus ``reorder_allowance`` seconds (the scheduling jitter of busy
      processes), widened by as much again after each spurious retransmission, at
      most ``max_reorder_steps`` times. Sprayed packets arrive out of order by
      design; taking reordering for loss would retire good EVs.
    - ``tail_ack_req``: the last this many packets of the send queue ask for a SACK
      at once (BTH AckReq), not only a message's last packet: over sprayed paths a
      packet of the tail may arrive after the last one's SACK, and the receiver's
      coalesced SACKs would leave it unacknowledged until a timeout (1: only the
      last packet of each message).
    - ``rx_track``: how far past the next expected PSN the receiver keeps track of
      arrivals; packets further ahead are dropped and counted.
    """

    mtu: int = 1024
    window: int = NIC_RX_WINDOW
    rto: float = 0.05
    fixed_retries: int = 3
    max_retries: int = 8
    max_rto: float = 1.0
    gap_threshold: int = 3
    reorder_window: float = 0.25
    reorder_allowance: float = 2e-6
    max_reorder_steps: int = 16
    rx_track: int = 1 << 16
    tail_ack_req: int = 1
    cc: Literal["none", "nscc"] = "none"
    nscc: NsccConfig = field(default_factory=NsccConfig)

    def __post_init__(self) -> None:
        if self.mtu < 1:
            raise ValueError(f"mtu {self.mtu}: must be at least 1 byte")
        if not 1 <= self.window <= NIC_RX_WINDOW:
            raise ValueError(f"window {self.window}: must be 1..{NIC_RX_WINDOW} "
                             "(the receiving NIC's bitmap)")
        if self.rto <= 0 or self.max_rto < self.rto:
            raise ValueError(f"rto {self.rto} / max_rto {self.max_rto}: need "
                             "0 < rto <= max_rto")
        if self.fixed_retries < 0 or self.max_retries < 0:
            raise ValueError("fixed_retries and max_retries must be >= 0")
        if self.gap_threshold < 1:
            raise ValueError(f"gap_threshold {self.gap_threshold}: must be >= 1")
        if self.reorder_window < 0 or self.reorder_allowance < 0:
            raise ValueError(f"reorder_window {self.reorder_window} / reorder_allowance "
                             f"{self.reorder_allowance}: must be >= 0")
        if self.max_reorder_steps < 1:
            raise ValueError(f"max_reorder_steps {self.max_reorder_steps}: must be >= 1")
        if self.cc not in ("none", "nscc"):
            raise ValueError(f"cc {self.cc!r}: must be 'none' or 'nscc'")
        if self.tail_ack_req < 1:
            raise ValueError(f"tail_ack_req {self.tail_ack_req}: must be >= 1")
        if self.rx_track < NIC_RX_WINDOW:
            raise ValueError(f"rx_track {self.rx_track}: must be >= {NIC_RX_WINDOW}")

    def rto_after(self, timeouts: int) -> float:
        """The timeout to wait after ``timeouts`` timeouts in a row: ``rto`` for the
        first transmission and the first ``fixed_retries`` retries (evenly spaced, so
        linear in time), then doubling up to ``max_rto``."""
        if timeouts <= self.fixed_retries:
            return self.rto
        doublings = min(timeouts - self.fixed_retries, 64)  # 2**64 * rto caps anyway
        return min(self.max_rto, self.rto * 2.0 ** doublings)
