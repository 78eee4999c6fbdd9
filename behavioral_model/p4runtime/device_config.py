"""The ``p4_device_config`` of our target: a P4 *source bundle*.

BMv2 takes the JSON that ``p4c-bm2-ss`` writes; our target compiles P4 itself, so a
``ForwardingPipelineConfig`` carries the program's source. Format ``mrc-bm-p4src/1``
is one UTF-8 JSON object::

    {
      "format": "mrc-bm-p4src/1",
      "main": "srv6_switch.p4",                       # path of the top-level file
      "files": {                                       # every local file it needs
        "srv6_switch.p4": "#include <headers.p4>\\n...",
        "include/headers.p4": "..."
      },
      "include_dirs": ["include"],                     # -I folders, inside the bundle
      "defines": {"V1MODEL_VERSION": "20200408"}       # -D NAME=VALUE (optional)
    }

Paths are relative, ``/``-separated and stay inside the bundle. ``core.p4`` and
``v1model.p4`` are built into the target and never bundled. ``make_bundle`` builds
one from a file on disk (what ``scripts/`` and controllers use); ``load_bundle``
compiles one. For convenience a bare P4 source file (UTF-8 text that is not JSON) is
accepted as a one-file bundle, so ``p4runtime-shell --config x.p4info.txtpb,x.p4``
works for programs without local includes.

A BMv2 JSON given by mistake is recognized and refused with a message saying so.
"""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import BUILTIN_INCLUDE_DIR, preprocess
from behavioral_model.pipeline import native
from behavioral_model.program import P4Program, load_program

from .errors import P4RTError, invalid

__all__ = ["BUNDLE_FORMAT", "make_bundle", "bundle_from_text", "load_bundle",
           "parse_bundle", "Bundle"]

BUNDLE_FORMAT = "mrc-bm-p4src/1"
_DOC = "behavioral_model/p4runtime/device_config.py"


class Bundle(dict):  # type: ignore[type-arg]
    """A parsed bundle (the JSON object), validated by :func:`parse_bundle`."""


def make_bundle(path: str | Path, include_dirs: Sequence[str | Path] = (),
                defines: Mapping[str, str] | None = None) -> bytes:
    """Bundle the P4 file ``path`` with every local file it includes.

    The program is preprocessed once to find the files it really uses; raises
    ``P4Error`` (e.g. a missing include) like ``load_program`` would.
    """
    main = Path(path).resolve()
    source = preprocess(main, include_dirs, defines)
    builtin = BUILTIN_INCLUDE_DIR.resolve()
    used = {main}
    for file, _ in source.line_map:
        p = Path(file).resolve()
        if p.is_file() and builtin not in p.parents:
            used.add(p)
    dirs = [Path(d).resolve() for d in include_dirs]
    dirs = [d for d in dirs if any(d in f.parents for f in used)]
    root = Path(_common_root([main.parent, *dirs, *(f.parent for f in used)]))
    files = {f.relative_to(root).as_posix(): f.read_text(encoding="utf-8")
             for f in sorted(used)}
    bundle = {
        "format": BUNDLE_FORMAT,
        "main": main.relative_to(root).as_posix(),
        "files": files,
        "include_dirs": [d.relative_to(root).as_posix() or "." for d in dirs],
        "defines": dict(defines or {}),
    }
    return json.dumps(bundle, indent=1, sort_keys=True).encode("utf-8")


def bundle_from_text(text: str, name: str = "main.p4",
                     defines: Mapping[str, str] | None = None) -> bytes:
    """A one-file bundle from source text (no local includes)."""
    return json.dumps({"format": BUNDLE_FORMAT, "main": name, "files": {name: text},
                       "include_dirs": [], "defines": dict(defines or {})}).encode()


def _common_root(paths: Sequence[Path]) -> str:
    import os

    return os.path.commonpath([str(p) for p in paths])


def _is_bmv2_json(obj: Any) -> bool:
    return isinstance(obj, dict) and ("header_types" in obj or "__meta__" in obj
                                      or "pipelines" in obj)


def parse_bundle(data: bytes) -> Bundle:
    """Decode and validate a device config; raises P4RTError(INVALID_ARGUMENT)."""
    if not data:
        raise invalid("empty p4_device_config: expected a P4 source bundle "
                      f"(format {BUNDLE_FORMAT}, see {_DOC})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid("p4_device_config is not UTF-8: this target takes a P4 source "
                      f"bundle (format {BUNDLE_FORMAT}, see {_DOC})") from None
    if not text.lstrip().startswith("{"):
        return Bundle(format=BUNDLE_FORMAT, main="main.p4", files={"main.p4": text},
                      include_dirs=[], defines={})
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise invalid(f"p4_device_config is not valid JSON ({err}); expected a P4 source "
                      f"bundle (format {BUNDLE_FORMAT}, see {_DOC})") from None
    if _is_bmv2_json(obj):
        raise invalid("this is a BMv2 JSON (p4c-bm2-ss output); this target takes a P4 "
                      f"source bundle instead (format {BUNDLE_FORMAT}, see {_DOC}; build "
                      "one with behavioral_model.p4runtime.device_config.make_bundle)")
    if not isinstance(obj, dict) or obj.get("format") != BUNDLE_FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else type(obj).__name__
        raise invalid(f"p4_device_config: unknown format {got!r}; expected a P4 source "
                      f"bundle with \"format\": \"{BUNDLE_FORMAT}\" (see {_DOC})")
    files, main = obj.get("files"), obj.get("main")
    if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise invalid("P4 source bundle: \"files\" must map relative paths to text")
    if not isinstance(main, str) or main not in files:
        raise invalid(f"P4 source bundle: \"main\" ({main!r}) must name one of the files")
    dirs = obj.get("include_dirs", [])
    defines = obj.get("defines", {})
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise invalid("P4 source bundle: \"include_dirs\" must be a list of paths")
    if not isinstance(defines, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in defines.items()):
        raise invalid("P4 source bundle: \"defines\" must map names to strings")
    for p in [*files, *dirs]:
        _check_relative(p)
    return Bundle(format=BUNDLE_FORMAT, main=main, files=files, include_dirs=dirs,
                  defines=defines)


def _check_relative(path: str) -> None:
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or "\\" in path or not path:
        raise invalid(f"P4 source bundle: path {path!r} must be relative and stay "
                      "inside the bundle")


def load_bundle(data: bytes) -> P4Program:
    """Compile a device config; P4RTError(INVALID_ARGUMENT) with the compiler's message
    (``file:line:col: message``, paths relative to the bundle) if it does not compile.

    The same bytes give the same (shared) program: devices made from one P4Program
    share its compiled code and each get their own state, so a process serving many
    devices of one program (the fabric simulator) compiles it once, not per device
    (once per setting of the C header codec, pipeline/native.py)."""
    return _load_bundle(data, native.codec_class() is not None)


@functools.lru_cache(maxsize=8)
def _load_bundle(data: bytes, _with_codec: bool) -> P4Program:
    bundle = parse_bundle(data)
    with tempfile.TemporaryDirectory(prefix="mrc-bm-bundle-") as tmp:
        root = Path(tmp)
        for rel, text in bundle["files"].items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        dirs = [root / d for d in bundle["include_dirs"]]
        for d in dirs:
            d.mkdir(parents=True, exist_ok=True)
        try:
            return load_program(root / bundle["main"], dirs, bundle["defines"])
        except P4Error as err:
            raise invalid(str(err).replace(f"{root}/", "")) from None
        except P4RTError:
            raise
        except (RecursionError, ValueError, KeyError, TypeError, AttributeError) as err:
            raise invalid(f"the P4 program could not be compiled: "
                          f"{type(err).__name__}: {err}".replace(f"{root}/", "")) from None
