"""A blocking loop for real ports: wait for frames or the next timer, whichever comes
first, until a condition holds. Simulators drive the endpoint themselves instead."""

from __future__ import annotations

from collections.abc import Callable

from .endpoint import Endpoint

__all__ = ["run_until"]

MAX_WAIT_S = 0.1  # how often ``done`` is checked while nothing happens


def run_until(endpoint: Endpoint, done: Callable[[], bool],
              timeout_s: float | None = None) -> bool:
    """Poll ``endpoint.port`` and run ``endpoint``'s timers until ``done()`` is true
    (returns True) or ``timeout_s`` seconds of the endpoint's clock pass (False)."""
    clock = endpoint.clock
    port = endpoint.port
    port.set_receiver(endpoint.handle_frame)
    give_up = None if timeout_s is None else clock.now() + timeout_s
    while not done():
        now = clock.now()
        if give_up is not None and now >= give_up:
            return False
        wait = MAX_WAIT_S if give_up is None else min(MAX_WAIT_S, give_up - now)
        deadline = endpoint.next_deadline()
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - now))
        port.poll(wait)
        deadline = endpoint.next_deadline()
        if deadline is not None and clock.now() >= deadline:
            endpoint.on_timer()
    return True
