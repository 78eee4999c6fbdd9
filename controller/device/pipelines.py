"""What ``apply`` pushes to a device: the P4Info and the target's device config.

- ``bm`` (our target): the P4 source bundle (``make_bundle``) and the P4Info our front
  end derives from the same source.
- ``bmv2`` (``simple_switch_grpc``): p4c's BMv2 JSON and P4Info, compiled on the fly
  with ``p4c-bm2-ss --p4runtime-files`` when it is on PATH, else read from the files
  the topology names (``defaults.switch_bmv2`` / ``nic_bmv2``, or a device's ``bmv2``).

Each distinct (target, program) is built once per run and shared by its devices.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from p4.config.v1 import p4info_pb2

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import preprocess
from behavioral_model.p4runtime.device_config import make_bundle
from behavioral_model.program import check_source
from controller.topology import DeviceAccess
from p4rt_client import load_p4info, pipeline_cookie

P4C_BMV2 = "p4c-bm2-ss"
P4C_TIMEOUT_S = 600


class PipelineError(Exception):
    """A program that cannot be turned into a pipeline; the message says why."""


@dataclass(frozen=True)
class Pipeline:
    p4info: p4info_pb2.P4Info
    device_config: bytes
    cookie: int
    origin: str  # for people: where it came from


def include_dirs(program: Path) -> list[Path]:
    """The programs include ``p4src/include``: the ``include`` folder next to them."""
    folder = program.parent / "include"
    return [folder] if folder.is_dir() else []


def build_bm(program: str) -> Pipeline:
    path = Path(program)
    if not path.is_file():
        raise PipelineError(f"{program}: no such P4 program")
    dirs = include_dirs(path)
    try:
        p4info = generate_p4info(check_source(preprocess(path, dirs)))
        bundle = make_bundle(path, dirs)
    except P4Error as error:
        raise PipelineError(f"{program}: {error}") from None
    return Pipeline(p4info, bundle, pipeline_cookie(p4info, bundle), f"bm bundle of {program}")


def build_bmv2(program: str, files: tuple[str, str] | None) -> Pipeline:
    if shutil.which(P4C_BMV2) is not None:
        return _compile_bmv2(Path(program))
    if files is None:
        raise PipelineError(
            f"{program}: a bmv2 device needs p4c's JSON and P4Info: put {P4C_BMV2} on "
            "PATH, or name the files in the topology (defaults.switch_bmv2 / nic_bmv2, or "
            "a device's bmv2: {json_file: ..., p4info_file: ...})")
    json_file, p4info_file = files
    try:
        config = Path(json_file).read_bytes()
        p4info = load_p4info(p4info_file)
    except OSError as error:
        raise PipelineError(f"cannot read {error.filename}: {error.strerror}") from None
    except Exception as error:  # a P4Info file that does not parse: protobuf's own errors
        raise PipelineError(f"{p4info_file}: not a P4Info file ({error})") from None
    return Pipeline(p4info, config, pipeline_cookie(p4info, config),
                    f"{json_file} + {p4info_file}")


# p4c picks the P4Info format from the file's suffix, and p4c releases before 1.2.4
# (the packaged ones of Ubuntu 22.04, say) know only .txt, .json and .bin: ".txtpb" is
# refused ("Could not detect p4runtime info file format from file suffix",
# control-plane/p4RuntimeSerializer.cpp, parseFileNames). Releases older still have no
# --p4runtime-files at all, only --p4runtime-file with --p4runtime-format.
P4INFO_NAME = "program.p4info.txt"


def _run_p4c(command: list[str], program: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=P4C_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise PipelineError(f"{P4C_BMV2} {program}: no result after "
                            f"{P4C_TIMEOUT_S} s") from None


def _compile_bmv2(program: Path) -> Pipeline:
    with tempfile.TemporaryDirectory(prefix="mrc-ctl-p4c-") as tmp:
        out, info = Path(tmp) / "program.json", Path(tmp) / P4INFO_NAME
        rest = ["-o", str(out)]
        rest += [arg for d in include_dirs(program) for arg in ("-I", str(d))] + [str(program)]
        done = _run_p4c([P4C_BMV2, "--p4runtime-files", str(info), *rest], program)
        said = (done.stderr or done.stdout).strip().splitlines()
        if done.returncode != 0 and any("p4runtime-files" in line for line in said):
            done = _run_p4c([P4C_BMV2, "--p4runtime-file", str(info),
                             "--p4runtime-format", "text", *rest], program)
            said = (done.stderr or done.stdout).strip().splitlines()
        if done.returncode != 0:
            raise PipelineError(f"{P4C_BMV2} {program} failed: "
                                f"{said[-1] if said else done.returncode}")
        config = out.read_bytes()
        p4info = load_p4info(info)
    return Pipeline(p4info, config, pipeline_cookie(p4info, config),
                    f"{P4C_BMV2} {program}")


class PipelineCache:
    """Pipelines by (target, program, files), each built once, from any thread.

    Every caller gets a P4Info of its own, parsed from the built one's bytes: the pure
    Python protobuf fills a message's field table lazily even when it is only read, so
    one message shared by the supervisors' threads broke a ``CopyFrom`` in another
    ("dictionary changed size during iteration") and left a device unprogrammed."""

    def __init__(self) -> None:
        self._built: dict[tuple[str, str, tuple[str, str] | None],
                          tuple[Pipeline, bytes]] = {}
        self._lock = threading.Lock()

    def get(self, access: DeviceAccess) -> Pipeline:
        key = (access.target, access.program, access.bmv2_files)
        with self._lock:
            if key not in self._built:
                if access.target == "bm":
                    built = build_bm(access.program)
                else:
                    built = build_bmv2(access.program, access.bmv2_files)
                self._built[key] = (built, built.p4info.SerializeToString())
            pipeline, p4info_bytes = self._built[key]
        return replace(pipeline, p4info=p4info_pb2.P4Info.FromString(p4info_bytes))
