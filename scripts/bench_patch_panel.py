#!/usr/bin/env python3
"""Frames/s through the patch panel of ``fabric.procs`` (``fabric/procs/panel.py``).

Two stand-in devices run as processes of their own, each listening on an nn socket as
a bm switch does: a source that sends N frames out of its port 1 as PACKET_OUT
messages (as fast as its socket takes them, many per write), and a sink whose port 1
is cabled to it. The panel runs in this process, dials both and carries every frame
across the cable (a PACKET_OUT of src:1 becomes a PACKET_IN of dst:1). The sink counts
the frames and takes the time from the first to the last; printed: frames/s and
Mbit/s of frame bytes, the panel's CPU time per frame, and whether every frame
arrived (a lost frame is reported, never hidden). The devices cost nothing here, so
this is the panel's own ceiling; a real fabric is bounded by its bm processes.

    python scripts/bench_patch_panel.py                  # 200,000 frames of 128 bytes
    python scripts/bench_patch_panel.py --size 1024 --loss 0.01
    python scripts/bench_patch_panel.py --quick          # short run (smoke test)

Exit status 0 unless frames went missing (beyond those the --loss drops).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import resource
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from behavioral_model.ports.nn import HEADER, MSG_PACKET_IN, MSG_PACKET_OUT  # noqa: E402
from behavioral_model.ports.sp import SPPairListener  # noqa: E402
from fabric.procs import (  # noqa: E402
    CableSpec,
    DeviceSpec,
    Endpoint,
    FabricLayout,
    PatchPanel,
)

BATCH = 256  # messages per write of the source


def run_source(addr: str, frames: int, size: int, done: Connection) -> None:
    """Listen like a device; once the panel connects, send ``frames`` frames out of
    port 1."""
    listener = SPPairListener(addr)
    message = HEADER.pack(MSG_PACKET_OUT, 1, size) + bytes(size)
    batch = [message] * BATCH
    while not listener.connected:
        listener.recv_batch(0.1)
    sent = 0
    while sent < frames:
        n = min(BATCH, frames - sent)
        # the listener buffers what the kernel does not take; wait (and keep its
        # receive side turning, which flushes the buffer) until it takes the batch
        while listener.send_many(batch[:n], 0.05) == 0:
            listener.recv_batch(0)
        sent += n
    while listener.connected and not done.poll():
        listener.recv_batch(0.05)  # flushes what is still buffered
    listener.close()


def run_sink(addr: str, frames: int, results: Connection) -> None:
    """Listen like a device; count PACKET_INs on port 1 until ``frames`` arrived or
    none came for a while; report (count, first, last) arrival times."""
    listener = SPPairListener(addr)
    count, first, last = 0, 0.0, 0.0
    header = HEADER.size
    idle_since = time.monotonic()
    while count < frames:
        msgs = listener.recv_batch(0.1)
        now = time.monotonic()
        if not msgs:
            if count and now - idle_since > 2.0:
                break  # the rest were dropped (--loss) or lost
            continue
        idle_since = now
        for msg in msgs:
            kind, port, _ = HEADER.unpack_from(msg)
            if kind == MSG_PACKET_IN and port == 1 and len(msg) > header:
                if not count:
                    first = now
                count += 1
        last = now
    results.send((count, first, last))
    listener.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--size", type=int, default=128, help="frame bytes (default 128)")
    parser.add_argument("--loss", type=float, default=0.0,
                        help="loss probability on the cable (default 0)")
    parser.add_argument("--quick", action="store_true", help="20,000 frames")
    args = parser.parse_args()
    frames = 20_000 if args.quick else args.frames

    # the sink hangs up once it has counted: the panel would warn that it is gone
    logging.getLogger("fabric.procs.panel").setLevel(logging.ERROR)
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="bench-panel-") as tmp:
        src, dst = f"ipc://{tmp}/src.ipc", f"ipc://{tmp}/dst.ipc"
        layout = FabricLayout(
            "bench",
            (DeviceSpec("src", "bench", 0, "", src, ""),
             DeviceSpec("dst", "bench", 0, "", dst, "")),
            (CableSpec(Endpoint("src", 1), Endpoint("dst", 1)),), ())
        results_r, results_w = ctx.Pipe(duplex=False)
        done_r, done_w = ctx.Pipe(duplex=False)
        sink = ctx.Process(target=run_sink, args=(dst, frames, results_w))
        source = ctx.Process(target=run_source, args=(src, frames, args.size, done_r))
        sink.start()
        source.start()
        panel = PatchPanel(layout, seed=1)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        panel.start(connect_timeout_s=30)
        panel.set_link("src:1", loss=args.loss)
        count, first, last = results_r.recv()
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        done_w.send(True)
        snapshot = panel.snapshot()
        panel.close()
        source.join()
        sink.join()

    link = snapshot["links"][0]["counters"][0]  # type: ignore[index]
    seconds = max(last - first, 1e-9)
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    expected = link["forwarded"]
    print(f"patch panel: {frames:,} frames of {args.size} bytes, loss {args.loss}")
    print(f"  received {count:,} of {expected:,} forwarded "
          f"({link['dropped_loss']:,} dropped by the loss setting)")
    print(f"  {count / seconds:,.0f} frames/s, "
          f"{count * args.size * 8 / seconds / 1e6:,.0f} Mbit/s, "
          f"panel CPU {cpu / max(count, 1) * 1e6:.2f} us/frame")
    if count != expected or expected + link["dropped_loss"] != frames:
        print("  FRAMES LOST", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
