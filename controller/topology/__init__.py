"""Topology files: schema, checks, and the fabrics (listed or generated) they describe."""

from .errors import Problem, TopologyError
from .fabric import (
    DeviceAccess,
    DeviceGroup,
    Fabric,
    NicNode,
    PortLink,
    QpDecl,
    QpEnd,
    Role,
    SwitchNode,
)
from .load import load_topology, parse_topology

__all__ = [
    "DeviceAccess", "DeviceGroup", "Fabric", "NicNode", "PortLink", "Problem", "QpDecl",
    "QpEnd", "Role", "SwitchNode", "TopologyError", "load_topology", "parse_topology",
]
