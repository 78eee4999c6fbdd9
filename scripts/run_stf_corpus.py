#!/usr/bin/env python3
"""Run a corpus of P4 programs with STF tests on our target and report the pass rate.

    scripts/run_stf_corpus.py DIR [--jobs N] [--timeout S] [--filter GLOB] [--json OUT]

Every ``X.p4`` in DIR (searched recursively) with a sibling ``X.stf`` is one test: the
program is compiled with ``behavioral_model.program.load_program`` and the STF file is
parsed and run as ``behavioral_model.stf.runner.run_stf_file`` does (in two steps, so a
bad STF file is told apart from a bad program), in a pool of worker processes, each test
with its own time limit. Programs for other architectures (PSA, PNA, eBPF, ...) are
skipped unless ``--all-archs``. Each result is classified as

* ``pass``           the STF run passed;
* ``fail``           the STF run reported mismatches (the first failure is shown);
* ``frontend-error`` the program was rejected with a P4Error (an STF file that does not
                     parse is reported here too, its detail starting "STF file rejected");
* ``unsupported``    the target said a feature is not supported;
* ``crash``          any other exception (type, message and the last stack frame),
                     including internal errors the STF runner caught per command;
* ``timeout``        the test did not finish within the time limit.

The script is a report: it exits 0 whatever the results, 2 only on a usage error.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType

__all__ = [
    "STATUSES",
    "CorpusTest",
    "TestResult",
    "classify_exception",
    "discover",
    "other_architecture",
    "main",
    "run_corpus",
    "run_one",
]

PASS = "pass"
FAIL = "fail"
FRONTEND_ERROR = "frontend-error"
UNSUPPORTED = "unsupported"
CRASH = "crash"
TIMEOUT = "timeout"
#: Every status, in the order the summary lists them.
STATUSES = (PASS, FAIL, FRONTEND_ERROR, UNSUPPORTED, CRASH, TIMEOUT)

#: Phrases by which the target says a feature is missing (rather than the input wrong).
_UNSUPPORTED_MARKERS = ("not supported", "unsupported", "does not support")
#: How the STF runner reports an exception it caught while running one command.
_INTERNAL_ERROR_MARKER = "internal error running this command: "
#: Extra seconds the parent waits beyond --timeout before it kills a stuck worker.
_HARD_TIMEOUT_GRACE = 15.0
_DETAIL_WIDTH = 110
#: Architecture headers of targets other than v1model; their programs are skipped.
OTHER_ARCHITECTURES = frozenset({
    "psa.p4", "pna.p4", "ebpf_model.p4", "ubpf_model.p4", "xdp_model.p4", "tna.p4",
    "t2na.p4", "avr.p4",
})


@dataclass(frozen=True)
class CorpusTest:
    """One program and its STF file; ``name`` is the program's path relative to DIR,
    without the ``.p4``."""

    name: str
    program: str
    stf: str


@dataclass
class TestResult:
    name: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    phase: str = ""  # "compile" or "run": where an error or timeout happened
    failures: list[str] = field(default_factory=list)
    program: str = ""
    stf: str = ""


# -- discovery ----------------------------------------------------------------------------


_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)


def other_architecture(program: Path) -> str | None:
    """The architecture header (e.g. ``psa.p4``) if ``program`` or a local file it
    includes pulls in one of :data:`OTHER_ARCHITECTURES`; None for v1model programs."""
    seen: set[Path] = set()
    todo = [program]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _INCLUDE.finditer(text):
            quote, name = match.groups()
            if Path(name).name in OTHER_ARCHITECTURES:
                return Path(name).name
            if quote == '"' and (path.parent / name).is_file():
                todo.append((path.parent / name).resolve())
    return None


def discover(
    directory: Path, pattern: str | None = None, all_archs: bool = False
) -> tuple[list[CorpusTest], list[tuple[str, str]]]:
    """Every ``X.p4`` under ``directory`` with a sibling ``X.stf``, sorted by name;
    ``pattern`` (a glob) keeps those whose name or file name matches it. Programs for
    another architecture (PSA, eBPF, ...) are left out unless ``all_archs``; they are
    returned second, as (name, architecture header)."""
    tests: list[CorpusTest] = []
    skipped: list[tuple[str, str]] = []
    for program in sorted(directory.rglob("*.p4")):
        stf = program.with_suffix(".stf")
        if not stf.is_file():
            continue
        name = program.relative_to(directory).with_suffix("").as_posix()
        if pattern is not None and not (
            fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(program.name, pattern)
        ):
            continue
        arch = None if all_archs else other_architecture(program)
        if arch is not None:
            skipped.append((name, arch))
            continue
        tests.append(CorpusTest(name, str(program), str(stf)))
    return tests, skipped


# -- one test (runs in a worker process) ---------------------------------------------------


class _Timeout(BaseException):
    """Raised by SIGALRM; a BaseException so that ``except Exception`` in the target
    (the STF runner catches those per command) does not swallow it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def _last_frame(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "no traceback"
    last = frames[-1]
    return f"{_short_path(last.filename)}:{last.lineno} in {last.name}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def classify_exception(error: BaseException) -> tuple[str, str]:
    """(status, detail) for an exception raised while compiling or running a test."""
    from behavioral_model.frontend.errors import P4Error

    if isinstance(error, P4Error):
        text = _one_line(str(error))
        if any(marker in error.message.lower() for marker in _UNSUPPORTED_MARKERS):
            return UNSUPPORTED, text
        return FRONTEND_ERROR, text
    if isinstance(error, NotImplementedError):
        return UNSUPPORTED, _one_line(f"NotImplementedError: {error} at {_last_frame(error)}")
    return CRASH, _one_line(f"{type(error).__name__}: {error} at {_last_frame(error)}")


_TRACEBACK_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _short_path(filename: str) -> str:
    marker = f"{os.sep}behavioral_model{os.sep}"
    if marker in filename:
        return "behavioral_model" + os.sep + filename.split(marker, 1)[1]
    return filename


def _last_logged_frame(log: Sequence[str]) -> str | None:
    """The innermost frame of the first traceback the STF runner logged, if any."""
    for entry in log:
        if "Traceback (most recent call last)" in entry:
            frames = _TRACEBACK_FRAME.findall(entry)
            if frames:
                filename, line, function = frames[-1]
                return f"{_short_path(filename)}:{line} in {function}"
    return None


def _classify_failures(failures: Sequence[str], log: Sequence[str] = ()) -> tuple[str, str]:
    """(status, detail) for an STF run that reported failures; ``log`` is the runner's
    trace, where it writes the traceback of an internal error."""
    for failure in failures:
        if _INTERNAL_ERROR_MARKER in failure:
            detail = _one_line(failure.split(_INTERNAL_ERROR_MARKER, 1)[1])
            frame = _last_logged_frame(log)
            return CRASH, f"{detail} at {frame}" if frame else detail
    for failure in failures:
        if "does not support" in failure or "not supported" in failure:
            return UNSUPPORTED, _one_line(failure)
    return FAIL, _one_line(failures[0])


def run_one(test: CorpusTest, timeout: float) -> TestResult:
    """Compile and run one test; never raises (except KeyboardInterrupt)."""
    from behavioral_model.program import load_program
    from behavioral_model.stf.parse import parse_stf_file
    from behavioral_model.stf.runner import run_stf

    result = TestResult(test.name, CRASH, program=test.program, stf=test.stf)
    start = time.monotonic()
    use_alarm = timeout > 0 and hasattr(signal, "setitimer")
    previous: Callable[..., object] | int | None = None
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    phase = "compile"
    try:
        program = load_program(test.program)
        phase = "stf"  # an STF file that does not parse is a P4Error too
        commands = parse_stf_file(test.stf)
        phase = "run"
        log: list[str] = []
        stf_result = run_stf(program, commands, test.stf, log=log.append)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
        result.failures = list(stf_result.failures)
        if stf_result.passed:
            result.status = PASS
        else:
            result.status, result.detail = _classify_failures(stf_result.failures, log)
    except _Timeout:
        result.status = TIMEOUT
        result.detail = f"no result after {timeout:g} s (while in {phase})"
    except RecursionError as error:
        result.status, result.detail = CRASH, f"RecursionError at {_last_frame(error)}"
    except Exception as error:
        result.status, result.detail = classify_exception(error)
        if phase == "stf":
            result.detail = f"STF file rejected: {result.detail}"
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
    if result.status != PASS:
        result.phase = phase
    result.seconds = round(time.monotonic() - start, 3)
    return result


# -- the pool ------------------------------------------------------------------------------


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's own worker processes (and only those), by pid."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def run_corpus(
    tests: Sequence[CorpusTest],
    jobs: int = 2,
    timeout: float = 60.0,
    progress: Callable[[TestResult, int, int], None] | None = None,
) -> list[TestResult]:
    """Run ``tests`` in ``jobs`` worker processes; results in the order of ``tests``.

    Each worker enforces ``timeout`` itself (SIGALRM). At most ``jobs`` tests are in
    flight, so the parent knows when each started: a test still running
    ``_HARD_TIMEOUT_GRACE`` seconds after its limit (stuck outside Python code) gets its
    workers killed and is reported as a timeout; a worker that dies makes its test a
    crash. Either way the pool is replaced and the remaining tests go on.
    """
    results: dict[int, TestResult] = {}
    pending: list[int] = list(range(len(tests)))
    pending.reverse()  # pop() from the end takes the tests in order
    jobs = max(1, jobs)
    hard_limit = timeout + _HARD_TIMEOUT_GRACE if timeout > 0 else None

    def record(index: int, result: TestResult) -> None:
        results[index] = result
        if progress is not None:
            progress(result, len(results), len(tests))

    while pending:
        pool = ProcessPoolExecutor(max_workers=jobs)
        running: dict[Future[TestResult], tuple[int, float]] = {}
        broken = False
        try:
            while (pending or running) and not broken:
                while pending and len(running) < jobs:
                    index = pending.pop()
                    future = pool.submit(run_one, tests[index], timeout)
                    running[future] = (index, time.monotonic())
                done, _ = wait(list(running), timeout=1.0, return_when=FIRST_COMPLETED)
                for future in done:
                    index, started = running.pop(future)
                    try:
                        record(index, future.result())
                    except BrokenProcessPool:
                        broken = True
                        test = tests[index]
                        record(index, TestResult(
                            test.name, CRASH, "worker process died (killed, out of memory "
                            "or a crash in C code)", round(time.monotonic() - started, 3),
                            program=test.program, stf=test.stf))
                    except Exception as error:  # e.g. a result that cannot be unpickled
                        test = tests[index]
                        record(index, TestResult(
                            test.name, CRASH, f"worker failed: {type(error).__name__}: "
                            f"{error}", program=test.program, stf=test.stf))
                if hard_limit is None or broken:
                    continue
                now = time.monotonic()
                stuck = [f for f, (_, started) in running.items() if now - started > hard_limit]
                if stuck:
                    for future in stuck:
                        index, started = running.pop(future)
                        test = tests[index]
                        record(index, TestResult(
                            test.name, TIMEOUT, f"no result after {timeout:g} s (worker "
                            "did not respond; killed)", round(now - started, 3),
                            program=test.program, stf=test.stf))
                    broken = True
            # Tests that were in flight when the pool broke run again in a new pool.
            for index, _ in running.values():
                if index not in results:
                    pending.append(index)
        finally:
            if broken:
                _kill_workers(pool)
            else:
                pool.shutdown(wait=True)
    return [results[i] for i in range(len(tests))]


# -- reporting -----------------------------------------------------------------------------


def _truncate(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _status_order(result: TestResult) -> tuple[int, str]:
    return (STATUSES.index(result.status), result.name)


def _print_plain(results: Sequence[TestResult], show_passing: bool) -> None:
    rows = [r for r in sorted(results, key=_status_order) if show_passing or r.status != PASS]
    if not rows:
        return
    name_width = min(max(len(r.name) for r in rows), 60)
    status_width = max(len(s) for s in STATUSES)
    print(f"{'test':<{name_width}}  {'status':<{status_width}}  {'secs':>6}  detail")
    print(f"{'-' * name_width}  {'-' * status_width}  {'-' * 6}  {'-' * 6}")
    for r in rows:
        print(f"{_truncate(r.name, name_width):<{name_width}}  {r.status:<{status_width}}  "
              f"{r.seconds:>6.2f}  {_truncate(r.detail, _DETAIL_WIDTH)}")


def _print_rich(results: Sequence[TestResult], show_passing: bool) -> bool:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        return False
    table = Table(title="STF corpus")
    table.add_column("test")
    table.add_column("status")
    table.add_column("secs", justify="right")
    table.add_column("detail", overflow="fold")
    colours = {PASS: "green", FAIL: "red", FRONTEND_ERROR: "yellow", UNSUPPORTED: "blue",
               CRASH: "magenta", TIMEOUT: "cyan"}
    for r in sorted(results, key=_status_order):
        if show_passing or r.status != PASS:
            table.add_row(r.name, f"[{colours[r.status]}]{r.status}", f"{r.seconds:.2f}",
                          _truncate(r.detail, 300))
    Console().print(table)
    return True


def summary_lines(results: Sequence[TestResult]) -> list[str]:
    counts = Counter(r.status for r in results)
    total = len(results)
    lines = [f"{status:<15} {counts.get(status, 0):>5}" for status in STATUSES]
    rate = 100.0 * counts.get(PASS, 0) / total if total else 0.0
    lines.append(f"{'total':<15} {total:>5}")
    lines.append(f"pass rate: {counts.get(PASS, 0)}/{total} = {rate:.1f} %")
    return lines


def _write_json(path: Path, directory: Path, results: Sequence[TestResult],
                timeout: float) -> None:
    counts = Counter(r.status for r in results)
    document = {
        "directory": str(directory),
        "timeout": timeout,
        "total": len(results),
        "counts": {status: counts.get(status, 0) for status in STATUSES},
        "pass_rate": counts.get(PASS, 0) / len(results) if results else 0.0,
        "results": [asdict(r) for r in results],
    }
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


# -- command line --------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0 (0: no limit)")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="run_stf_corpus.py",
        description=(
            "Run every X.p4 in DIR (recursively) that has a sibling X.stf on our P4 target "
            "(behavioral_model) and report pass / fail / frontend-error / unsupported / "
            "crash / timeout per test, with the overall pass rate. DIR is, for example, a "
            "checkout of p4c's testdata/p4_16_samples (or a copy of its *-bmv2.p4 / "
            "*-bmv2.stf pairs plus the headers they include); programs that include "
            "<core.p4> and <v1model.p4> get our own copies. Exit status is 0 whatever the "
            "results (this is a report); 2 on a usage error."
        ),
    )
    parser.add_argument("directory", metavar="DIR", type=Path,
                        help="directory with X.p4 + X.stf pairs, e.g. p4c/testdata/p4_16_samples")
    parser.add_argument("--jobs", "-j", type=_positive_int, default=2,
                        help="worker processes (default: 2)")
    parser.add_argument("--timeout", type=_non_negative_float, default=60.0,
                        help="seconds per test, compile + run (default: 60; 0: no limit)")
    parser.add_argument("--filter", metavar="GLOB",
                        help="only tests whose name (path relative to DIR without .p4) or "
                        "file name matches GLOB, e.g. 'gauntlet_*' or '*-bmv2*'")
    parser.add_argument("--json", metavar="OUT", type=Path,
                        help="write per-test results (status, detail, failures, time) as JSON")
    parser.add_argument("--all-archs", action="store_true",
                        help="also run programs that include another architecture's header "
                        "(psa.p4, pna.p4, ebpf_model.p4, ...); skipped by default")
    parser.add_argument("--failures-only", action="store_true",
                        help="leave passing tests out of the table")
    parser.add_argument("--plain", action="store_true",
                        help="plain-text table even when rich is installed")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress lines while running")
    return parser


def _progress_printer(quiet: bool) -> Callable[[TestResult, int, int], None] | None:
    if quiet:
        return None

    def show(result: TestResult, done: int, total: int) -> None:
        print(f"[{done}/{total}] {result.status:<14} {result.name} ({result.seconds:.1f} s)",
              file=sys.stderr, flush=True)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    directory: Path = args.directory
    if not directory.is_dir():
        parser.error(f"{directory}: not a directory")
    tests, skipped = discover(directory, args.filter, args.all_archs)
    if skipped:
        archs = Counter(arch for _, arch in skipped)
        listed = ", ".join(f"{n} {a}" for a, n in sorted(archs.items()))
        print(f"skipped {len(skipped)} programs for other architectures ({listed}); "
              "--all-archs runs them too", file=sys.stderr)
    if not tests:
        what = f" matching {args.filter!r}" if args.filter else ""
        print(f"no X.p4 with a sibling X.stf{what} in {directory}")
        if args.json:
            _write_json(args.json, directory, [], args.timeout)
        return 0
    print(f"running {len(tests)} tests from {directory} with {args.jobs} jobs, "
          f"timeout {args.timeout:g} s", file=sys.stderr, flush=True)
    started = time.monotonic()
    results = run_corpus(tests, args.jobs, args.timeout, _progress_printer(args.quiet))
    elapsed = time.monotonic() - started
    show_passing = not args.failures_only
    if args.plain or not _print_rich(results, show_passing):
        _print_plain(results, show_passing)
    print()
    for line in summary_lines(results):
        print(line)
    print(f"wall time: {elapsed:.1f} s")
    if args.json:
        _write_json(args.json, directory, results, args.timeout)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
