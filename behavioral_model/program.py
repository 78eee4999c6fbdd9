"""One P4 program from source to a runnable device: preprocess, parse, check, compile.

    prog = load_program("router.p4", include_dirs=["p4src/include"])
    device = prog.new_device()
    outputs = device.process(frame, port=1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .frontend.checker import CheckedProgram, check_program
from .frontend.parser import parse_source
from .frontend.preprocess import PreprocessedSource, preprocess, preprocess_text
from .pipeline.compiler import CompiledProgram, compile_program
from .pipeline.loader import build_state
from .pipeline.pna import PnaDevice
from .pipeline.v1model import V1ModelDevice
from .runtime.state import DeviceState


@dataclass
class P4Program:
    """A checked and compiled program; devices made from it share the compiled code."""

    source: PreprocessedSource
    checked: CheckedProgram
    compiled: CompiledProgram

    def new_state(self) -> DeviceState:
        """Fresh device state: tables with their const entries, externs at zero."""
        return build_state(self.checked, self.compiled.instances)

    @property
    def arch(self) -> str:
        """"v1model" or "pna", from the package of `main`."""
        return self.compiled.arch

    def new_device(self, state: DeviceState | None = None,
                   seed: int = 0) -> V1ModelDevice | PnaDevice:
        device_type = PnaDevice if self.compiled.arch == "pna" else V1ModelDevice
        return device_type(self.compiled, state if state is not None else self.new_state(),
                           seed=seed)


def check_source(src: PreprocessedSource) -> CheckedProgram:
    return check_program(parse_source(src))


def build_program(src: PreprocessedSource) -> P4Program:
    checked = check_source(src)
    return P4Program(src, checked, compile_program(checked))


def load_program(path: str | Path, include_dirs: Sequence[str | Path] = (),
                 defines: Mapping[str, str | None] | None = None) -> P4Program:
    """Compile a P4 file; raises frontend.errors.P4Error with file:line:col on bad input."""
    return build_program(preprocess(path, include_dirs, defines))


def load_program_text(text: str, filename: str = "<string>",
                      include_dirs: Sequence[str | Path] = (),
                      defines: Mapping[str, str | None] | None = None) -> P4Program:
    return build_program(preprocess_text(text, filename, include_dirs, defines))
