"""One pipeline as the server sees it: program, P4Info index, cookie, device state, and
the bits of P4Runtime state the runtime does not keep.

The runtime stores what the data plane needs. P4Runtime also promises to return what a
client wrote even when the target ignores it (read-write symmetry): a table entry's
``controller_metadata`` and ``metadata``, a multicast group's ``metadata`` and how its
replica ports were spelled, the members of a value set as written. Those live here, in
:class:`Extras`, keyed by names and match values so they survive nothing but the state
they belong to: a new pipeline gets new extras.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.program import P4Program
from behavioral_model.runtime.matches import FieldMatch
from behavioral_model.runtime.state import DeviceState

from .p4info_index import P4InfoIndex

__all__ = ["Extras", "PipelineContext", "EntryKey"]

EntryKey = tuple[str, tuple[FieldMatch | None, ...], int]


@dataclass
class Extras:
    #: (table, canonical matches, priority) -> (controller_metadata, metadata)
    entry_meta: dict[EntryKey, tuple[int, bytes]] = field(default_factory=dict)
    #: table -> (controller_metadata, metadata) of its default entry
    default_meta: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    #: multicast group id -> (metadata, per-replica "port" (bytes) vs "egress_port")
    mc_meta: dict[int, tuple[bytes, tuple[bool, ...]]] = field(default_factory=dict)
    #: clone session id -> per-replica "port" (bytes) vs "egress_port"
    clone_ports: dict[int, tuple[bool, ...]] = field(default_factory=dict)
    #: value set name -> members as written (canonical form)
    vs_members: dict[str, list[p4runtime_pb2.ValueSetMember]] = field(default_factory=dict)
    #: (action selector, group id) -> the group's max_size as inserted
    group_max_size: dict[tuple[str, int], int] = field(default_factory=dict)
    #: digest id -> configuration as written (present = digest enabled)
    digest_configs: dict[int, p4runtime_pb2.DigestEntry.Config] = field(
        default_factory=dict)


@dataclass
class PipelineContext:
    program: P4Program
    p4info: p4info_pb2.P4Info
    index: P4InfoIndex
    cookie: int
    state: DeviceState
    device_config: bytes = b""
    extras: Extras = field(default_factory=Extras)
    #: the device clock in ns (the server passes its target's ``now_ns``); an inserted
    #: entry's idle timer starts at its insertion (spec, "Idle-timeout")
    now_ns: Callable[[], int] = time.monotonic_ns

    def forwarding_config(self, response_type: int) -> p4runtime_pb2.ForwardingPipelineConfig:
        """The config for GetForwardingPipelineConfig's ``response_type``."""
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest
        config = p4runtime_pb2.ForwardingPipelineConfig()
        config.cookie.cookie = self.cookie
        if response_type in (req.ALL, req.P4INFO_AND_COOKIE):
            config.p4info.CopyFrom(self.p4info)
        if response_type in (req.ALL, req.DEVICE_CONFIG_AND_COOKIE):
            config.p4_device_config = self.device_config
        return config
