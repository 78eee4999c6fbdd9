"""STF ("simple test framework") files: p4c's line-based packet test format.

``parse_stf`` / ``parse_stf_file`` turn a file into command dataclasses
(``commands``) that an STF runner executes in order; ``ExpectedPacket`` compares
output packets; ``to_field_match`` converts key values once the table is known.
"""

from behavioral_model.stf.commands import *  # noqa: F403
from behavioral_model.stf.commands import __all__ as _command_names
from behavioral_model.stf.errors import STFError, STFSyntaxError, STFValueError
from behavioral_model.stf.expected_packet import ExpectedPacket
from behavioral_model.stf.key_values import (
    KeyValue,
    MaskedValue,
    NumberValue,
    PrefixValue,
    RangeValue,
    to_field_match,
)
from behavioral_model.stf.parse import parse_stf, parse_stf_file

__all__ = [
    *_command_names,
    "STFError",
    "STFSyntaxError",
    "STFValueError",
    "ExpectedPacket",
    "KeyValue",
    "MaskedValue",
    "NumberValue",
    "PrefixValue",
    "RangeValue",
    "to_field_match",
    "parse_stf",
    "parse_stf_file",
]
