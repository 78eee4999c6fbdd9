"""The topology file's schema (pydantic v2): what each key may hold, field by field.

Only the shape of the file is checked here; cross-references (links naming devices,
uSIDs unique per plane, QPs naming NICs) are checked when the fabric is built
(``explicit.py``, ``clos.py``), so every message can name its place in the file.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from protocol import constants as c

# A P4Runtime device id is a uint64.
DeviceId = Annotated[int, Field(ge=0, lt=1 << 64)]
Port = Annotated[int, Field(ge=0)]
Byte = Annotated[int, Field(ge=0, le=0xFF)]
Target = Literal["bm", "bmv2"]


class Strict(BaseModel):
    """Unknown keys are errors: a misspelt key must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Bmv2Files(Strict):
    """A program compiled for BMv2 beforehand (``p4c-bm2-ss --p4runtime-files``): what
    ``apply`` pushes to a ``bmv2`` device when ``p4c-bm2-ss`` is not on PATH."""

    json_file: str
    p4info_file: str


class DeviceDefaults(Strict):
    """Target kind and P4 programs of every device that does not name its own."""

    target: Target = "bm"
    switch_program: str = "p4src/srv6_switch.p4"
    nic_program: str = "p4src/mrc_nic.p4"
    switch_bmv2: Bmv2Files | None = None
    nic_bmv2: Bmv2Files | None = None


class SwitchPolicy(Strict):
    """Per-port thresholds the plan writes into every switch (queue depths in packets).

    Fabric-facing ports mark ECN between ``ecn_low`` and ``ecn_high``; NIC-facing ports
    never mark (ECN signals fabric imbalance, not receiver incast). Every cabled port
    trims from ``trim_threshold``, NIC-facing ones as the last hop.
    """

    trim_threshold: Annotated[int, Field(ge=0, lt=1 << 19)] = 48
    ecn_low: Annotated[int, Field(ge=0, lt=1 << 19)] = 8
    ecn_high: Annotated[int, Field(ge=0, lt=1 << 19)] = 32


class QpSettings(Strict):
    """Per-QP parameters of ``qp_context``; any of them may be left to ``qp_defaults``."""

    evs_per_plane: Annotated[int, Field(ge=1, le=c.NIC_EV_SLOTS)] | None = None
    # Backups configured at first on each plane; the controller tops them up, one per
    # retirement, within the plane's range of backup ids.
    backups_per_plane: Byte | None = None
    # The size of each plane's backup-id range (qp_context's backups_per_plane, see
    # docs/mrc-nic.md 5). None: as many as the NIC's backup ids allow over the planes.
    backup_ids_per_plane: Byte | None = None
    sack_every: Byte | None = None
    # None: half of the QP's EV slots (the floor that retirements never go below).
    min_active: Annotated[int, Field(ge=0, lt=1 << 16)] | None = None
    probe_threshold: Annotated[int, Field(ge=1, le=0xFF)] | None = None


class QpEndpointSpec(Strict):
    nic: str
    # None: allocated, QP_QPN_BASE + the QP's index on that NIC.
    qpn: Annotated[int, Field(ge=0, lt=1 << 24)] | None = None


def _endpoint_by_name(value: object) -> object:
    """A bare NIC name is short for ``{nic: NAME}``."""
    if isinstance(value, str):
        return {"nic": value}
    if not isinstance(value, dict):
        raise ValueError("should be a NIC name or {nic: NAME, qpn: N}")
    return value


QpEndpoint = Annotated[QpEndpointSpec, BeforeValidator(_endpoint_by_name)]


class QpSpec(QpSettings):
    name: str
    # Two NICs: a name each, or {nic: NAME, qpn: N}.
    endpoints: Annotated[list[QpEndpoint], Field(min_length=2, max_length=2)]


class SwitchSpec(Strict):
    name: str
    address: str
    device_id: DeviceId = 1
    target: Target | None = None
    program: str | None = None
    bmv2: Bmv2Files | None = None
    # None: allocated by the plan; given: must lie in the switch's plane.
    usid: Annotated[int, Field(gt=0, lt=1 << c.USID_BITS)] | None = None
    mac: str | None = None


class PlaneSpec(Strict):
    t1: list[SwitchSpec]
    t0: list[SwitchSpec]


class NicSpec(Strict):
    name: str
    address: str
    device_id: DeviceId = 1
    target: Target | None = None
    program: str | None = None
    bmv2: Bmv2Files | None = None
    # This NIC's IPv6 address (inner DA of its traffic); None: from nic_address_prefix.
    ipv6: str | None = None
    # ports[p]: the fabric port of plane p.
    ports: list[Port]
    # macs[p]: the MAC of ports[p]; None: derived.
    macs: list[str] | None = None


class ClosSpec(Strict):
    """A generated two-tier Clos per plane: every T0 links once to every T1 of its plane.

    Names: ``p{plane}-t1-{i}``, ``p{plane}-t0-{j}``, ``nic{n}`` (NIC n hangs off T0
    ``n // nics_per_t0`` of every plane). Ports are numbered from 1, skipping the
    program's CPU and drop ports: a T0's NIC downlinks first, then one uplink per T1;
    a T1's ports go to T0 0, 1, ...; NIC port p + 1 is plane p. Device ``i`` (switches
    plane by plane, T1s before T0s, then the NICs) is reached at ``p4runtime`` with
    ``{name}``, ``{index}`` and ``{port}`` (= ``port_base`` + index) filled in, device id
    ``index + 1``.
    """

    planes: Annotated[int, Field(ge=1, le=c.NIC_MAX_PLANES)]
    t1_per_plane: Annotated[int, Field(ge=1)]
    t0_per_plane: Annotated[int, Field(ge=1)]
    nics_per_t0: Annotated[int, Field(ge=1)]
    p4runtime: str = "127.0.0.1:{port}"
    port_base: Annotated[int, Field(ge=0)] = 50001


class TopologySpec(Strict):
    """The whole file: ``clos`` (generated) or ``planes`` + ``nics`` + ``links`` (listed)."""

    name: str = "fabric"
    usid_block: str = "fcbb:bb00::/32"
    # Width of the programs' port numbers (v1model: 9). A wider value describes a
    # fabric that can be planned but not applied to the v1model programs.
    port_bits: Annotated[int, Field(ge=2, le=12)] = 9
    nic_address_prefix: str = "fd00:1::/64"
    defaults: DeviceDefaults = DeviceDefaults()
    switch_policy: SwitchPolicy = SwitchPolicy()
    qp_defaults: QpSettings = QpSettings()
    clos: ClosSpec | None = None
    planes: list[PlaneSpec] | None = None
    nics: list[NicSpec] | None = None
    # Each link: two "device:port" ends.
    links: list[Annotated[list[str], Field(min_length=2, max_length=2)]] | None = None
    qps: list[QpSpec] = []
