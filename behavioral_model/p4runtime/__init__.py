"""P4Runtime v1 gRPC server for the behavioral model (see ``server``).

Modules: ``server`` (gRPC service), ``target`` (what a device must offer),
``local_target`` (an in-memory device), ``device_config`` (the P4 source bundle carried
in ``p4_device_config``), ``pipeline_config`` / ``reconcile`` (pipeline changes),
``arbitration`` / ``stream`` / ``digests`` (StreamChannel), ``entities`` with
``tables`` / ``profiles_rw`` / ``externs_rw`` / ``pre_rw`` / ``valuesets_rw`` (Write and
Read per entity), ``wire`` (the Write hot path's own decoder of table-entry updates,
into ``entrydata``'s plain form), ``p4info_index`` / ``context`` / ``fieldmatch`` /
``values`` / ``codec`` / ``errors`` (shared pieces).
"""

from .device_config import load_bundle, make_bundle
from .local_target import LocalTarget
from .server import API_VERSION, P4RuntimeServer
from .target import P4RuntimeTarget

__all__ = ["P4RuntimeServer", "P4RuntimeTarget", "LocalTarget", "make_bundle",
           "load_bundle", "API_VERSION"]
