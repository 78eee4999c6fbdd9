"""P4Runtime v1 client of mrc-p4, for the PTF suites, the scripts, the ``cli`` command
of bm and the controller: per-device sessions (``session``), TLS channels
(``channel``), name-based entity builders (``p4info_helper``) and the shared rules for
writing names and values (``names``, ``values``). Target-agnostic: it works against bm
and BMv2 ``simple_switch_grpc`` alike."""

from .channel import TlsConfig, open_channel, wait_for_grpc
from .entities import pipeline_cookie, to_entity, update
from .errors import (
    STATUS_DETAILS_KEY,
    ElectionIdInUseError,
    NotPrimaryError,
    P4RuntimeSessionError,
    P4RuntimeWriteError,
    code_name,
    grpc_code,
)
from .names import UnknownNameError
from .p4info_helper import P4InfoHelper, load_p4info
from .session import P4RuntimeSession
from .values import Value, decode_value, encode_value, parse_value

__all__ = [
    "STATUS_DETAILS_KEY",
    "ElectionIdInUseError",
    "NotPrimaryError",
    "P4InfoHelper",
    "P4RuntimeSession",
    "P4RuntimeSessionError",
    "P4RuntimeWriteError",
    "TlsConfig",
    "UnknownNameError",
    "Value",
    "code_name",
    "decode_value",
    "encode_value",
    "grpc_code",
    "load_p4info",
    "open_channel",
    "parse_value",
    "pipeline_cookie",
    "to_entity",
    "update",
    "wait_for_grpc",
]
