"""Counters: per QP (what the transport did) and per endpoint (frames it refused)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["EndpointStats", "QpStats"]


@dataclass
class QpStats:
    """What one QP sent and received. Retransmits are counted once in
    ``retransmits`` and once under their cause."""

    writes_posted: int = 0
    writes_completed: int = 0
    writes_failed: int = 0
    packets_sent: int = 0
    bytes_sent: int = 0
    retransmits: int = 0
    retransmits_trimmed: int = 0
    retransmits_timeout: int = 0
    retransmits_gap: int = 0
    retransmits_deferred: int = 0
    spurious_retransmits: int = 0  # their PSN arrived twice (rack.py)
    timeouts: int = 0
    loss_reports: int = 0
    probes_sent: int = 0
    state_probes: int = 0  # probes asking the receiver about a possible loss (rack.py)
    probe_answers: int = 0
    sacks: int = 0
    sacks_ignored: int = 0
    nacks: int = 0
    nacks_trimmed: int = 0
    nacks_out_of_window: int = 0
    nacks_other: int = 0
    packets_received: int = 0
    bytes_received: int = 0
    duplicates: int = 0
    out_of_window: int = 0
    bad_rkey: int = 0
    out_of_bounds: int = 0
    messages_received: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class EndpointStats:
    """Frames the endpoint dropped before any QP saw them."""

    frames_received: int = 0
    malformed: int = 0
    wrong_address: int = 0
    wrong_peer: int = 0
    unknown_qp: int = 0
    unexpected_opcode: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
