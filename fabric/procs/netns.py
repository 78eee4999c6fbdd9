"""The few ``ip`` and ``tc`` commands the veth wiring needs (iproute2; root), and a raw
socket opened inside a network namespace. Every failure is a ``NetnsError`` whose
message says which command failed and what it printed."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["NetnsError", "missing_tools", "run_ip", "ip_batch", "namespace_exists",
           "interface_exists", "delete_interface", "delete_namespace", "set_netem",
           "qdisc_drops", "interface_counters", "in_namespace", "disable_ipv6"]

CLONE_NEWNET = 0x40000000
NETNS_DIR = Path("/run/netns")
COMMAND_TIMEOUT_S = 30.0

T = TypeVar("T")


class NetnsError(RuntimeError):
    """An ``ip``/``tc`` command failed, or the tools are missing."""


def missing_tools(tools: Sequence[str] = ("ip", "tc")) -> list[str]:
    """The tools of ``tools`` that are not on PATH."""
    return [tool for tool in tools if shutil.which(tool) is None]


def _run(command: list[str], stdin: str | None = None) -> str:
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise NetnsError(f"{command[0]} is not installed (iproute2)") from None
    except subprocess.TimeoutExpired:
        raise NetnsError(f"'{' '.join(command)}' did not finish in "
                         f"{COMMAND_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().replace("\n", "; ")
        raise NetnsError(f"'{' '.join(command)}' failed: {said}")
    return done.stdout


def run_ip(*args: str, namespace: str | None = None) -> str:
    """``ip [-n NS] ARGS``; its output."""
    return _run(["ip", *(["-n", namespace] if namespace else []), *args])


def ip_batch(lines: Sequence[str], namespace: str | None = None) -> None:
    """Many ``ip`` commands in one process (``ip -batch -``): creating a fabric's dozens
    of veths one process each would take seconds."""
    if lines:
        _run(["ip", *(["-n", namespace] if namespace else []), "-batch", "-"],
             "\n".join(lines) + "\n")


def namespace_exists(name: str) -> bool:
    return (NETNS_DIR / name).exists()


def interface_exists(name: str) -> bool:
    """Whether interface ``name`` exists in this (the root) namespace."""
    return Path("/sys/class/net", name).exists()


def delete_interface(name: str) -> None:
    """Delete a veth end (its peer goes with it); nothing if it is gone already."""
    if interface_exists(name):
        try:
            run_ip("link", "del", name)
        except NetnsError:
            if interface_exists(name):  # not merely removed with its peer meanwhile
                raise


def delete_namespace(name: str) -> None:
    """Delete a namespace; the interfaces in it, and so their veth peers, go with it."""
    if namespace_exists(name):
        run_ip("netns", "del", name)


def disable_ipv6(interface: str) -> None:
    """Keep the kernel quiet on a root-namespace veth end (no router solicitations, MLD
    or DAD frames into the switches): only the devices' frames cross the fabric."""
    try:
        Path(f"/proc/sys/net/ipv6/conf/{interface}/disable_ipv6").write_text("1\n")
    except FileNotFoundError:
        pass  # a kernel without IPv6 sends none of them anyway


def set_netem(interface: str, loss: float, namespace: str | None = None) -> None:
    """Drop each frame sent out of ``interface`` with probability ``loss`` (netem);
    0 removes the qdisc."""
    prefix = ["tc", *(["-n", namespace] if namespace else [])]
    if loss > 0:
        try:
            _run([*prefix, "qdisc", "replace", "dev", interface, "root", "netem", "loss",
                  f"{loss * 100:.6f}%"])
        except NetnsError as error:
            if "qdisc kind is unknown" in str(error):
                raise NetnsError("this kernel has no netem qdisc (sch_netem), so the veth "
                                 "wiring cannot drop frames; 'down' and 'up' still work, "
                                 "and the nn wiring does loss on its own") from None
            raise
        return
    try:
        _run([*prefix, "qdisc", "del", "dev", interface, "root"])
    except NetnsError as error:
        if "No such file" not in str(error) and "Cannot delete qdisc" not in str(error):
            raise


def qdisc_drops(interface: str) -> int:
    """Frames the root qdisc of ``interface`` dropped (netem's losses)."""
    try:
        data: list[dict[str, Any]] = json.loads(
            _run(["tc", "-s", "-j", "qdisc", "show", "dev", interface, "root"]) or "[]")
    except (NetnsError, ValueError):
        return 0
    return sum(int(q.get("drops", 0)) for q in data if q.get("kind") == "netem")


def interface_counters(interface: str) -> dict[str, int]:
    """``rx_packets``, ``tx_packets``, ``tx_dropped`` of a root-namespace interface
    (zeros once it is gone)."""
    base = Path("/sys/class/net", interface, "statistics")
    counters = {}
    for name in ("rx_packets", "tx_packets", "tx_dropped"):
        try:
            counters[name] = int((base / name).read_text())
        except (OSError, ValueError):
            counters[name] = 0
    return counters


def in_namespace(namespace: str, make: Callable[[], T]) -> T:
    """``make()`` called in network namespace ``namespace``: what it creates (a socket)
    stays there. It runs in a thread of its own, as setns moves only the calling
    thread; the thread ends with it, so no other thread ever changes namespace."""
    result: list[T] = []
    failure: list[BaseException] = []

    def enter_and_make() -> None:
        try:
            fd = os.open(NETNS_DIR / namespace, os.O_RDONLY)
        except OSError as error:
            failure.append(NetnsError(f"no network namespace {namespace}: {error.strerror}"))
            return
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, CLONE_NEWNET) != 0:
                errno = ctypes.get_errno()
                failure.append(NetnsError(f"cannot enter namespace {namespace}: "
                                          f"{os.strerror(errno)}"))
                return
            result.append(make())
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)
        finally:
            os.close(fd)

    thread = threading.Thread(target=enter_and_make, name=f"netns-{namespace}")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]

