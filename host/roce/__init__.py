"""A RoCE host transport for the baseline of the fabric experiments: go-back-N over
one path per QP, on the same NIC program and wire format as MRC (docs/experiments.md,
"The RoCE baseline")."""

from .endpoint import RoceEndpoint
from .sender import GoBackNSender

__all__ = ["GoBackNSender", "RoceEndpoint"]
