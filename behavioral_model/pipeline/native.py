"""The C extension (``_native.c``), when it was built and is not switched off.

The generated pipeline extracts and emits a header with one call of a ``Codec`` where
one serves (``headercodec.native_fields``), and with Python code otherwise; both give
the same values and bytes. A parser first tries its ``ParsePlan`` (``parseplan.py``),
which runs the states that only extract such headers and select on exact values in one
call, and gives up to the Python states on anything else. A deparser that only emits
such headers of its headers struct is one call of a ``Deparser``
(``parsergen.fused_deparser``), which also makes the whole outgoing packet. A device builds
its per-packet structs with a ``Prototype`` where every field's zero value is
immutable or a struct of such fields (``values.ValueFactory.constructor``).

setup.py builds the extension when the package installs and leaves it out where no C
compiler is found. Setting ``MRC_P4_PURE_PYTHON=1`` makes programs compiled, and
devices made, from then on use Python alone (to compare the two, or to debug).
"""

from __future__ import annotations

import os
from typing import Any

try:
    from . import _native
except ImportError:  # not built: no C compiler where the package was installed
    _native = None

PURE_PYTHON_ENV = "MRC_P4_PURE_PYTHON"

__all__ = ["PURE_PYTHON_ENV", "built", "codec_class", "deparser_class", "describe",
           "parse_plan_class", "prototype_class"]


def built() -> bool:
    """Whether the extension is there (built when the package was installed)."""
    return _native is not None


def codec_class() -> Any | None:
    """``_native.Codec`` for a program compiled now, or None: not built, or switched
    off by ``MRC_P4_PURE_PYTHON``."""
    return None if _off() else _native.Codec


def deparser_class() -> Any | None:
    """``_native.Deparser`` for a program compiled now, or None (as ``codec_class``)."""
    return None if _off() else _native.Deparser


def parse_plan_class() -> Any | None:
    """``_native.ParsePlan`` for a program compiled now, or None (as ``codec_class``)."""
    return None if _off() else _native.ParsePlan


def prototype_class() -> Any | None:
    """``_native.Prototype`` for a device made now, or None (as ``codec_class``)."""
    return None if _off() else _native.Prototype


def describe() -> str:
    """Whether programs compiled now use the extension, in words (benchmarks print it
    beside their figures)."""
    if _native is None:
        return "C extension not built (Python alone)"
    if _off():
        return f"C extension off ({PURE_PYTHON_ENV}=1)"
    return "C extension on"


def _off() -> bool:
    return _native is None or os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0")
