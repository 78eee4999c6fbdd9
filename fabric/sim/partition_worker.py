"""A switch process of a partitioned run (``fabric.sim.partition``):

    python -m fabric.sim.partition_worker FD

FD is its end of a socket pair with the first process, which sends the ``Setup``, asks
it to prepare the run before starting its clock (``Workers.prepare``), then sends a
window at a time. It serves its devices' P4Runtime (the controller in the first
process programs them), runs each window and sends back what crossed to other
processes, until told to finish; then it sends what it counted. Released, it waits
for the next run's ``Setup`` (the first process keeps it for its next partitioned
run); it exits when the first process closes its end.
"""

from __future__ import annotations

import gc
import sys
import time
import traceback

from .link import Remote
from .network import Network
from .partition import Setup, counters, remote_channels
from .spin import Spinner
from .wire import Wire

GC_YOUNG_THRESHOLD = 50_000  # as fabric.runner's, for the same reason


def serve(conn: Wire, setup: Setup) -> bool:
    """One run: serve this process's devices' P4Runtime, run the windows it is given
    until told to finish, send what it counted. True if the first process then
    released it for another run (``Workers.close``)."""
    network = Network(setup.plan, setup.config, setup.transport, setup.owned)
    outbox: list[Remote] = []
    remote_channels(network, outbox)
    env = network.env
    thresholds = gc.get_threshold()
    released = False
    try:
        network.start_servers()
        conn.send(("ready", None))
        message = conn.recv()
        if message[0] == "prepare":  # before the first window (Workers.prepare)
            setup.prepare(network)
            gc.collect()
            gc.freeze()
            gc.set_threshold(GC_YOUNG_THRESHOLD, *thresholds[1:])
            conn.send(("prepared", None))
            message = conn.recv()
        cpu = time.thread_time()
        channels = network.channels
        spinner = Spinner(setup.spin_s)
        while message[0] == "run":
            _, until, inbox = message
            for at, sent, key, index, kind, payload in inbox:
                if at < env.now:
                    raise RuntimeError(f"a frame due at {at} us reached a process "
                                       f"already at {env.now} us")
                channels[index].deliver(at, sent, key, kind, payload)
            env.run_window(until)
            conn.send(("ran", (outbox[:], env.next_time())))
            outbox.clear()
            spinner.wait(conn)
            message = conn.recv()
        conn.send(("counters", {**counters(network), "sim_cpu_s": time.thread_time() - cpu}))
        # the controller has let go of this process's servers: they may stop
        released = conn.recv()[0] == "release"
    except (EOFError, OSError, KeyboardInterrupt):
        pass  # the first process is gone: nothing to report to
    except Exception:  # noqa: BLE001 - a bug: told to the first process, which says so
        conn.send(("error", traceback.format_exc()))
    finally:
        network.stop_servers()
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    if released:
        conn.send(("released", None))
    return released


def main(argv: list[str]) -> int:
    conn = Wire.from_fd(int(argv[0]))
    with conn:
        while True:
            try:
                setup = conn.recv()
            except (EOFError, OSError, KeyboardInterrupt):
                return 0
            if not serve(conn, setup):
                return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
