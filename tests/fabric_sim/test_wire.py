"""fabric.sim.wire: the message framing between a partitioned run's processes."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from fabric.sim.wire import Wire


@pytest.fixture
def pair() -> Iterator[tuple[Wire, Wire]]:
    a, b = socket.socketpair()
    with Wire(a) as left, Wire(b) as right:
        yield left, right


def test_messages_arrive_whole_and_in_order(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    window = ("run", 12.5, [(13.5, 12.5, (0, 7, 1 << 40), 3, 0, bytes(range(256)) * 17)])
    left.send(window)
    left.send(("ran", ([], None)))
    left.send(("finish", None))
    # three messages, likely read in one go: each comes out whole, in order
    assert right.recv() == window
    assert right.recv() == ("ran", ([], None))
    assert right.poll(0)
    assert right.recv() == ("finish", None)
    assert not right.poll(0)


def test_a_message_larger_than_the_socket_buffers(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    big = bytes(range(251)) * (8 << 12)  # 8 MB: many reads, a sender that must wait
    sender = threading.Thread(target=left.send, args=(("setup", big),))
    sender.start()
    assert right.poll(10)
    kind, body = right.recv()
    sender.join()
    assert kind == "setup" and body == big


def test_poll_waits_at_most_its_timeout(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    assert not right.poll(0.01)
    left.send(1)
    assert right.poll(0.01) and right.recv() == 1


def test_the_other_end_closing_is_eof(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    left.send("last")
    left.close()
    assert right.recv() == "last"
    assert right.poll(0)  # the end of the stream is readable
    with pytest.raises(EOFError):
        right.recv()


def test_a_message_cut_short_by_the_other_end_is_eof() -> None:
    a, b = socket.socketpair()
    a.sendall(b"\x00\x00\x01\x00" + b"x" * 10)  # announces 256 bytes, sends 10
    a.close()
    with Wire(b) as right, pytest.raises(EOFError):
        right.recv()


def test_sending_to_a_closed_end_is_an_os_error(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    right.close()
    with pytest.raises(OSError):
        for _ in range(64):  # the first sends may still fit in the socket's buffer
            left.send(bytes(1 << 16))


def test_an_inherited_descriptor(pair: tuple[Wire, Wire]) -> None:
    left, right = pair
    again = Wire.from_fd(socket.dup(right.fileno()))
    left.send({"a": 1})
    assert again.recv() == {"a": 1}
    again.close()



class CountingSocket:
    """A socket whose reads are counted (select takes it by its fileno)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reads = 0

    def recv(self, size: int) -> bytes:
        self.reads += 1
        return self.sock.recv(size)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()


def test_poll_reads_what_it_saw() -> None:
    """Once a window a process polls, then receives: the poll takes what the socket
    holds, so the receive makes no system call of its own."""
    a, b = socket.socketpair()
    counted = CountingSocket(b)
    with Wire(a) as left, Wire(counted) as right:  # type: ignore[arg-type]
        left.send(("ran", ([], 5.0)))
        assert right.poll(1)
        reads = counted.reads
        assert right.recv() == ("ran", ([], 5.0))
        assert counted.reads == reads == 1
        left.close()
        assert right.poll(1)  # the end of the stream, read by the poll too
        with pytest.raises(EOFError):
            right.recv()
        assert counted.reads == 2


class ResettingSocket(CountingSocket):
    def recv(self, size: int) -> bytes:
        raise ConnectionResetError(104, "Connection reset by peer")


def test_a_read_that_fails_while_polling_fails_the_recv() -> None:
    """The other process died mid-run: the poll says there is something to read and
    the recv raises what the read met, for the caller to report (Workers._receive)."""
    a, b = socket.socketpair()
    with Wire(a) as left, Wire(ResettingSocket(b)) as right:  # type: ignore[arg-type]
        left.send("anything")
        assert right.poll(1)
        with pytest.raises(ConnectionResetError):
            right.recv()
