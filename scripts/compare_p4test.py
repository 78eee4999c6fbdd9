#!/usr/bin/env python3
"""Compare bm's front end with p4c's ``p4test`` on a corpus of P4_16 programs.

    scripts/compare_p4test.py DIR... [--p4test PATH] [--jobs N] [--timeout S]
                              [--cache FILE] [--filter GLOB] [--json OUT]

Each DIR is a p4c source tree (its ``testdata/p4_16_samples`` and
``testdata/p4_16_errors`` are used in place) or a folder of ``.p4`` programs; the
``.p4`` files at its top level are the corpus, as in p4c's own p4test suites. Only
programs whose angle-bracket includes, followed through their quoted local includes,
are all among core.p4, v1model.p4 and pna.p4 are compared (programs that include
nothing count too): those are the architectures bm has.

For every program, ``p4test --maxErrorCount 100 PROG`` (as p4c's test driver runs it,
with P4C_16_INCLUDE_PATH set to the p4include folder beside p4test) and bm's front end
(preprocess, parse, type-check, in-process in a pool of workers, each program with a
time limit) give a verdict: accept or reject. ``__TARGET_BMV2__``, which bm defines
as p4c's BMv2 back ends do, is left undefined, as p4test leaves it. p4test's verdicts
are cached by p4test version and program text, so a re-run only runs bm.

Prints the agreement figure and every disagreement (program, which side accepts, the
first error line of the side that rejects). Exit status: 0 when every program agrees,
1 when some disagree, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from multiprocessing import Pool
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

__all__ = ["Verdict", "Program", "select_programs", "find_p4test", "run_p4test", "run_bm",
           "main"]

#: The architecture headers whose programs bm can check.
ARCH_HEADERS = frozenset({"core.p4", "v1model.p4", "pna.p4"})
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "mrc-p4-p4test-verdicts.json"
_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
_ERROR_RE = re.compile(r"\berror\b|syntax error", re.IGNORECASE)
_P4TEST_TIMEOUT = 600.0
_TIMED_OUT = "p4test timed out"
_DETAIL_WIDTH = 120


@dataclass(frozen=True)
class Verdict:
    """One side's verdict on a program: accepted, or rejected with its first error."""

    accepts: bool
    error: str = ""


@dataclass(frozen=True)
class Program:
    """A program of the corpus; ``digest`` covers its text and its local includes."""

    path: Path
    digest: str


class UsageError(Exception):
    """A bad argument: the script prints it on one line and exits 2."""


# -- the corpus ---------------------------------------------------------------------
def _corpus_dirs(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such directory")
    testdata = directory / "testdata"
    if (testdata / "p4_16_samples").is_dir():
        return [d for d in (testdata / "p4_16_samples", testdata / "p4_16_errors") if d.is_dir()]
    return [directory]


def _scan(path: Path) -> tuple[set[str], str] | None:
    """The system headers ``path`` includes (through its local includes) and a digest
    of the text read, or None if a file cannot be read."""
    headers: set[str] = set()
    digest = hashlib.sha256()
    todo, seen = [path], set()
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        try:
            data = file.read_bytes()
        except OSError:
            return None
        digest.update(data)
        for kind, name in _INCLUDE_RE.findall(data.decode("utf-8", "replace")):
            local = file.parent / name
            if kind == '"' and local.is_file():
                todo.append(local.resolve())
            else:
                headers.add(name)  # <dpdk/pna.p4> is not <pna.p4>
    return headers, digest.hexdigest()


def select_programs(dirs: Sequence[Path], pattern: str = "*") -> list[Program]:
    """The top-level ``.p4`` programs of ``dirs`` that include only :data:`ARCH_HEADERS`."""
    programs = []
    for directory in dirs:
        for path in sorted(directory.glob("*.p4")):
            if not fnmatch.fnmatch(path.name, pattern):
                continue
            scanned = _scan(path.resolve())
            if scanned is not None and scanned[0] <= ARCH_HEADERS:
                programs.append(Program(path, scanned[1]))
    return programs


# -- p4test -------------------------------------------------------------------------
def find_p4test(explicit: str | None) -> Path:
    """p4test from ``--p4test``, PATH, ``$P4TOOLS`` (its bin/ or itself) or
    /opt/p4tools/bin; UsageError naming p4test if there is none."""
    if explicit:
        if not Path(explicit).is_file():
            raise UsageError(f"--p4test {explicit}: no such file")
        return Path(explicit)
    candidates = [shutil.which("p4test")]
    tools = os.environ.get("P4TOOLS")
    if tools:
        candidates += [str(Path(tools) / "bin" / "p4test"), str(Path(tools) / "p4test")]
    candidates.append("/opt/p4tools/bin/p4test")
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise UsageError("p4test not found: put p4c's p4test on PATH, set $P4TOOLS, install it "
                     "in /opt/p4tools/bin, or pass --p4test PATH")


def _p4test_env(p4test: Path) -> dict[str, str]:
    env = dict(os.environ)
    include = p4test.resolve().parent.parent / "share" / "p4c" / "p4include"
    if include.is_dir():
        env["P4C_16_INCLUDE_PATH"] = str(include)
    return env


def p4test_version(p4test: Path) -> str:
    try:
        done = subprocess.run([str(p4test), "--version"], capture_output=True, text=True,
                              env=_p4test_env(p4test), timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"{p4test}: does not run ({error})") from None
    return " ".join(done.stdout.split()) or str(p4test)


def _first_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if _ERROR_RE.search(line):
            return line
    return lines[0] if lines else ""


def run_p4test(p4test: Path, program: Path) -> Verdict:
    """p4test's verdict on ``program``, run as p4c's test driver runs it."""
    try:
        done = subprocess.run(
            [str(p4test), "--maxErrorCount", "100", str(program)], capture_output=True,
            text=True, errors="replace", env=_p4test_env(p4test), timeout=_P4TEST_TIMEOUT,
            cwd=tempfile.gettempdir(), check=False)
    except subprocess.TimeoutExpired:
        return Verdict(False, f"{_TIMED_OUT} after {_P4TEST_TIMEOUT:.0f} s")
    if done.returncode == 0:
        return Verdict(True)
    return Verdict(False, _first_error(done.stderr + done.stdout)
                   or f"p4test exit status {done.returncode}")


def _p4test_verdicts(p4test: Path, programs: Sequence[Program], cache_file: Path | None,
                     jobs: int) -> dict[Program, Verdict]:
    version = p4test_version(p4test)
    cache: dict[str, dict[str, object]] = {}
    if cache_file is not None and cache_file.is_file():
        try:
            cache = json.loads(cache_file.read_text())
        except (OSError, ValueError):
            cache = {}
    key = {p: f"{version}|{p.path.name}|{p.digest}" for p in programs}
    verdicts = {p: Verdict(bool(cache[key[p]]["accepts"]), str(cache[key[p]]["error"]))
                for p in programs if key[p] in cache}
    todo = [p for p in programs if p not in verdicts]
    if todo:
        print(f"running p4test on {len(todo)} programs ...", file=sys.stderr)
        with Pool(jobs) as pool:
            results = pool.starmap(run_p4test, [(p4test, p.path) for p in todo], chunksize=1)
        for program, verdict in zip(todo, results, strict=True):
            verdicts[program] = verdict
            # A loaded machine may slow p4test down: a time-out is asked again next time.
            if not verdict.error.startswith(_TIMED_OUT):
                cache[key[program]] = asdict(verdict)
        if cache_file is not None:
            cache_file.write_text(json.dumps(cache, indent=0, sort_keys=True))
    return verdicts


# -- bm -----------------------------------------------------------------------------
class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def _bm_worker_init() -> None:
    logging.getLogger("behavioral_model").setLevel(logging.CRITICAL)
    signal.signal(signal.SIGALRM, _alarm)


def run_bm(program: Path, timeout: float) -> Verdict:
    """bm's front end's verdict on ``program`` (as ``check`` gives it, without
    ``__TARGET_BMV2__``), within ``timeout`` seconds."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.frontend.preprocess import preprocess
    from behavioral_model.program import check_source

    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        check_source(preprocess(program, (), {"__TARGET_BMV2__": None}))
        return Verdict(True)
    except P4Error as error:
        return Verdict(False, str(error).splitlines()[0] if str(error) else "P4Error")
    except RecursionError:
        return Verdict(False, "program is nested too deeply")
    except _Timeout:
        return Verdict(False, f"bm timed out after {timeout:g} s")
    except Exception as error:  # noqa: BLE001 - a crash is a verdict to report
        return Verdict(False, f"bm crashed: {type(error).__name__}: {error}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _bm_verdicts(programs: Sequence[Program], jobs: int, timeout: float
                 ) -> dict[Program, Verdict]:
    with Pool(jobs, initializer=_bm_worker_init, maxtasksperchild=200) as pool:
        results = pool.starmap(run_bm, [(p.path, timeout) for p in programs], chunksize=4)
    return dict(zip(programs, results, strict=True))


# -- report -------------------------------------------------------------------------
def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_WIDTH else text[:_DETAIL_WIDTH - 3] + "..."


def _report(programs: Sequence[Program], p4c: dict[Program, Verdict],
            bm: dict[Program, Verdict]) -> list[dict[str, object]]:
    differ = [p for p in programs if p4c[p].accepts != bm[p].accepts]
    bm_accepts = [p for p in differ if bm[p].accepts]
    bm_rejects = [p for p in differ if not bm[p].accepts]
    agree = len(programs) - len(differ)
    share = 100.0 * agree / len(programs) if programs else 100.0
    print(f"bm rejects, p4test accepts ({len(bm_rejects)}):")
    for p in bm_rejects:
        print(f"  {p.path.parent.name}/{p.path.name}: bm: {_short(bm[p].error)}")
    print(f"bm accepts, p4test rejects ({len(bm_accepts)}):")
    for p in bm_accepts:
        print(f"  {p.path.parent.name}/{p.path.name}: p4test: {_short(p4c[p].error)}")
    print(f"agreement: {agree}/{len(programs)} programs ({share:.1f} %); bm accepts "
          f"{len(bm_accepts)} that p4test rejects, rejects {len(bm_rejects)} that it accepts")
    return [{"program": str(p.path), "p4test": asdict(p4c[p]), "bm": asdict(bm[p])}
            for p in differ]


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Check every core/v1model/PNA program of a p4c checkout (its "
        "testdata/p4_16_samples and p4_16_errors, used in place) with p4c's p4test and "
        "with bm's front end, and print the agreement figure and each program on which "
        "they disagree. Example: scripts/compare_p4test.py /tmp/p4c --jobs 2",
    )
    parser.add_argument("dirs", metavar="DIR", nargs="+", type=Path,
                        help="a p4c source tree, or a folder of .p4 programs")
    parser.add_argument("--p4test", help="p4test to use (default: PATH, $P4TOOLS, "
                        "/opt/p4tools/bin)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per CPU)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds bm may take per program (default 60)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"JSON file of p4test's verdicts (default {DEFAULT_CACHE})")
    parser.add_argument("--no-cache", action="store_true", help="run p4test on every program")
    parser.add_argument("--filter", default="*", metavar="GLOB",
                        help="only programs whose file name matches GLOB")
    parser.add_argument("--json", type=Path, metavar="OUT",
                        help="also write the disagreements to OUT as JSON")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


def _dirs(given: Iterable[Path]) -> list[Path]:
    return [d for directory in given for d in _corpus_dirs(directory)]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        p4test = find_p4test(args.p4test)
        programs = select_programs(_dirs(args.dirs), args.filter)
        if not programs:
            raise UsageError("no core/v1model/PNA programs in " +
                             ", ".join(str(d) for d in args.dirs))
        cache = None if args.no_cache else args.cache
        p4c = _p4test_verdicts(p4test, programs, cache, args.jobs)
    except UsageError as error:
        print(f"compare_p4test: {error}", file=sys.stderr)
        return 2
    bm = _bm_verdicts(programs, args.jobs, args.timeout)
    differ = _report(programs, p4c, bm)
    if args.json is not None:
        args.json.write_text(json.dumps(differ, indent=1))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
