"""A RoCE host transport for the baseline of the fabric experiments: go-back-N over
one path per QP at DCQCN's rate, on the same NIC program and wire format as MRC
(docs/experiments.md, "The RoCE baseline")."""

from .dcqcn import Dcqcn, DcqcnConfig
from .endpoint import RoceEndpoint
from .sender import GoBackNSender

__all__ = ["Dcqcn", "DcqcnConfig", "GoBackNSender", "RoceEndpoint"]
