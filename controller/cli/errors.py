"""Exit codes of ``mrc-ctl`` and the error that maps to "bad input"."""

from __future__ import annotations

EXIT_OK = 0
EXIT_DEVICE_FAILURE = 1  # a device could not be reached or a write failed
EXIT_BAD_INPUT = 2  # a bad topology file, an unknown QP or device, a bad option


class BadInput(Exception):
    """Input that names something the topology does not have; the message says what."""
