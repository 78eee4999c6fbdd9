"""bm's PNA architecture (behavioral_model/pipeline/pna.py) on a small program
(tests/p4/pna/pna_basics.p4): BMv2 pna_nic's one pass, its forwarding functions, the
output metadata, and pna.p4's Register, Counter, Random and Digest."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import P4Program, load_program, load_program_text
from behavioral_model.switch.engine import Dataplane
from behavioral_model.tm import TrafficManager

PROGRAM = Path(__file__).parent / "p4" / "pna" / "pna_basics.p4"
ETH = bytes.fromhex("0000000000020000000000010800")
PAYLOAD = b"payload"


@cache
def program() -> P4Program:
    return load_program(PROGRAM)


def frame(op: int, arg: int = 0) -> bytes:
    return ETH + bytes([op, arg, 0]) + PAYLOAD


def out_byte(data: bytes) -> int:
    return data[len(ETH) + 2]


def test_send_drop_and_the_last_call_wins() -> None:
    device = program().new_device()
    assert [(o.port, o.data) for o in device.process(frame(1, 7), port=3)] == \
        [(7, frame(1, 7))]
    assert device.process(frame(2), port=3) == []
    assert [o.port for o in device.process(frame(3, 9), port=3)] == [9]


def test_no_forwarding_call_leaves_on_port_0() -> None:
    # BMv2 pna_nic: the packet's egress port starts at 0 and nothing drops it.
    assert [o.port for o in program().new_device().process(frame(0), port=3)] == [0]


def test_register_counter_and_random() -> None:
    prog = program()
    device = prog.new_device()
    outs = [out_byte(device.process(frame(4, arg), port=1)[0].data) for arg in (3, 4, 5)]
    assert outs == [0, 3, 7]
    assert device.state.registers["cells"].read(0) == 12
    assert device.state.counters["seen"].read(3) == (1, len(frame(4, 3)))  # 4, 5: out of range
    draws = {out_byte(device.process(frame(5), port=1)[0].data) for _ in range(200)}
    assert draws == {10, 11, 12, 13}


def test_digest_named_after_its_instance() -> None:
    device = program().new_device()
    device.process(frame(6, 0x42), port=5)
    [message] = device.state.digests.drain()
    assert (message.name, message.values) == ("Main.notes", (5, 0x42))
    p4info = generate_p4info(program().checked)
    assert [d.preamble.name for d in p4info.digests] == ["Main.notes"]
    assert p4info.pkg_info.arch == "pna"
    assert [c.preamble.name for c in p4info.counters] == ["seen"]
    assert [r.preamble.name for r in p4info.registers] == ["cells"]


def test_pre_control_runs_before_the_main_control() -> None:
    assert out_byte(program().new_device().process(frame(7), port=1)[0].data) == 0x5A


def test_class_of_service_is_the_queue_priority() -> None:
    # 8 priority queues: class of service 5 is admitted and queued at priority 5.
    dataplane = Dataplane(TrafficManager(priority_queues=8))
    dataplane.set_program(program())
    assert [o.port for o in dataplane.process(1, frame(1, 2), 0.0)] == [2]
    one_queue = Dataplane(TrafficManager(priority_queues=1))
    one_queue.set_program(program())
    assert one_queue.process(1, frame(1, 2), 0.0) == []  # priority 5 of 1 queue: dropped


def test_recirculate_refused_on_pna() -> None:
    text = PROGRAM.read_text().replace("drop_packet();\n        } else if (hdr.cmd.op == 3)",
                                       "recirculate();\n        } else if (hdr.cmd.op == 3)")
    with pytest.raises(P4Error, match="recirculate.. is not supported on PNA"):
        load_program_text(text, "recirc.p4")
