"""The command lines start without the heavy libraries they need only for some work:
scapy (its layers load routing tables at import: about a second) is for building and
reading packets, not for planning paths or running the controller; matplotlib is for
drawing, not for running a scenario. Each start of ``mrc-ctl``, ``python -m fabric``
and ``python -m fabric.procs`` paid both before, and the suite starts them hundreds of
times."""

from __future__ import annotations

import subprocess
import sys

import pytest

ENTRY_MODULES = ["controller.cli.main", "fabric.procs.cli", "fabric.cli", "fabric.paper.cli",
                 "controller.plan"]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_entry_module_loads_neither_scapy_nor_matplotlib(module: str) -> None:
    # A fresh interpreter: this test process has loaded both long ago.
    probe = (f"import importlib, sys; importlib.import_module({module!r}); "
             "print(' '.join(m for m in ('scapy', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"{module} imports {done.stdout.strip()}"


def test_usid_carrier_is_the_same_function_beside_the_layers() -> None:
    from protocol import headers, usid

    assert headers.usid_carrier is usid.usid_carrier
    assert headers.carrier_usids is usid.carrier_usids
