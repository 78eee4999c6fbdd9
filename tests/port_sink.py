"""A port backend for SwitchCore tests that keeps, in order, what the switch sends."""

from __future__ import annotations

import queue


class Sink:
    """A port backend that keeps what it is asked to send."""

    def __init__(self) -> None:
        self.sent: queue.Queue[tuple[int, bytes]] = queue.Queue()

    def start(self, deliver) -> None:
        pass

    def owns(self, port: int) -> bool:
        return True

    def port_info(self) -> dict:
        return {}

    def transmit(self, port: int, data: bytes) -> None:
        self.sent.put((port, data))

    def close(self) -> None:
        pass

    def get(self, timeout: float = 3.0) -> tuple[int, bytes]:
        """The next ``(port, frame)`` sent; queue.Empty after ``timeout`` seconds."""
        return self.sent.get(timeout=timeout)
