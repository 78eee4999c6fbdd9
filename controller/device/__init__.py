"""The controller's side of each device: pipelines to push, planned entities as
P4Runtime entities, reconciling a device with its desired state, and the session that
does it (``DeviceLink``)."""

from .link import DeviceLink, DeviceTarget
from .pipelines import Pipeline, PipelineCache, PipelineError
from .reconcile import ReconcileError, WriteCounts

__all__ = ["DeviceLink", "DeviceTarget", "Pipeline", "PipelineCache", "PipelineError",
           "ReconcileError", "WriteCounts"]
