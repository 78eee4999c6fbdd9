"""The packet commands of STF and the bookkeeping that checks expected output.

``packet`` sends a packet through the device at once and queues what comes out per
output port; ``expect`` adds an expectation for a port.  At each checkpoint (``wait``,
``no_packet`` and the end of the file) the n-th expectation of a port is compared with
the n-th packet that came out of it, whatever the order of the ``packet`` and
``expect`` lines (see ``runner`` for the full semantics).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from behavioral_model.stf import commands as cmd
from behavioral_model.stf.expected_packet import ExpectedPacket
from behavioral_model.stf.run_context import RunContext

__all__ = ["PacketExpectations"]


@dataclass
class _Output:
    data: bytes
    sent_line: int
    sent_port: int


@dataclass
class _PortLog:
    expected: list[cmd.ExpectPacket] = field(default_factory=list)
    received: list[_Output] = field(default_factory=list)
    compared: int = 0  # leading (expected, received) pairs already compared
    any_packets: bool = False


def _hex(data: bytes) -> str:
    return data.hex(" ") if data else "(empty)"


class PacketExpectations:
    """Sends packets, and matches output to expectations per observed port."""

    def __init__(self, ctx: RunContext, strict_ports: bool) -> None:
        self.ctx = ctx
        self.strict_ports = strict_ports
        self.ports: dict[int, _PortLog] = {}
        self.unobserved: list[tuple[int, _Output]] = []
        self.clock_us = 0

    def handlers(self) -> dict[type, Callable[[Any], None]]:
        return {
            cmd.SendPacket: self._packet,
            cmd.ExpectPacket: self._expect,
            cmd.ExpectNoPacket: self._no_packet,
            cmd.Wait: self._wait,
        }

    def observe(self, port: int) -> None:
        """Check the output of ``port`` (named by some ``packet`` or ``expect`` line)."""
        self.ports.setdefault(port, _PortLog())

    def finish(self) -> None:
        """The final checkpoint, at the end of the file."""
        self._checkpoint(final=True)
        self._report_unobserved()

    def _packet(self, c: cmd.SendPacket) -> None:
        self.ctx.result.counts.packets_sent += 1
        now = self.clock_us
        self.clock_us += 1
        self.ctx.device.log_messages.clear()
        self.ctx.log(f"packet in on port {c.port}: {_hex(c.data)}")
        try:
            outputs = self.ctx.device.process(c.data, c.port, now_us=now)
        finally:
            for message in self.ctx.device.log_messages:
                self.ctx.log(f"log_msg: {message}")
        if not outputs:
            self.ctx.log("no packet out")
        for out in outputs:
            self.ctx.result.counts.packets_received += 1
            record = _Output(bytes(out.data), c.line, c.port)
            self.ctx.log(f"packet out on port {out.port}: {_hex(record.data)}")
            port_log = self.ports.get(out.port)
            if port_log is None:
                self.unobserved.append((out.port, record))
            else:
                port_log.received.append(record)

    def _expect(self, c: cmd.ExpectPacket) -> None:
        port_log = self.ports.setdefault(c.port, _PortLog())
        if c.expected is None:
            port_log.any_packets = True
            return
        self.ctx.result.counts.packets_expected += 1
        port_log.expected.append(c)

    def _wait(self, c: cmd.Wait) -> None:
        self._checkpoint(final=False)

    def _no_packet(self, c: cmd.ExpectNoPacket) -> None:
        self._checkpoint(final=False, no_extra=True)

    def _checkpoint(self, final: bool, no_extra: bool = False) -> None:
        command = "no_packet" if no_extra else "wait"
        at = "" if final else f" by the {command} at line {self.ctx.line}"
        for port, log in sorted(self.ports.items()):
            if log.any_packets:
                if log.expected and final:
                    self.ctx.result.notes.append(
                        f"{self.ctx.filename}: port {port} has a bare 'expect {port}' and "
                        "expected packets; as in p4c, any packets are accepted on it")
                continue
            pairs = min(len(log.expected), len(log.received))
            for i in range(log.compared, pairs):
                self._compare(port, i + 1, log.expected[i], log.received[i])
            log.compared = pairs
            for missing in log.expected[pairs:]:
                self.ctx.fail(f"expected packet on port {port} was not received{at}: "
                              f"{missing.expected}", missing.line)
            del log.expected[pairs:]
            if final or no_extra:
                for extra in log.received[pairs:]:
                    self._unexpected(port, extra, at)
                del log.received[pairs:]
        if no_extra:  # nothing may have come out, wherever it went
            for port, extra in self.unobserved:
                self._unexpected(port, extra, at)
            self.unobserved.clear()

    def _unexpected(self, port: int, extra: _Output, at: str) -> None:
        self.ctx.fail(f"unexpected packet on port {port} (not expected{at}; from the packet "
                      f"sent at line {extra.sent_line}): {_hex(extra.data)}",
                      None if at else extra.sent_line)

    def _compare(self, port: int, number: int, expect: cmd.ExpectPacket,
                 received: _Output) -> None:
        expected = expect.expected
        assert isinstance(expected, ExpectedPacket)
        if expected.matches(received.data):
            self.ctx.result.counts.packets_matched += 1
            return
        diff = "\n".join("    " + line for line in expected.diff(received.data).splitlines())
        self.ctx.fail(f"packet #{number} on port {port} (from the packet sent at line "
                      f"{received.sent_line}) differs from the expected packet\n{diff}",
                      expect.line)

    def _report_unobserved(self) -> None:
        for port, out in self.unobserved:
            text = (f"packet left on port {port}, which no packet/expect line names "
                    f"(from the packet sent at line {out.sent_line}): {_hex(out.data)}")
            if self.strict_ports:
                self.ctx.fail(text, out.sent_line)
            else:
                self.ctx.result.notes.append(f"{self.ctx.where(out.sent_line)}: {text}")
