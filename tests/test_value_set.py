"""Parser value sets: members written at run time decide the select (spec 12.11)."""

from __future__ import annotations

from pathlib import Path

from behavioral_model.program import load_program

PROGRAM = Path(__file__).parent / "p4" / "value_set.p4"


def test_value_set_members_select_the_state() -> None:
    device = load_program(PROGRAM).new_device()
    frame = bytes.fromhex("88b5" "07")
    # Empty set: the default branch; the tag byte is payload and stays 07.
    assert device.process(frame, 0)[0].data == frame
    device.state.value_set("tagged_types").append((0x88B5, 0xFFFF))
    # Member: the tag is extracted and incremented by ingress.
    assert device.process(frame, 0)[0].data == bytes.fromhex("88b5" "08")
    # A masked member matches a whole range of ether types.
    device.state.value_set("tagged_types").append((0x9000, 0xFF00))
    assert device.process(bytes.fromhex("90ab" "10"), 0)[0].data == bytes.fromhex("90ab11")
    assert device.process(bytes.fromhex("91ab" "10"), 0)[0].data == bytes.fromhex("91ab10")
