"""The parse plan (``pipeline/parseplan.py``, ``pipeline/_parseplan.c``): the C call a
generated parser tries first must leave the packet exactly as the Python states do
(the same headers, fields and validity, the same cursor, no parser error where they
have none), and give up, changing nothing, wherever it does not follow the program.

Each check parses the same frame on two devices of one program: one as compiled, one
whose plan always gives up (so the Python states parse every packet, as before the
plan). Frames are the MRC encapsulations built with scapy from the protocol layers,
then cut short and overwritten at random; and random bytes on a small program with
the constructs the plan takes (a sub-parser, multi-key selects with don't-cares, a
key on the standard metadata) and those it gives up on (an assignment, a mask)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from behavioral_model.pipeline import native
from behavioral_model.pipeline.native import PURE_PYTHON_ENV
from behavioral_model.program import load_program, load_program_text
from protocol import constants as c
from protocol.headers import (
    BTH,
    METH,
    RETH,
    SRH,
    CpuPacketOut,
    ImmDt,
    MrcNack,
    MrcProbe,
    MrcSack,
    MrcSackCongestion,
)

pytestmark = pytest.mark.skipif(
    not native.built(), reason="the C extension is not built (no C compiler (gcc) where "
    "the package was installed)")

ROOT = Path(__file__).resolve().parents[1]
NIC, PEER = "2001:db8:0:1::1", "2001:db8:0:2::1"
CARRIER = "fc00:0:101:201:301:e000::"
MACS = {"src": "02:00:00:00:00:01", "dst": "02:00:00:00:00:02"}  # no lookup by scapy


def _frames() -> list[bytes]:
    """One frame of each kind the MRC parser knows, on the fabric and at the host."""
    outer = Ether(**MACS) / IPv6(src=NIC, dst=CARRIER, nh=41)
    inner = IPv6(src=NIC, dst=PEER) / UDP(sport=0x1234, dport=c.MRC_UDP_PORT)
    host = Ether(**MACS) / IPv6(src=NIC, dst=PEER) / UDP(sport=0x1234, dport=c.MRC_UDP_PORT)
    data = BTH(opcode=c.OPCODE_WRITE_ONLY, dest_qp=5, psn=9) / METH() / RETH(dma_len=64) \
        / Raw(bytes(range(64)))
    imm = BTH(opcode=c.OPCODE_WRITE_ONLY_IMM, psn=3) / METH() / RETH() / ImmDt(imm_data=7) \
        / Raw(b"x" * 32)
    sack = BTH(opcode=c.OPCODE_SACK) / MrcSack() / MrcSackCongestion()
    nack = BTH(opcode=c.OPCODE_NACK) / MrcNack()
    probe = BTH(opcode=c.OPCODE_PROBE) / MrcProbe()
    srh = Ether(**MACS) / IPv6(src=NIC, dst=CARRIER, nh=43) \
        / SRH(addresses=[PEER, CARRIER], segleft=1, nh=41) / inner / data
    frames = [outer / inner / p for p in (data, imm, sack, nack, probe)]
    frames += [host / p for p in (data, imm, sack, nack, probe)]
    frames += [srh, CpuPacketOut(egress_port=2) / outer / inner / data,
               Ether(type=0x0800, **MACS) / Raw(b"\x45" + bytes(40)),
               Ether(**MACS) / IPv6(src=NIC, dst=PEER) / UDP(dport=53) / Raw(b"q" * 20)]
    return [bytes(f) for f in frames]


FRAMES = _frames()
PORTS = [c.NIC_HOST_PORT, 1, 2, 7, c.CPU_PORT]


def snapshot(value: Any) -> Any:
    """Everything a parsed struct holds, as plain values (headers, stacks, fields)."""
    slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
    if slots:
        return tuple((s, snapshot(getattr(value, s, "<unset>"))) for s in slots)
    if isinstance(value, list | tuple):
        return tuple(snapshot(v) for v in value)
    if hasattr(value, "__dict__"):
        return tuple(sorted((k, snapshot(v)) for k, v in vars(value).items()))
    return value


class Pair:
    """Two devices of one program: as compiled, and with the plan giving up always."""

    def __init__(self, program: Any) -> None:
        self.planned = program.new_device()
        self.python = program.new_device()
        names = [k for k in self.planned._bound if k.startswith("_parse_plan")]
        assert len(names) == 1, "the parser has no parse plan"
        self.name = names[0]
        self.python._bound[self.name] = lambda buf, hdr, aux: -1
        run = self.planned._bound[self.name]
        self.accepted = self.gave_up = 0

        def counted(buf: bytes, hdr: Any, aux: Any) -> int:
            pos = run(buf, hdr, aux)
            if pos >= 0:
                self.accepted += 1
            else:
                self.gave_up += 1
            return pos

        self.planned._bound[self.name] = counted

    def parse(self, device: Any, frame: bytes, port: int) -> tuple:
        hdr, meta, sm, pk = device.run_ingress(frame, port, 0, controls=False)
        return snapshot(hdr), snapshot(meta), pk.parser_error, bytes(pk.payload)

    def check(self, frame: bytes, port: int) -> None:
        assert self.parse(self.planned, frame, port) == self.parse(self.python, frame, port)


@pytest.fixture(scope="module", params=["p4src/srv6_switch.p4", "p4src/mrc_nic.p4"])
def mrc(request: pytest.FixtureRequest) -> Pair:
    return Pair(load_program(ROOT / request.param))


def test_every_mrc_frame_parses_as_the_python_states_do(mrc: Pair) -> None:
    for frame in FRAMES:
        for port in PORTS:
            mrc.check(frame, port)
    # the plan takes the encapsulations without an SRH; the SRH (a parser local counts
    # its segments) and frames it cannot finish are the Python states'
    assert mrc.accepted >= 10 * (len(PORTS) - 1) and mrc.gave_up > 0


@settings(max_examples=300, deadline=None)
@given(frame=st.sampled_from(FRAMES), port=st.sampled_from(PORTS),
       cut=st.integers(0, 200), edits=st.lists(st.tuples(st.integers(0, 140),
                                                         st.integers(0, 255)), max_size=4))
def test_cut_and_overwritten_frames_parse_as_the_python_states_do(
        mrc: Pair, frame: bytes, port: int, cut: int, edits: list) -> None:
    data = bytearray(frame[:len(frame) - cut] if cut < len(frame) else b"")
    for at, value in edits:
        if at < len(data):
            data[at] = value
    mrc.check(bytes(data), port)


def test_a_short_frame_leaves_the_headers_untouched() -> None:
    program = load_program(ROOT / "p4src/srv6_switch.p4")
    device = program.new_device()
    run = device._bound[next(k for k in device._bound if k.startswith("_parse_plan"))]
    hdr, sm = device.new_hdr(), device.new_sm()
    before = snapshot(hdr)
    assert run(FRAMES[0][:60], hdr, sm) == -1  # cut inside the inner IPv6 header
    assert snapshot(hdr) == before
    assert run(FRAMES[0], hdr, sm) > 0 and hdr.reth._valid


def test_the_pure_python_pipeline_has_no_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    program = load_program(ROOT / "p4src/mrc_nic.p4")
    assert "_parse_plan" not in program.compiled.source


def test_the_pna_nic_has_a_plan_too() -> None:
    program = load_program(ROOT / "p4src/pna/mrc_nic.p4")
    assert "_parse_plan" in program.compiled.source


SMALL = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> kind; bit<8> flags; bit<16> len; }
header b_t { bit<32> x; }
header c_t { bit<16> y; bit<8> z; bit<8> w; }
struct headers_t { a_t a; b_t b; c_t c; b_t b2; }
struct meta_t { bit<8> count; }

parser Sub(packet_in pkt, inout headers_t hdr, in bit<9> port) {
    state start {
        transition select(port, hdr.a.flags) {
            (7, _): parse_c;
            (_, 3): parse_b2;
            (2, 4): reject;
            default: accept;
        }
    }
    state parse_c {
        pkt.extract(hdr.c);
        transition select(hdr.c.y, hdr.c.z) { (1, 2): reject; (_, 5): parse_b2; (9, _): accept; }
    }
    state parse_b2 { pkt.extract(hdr.b2); transition accept; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    Sub() sub;
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.kind) {
            1: one; 2: counted; 3: sub_then; 4: accept; 5: masked; 6: twice; default: reject;
        }
    }
    state one {
        pkt.extract(hdr.b);
        transition select(hdr.b.x) { 0xdeadbeef: sub_then; default: accept; }
    }
    state counted { meta.count = hdr.a.flags; pkt.extract(hdr.b); transition accept; }
    state masked {
        pkt.extract(hdr.b);
        transition select(hdr.b.x) { 0x100 &&& 0xf00: last; default: accept; }
    }
    state twice { pkt.extract(hdr.b); pkt.extract(hdr.b); transition select(hdr.b.x) {
        0: last; default: accept; } }
    state sub_then {
        sub.apply(pkt, hdr, sm.ingress_port);
        transition select(hdr.a.len) { 0: accept; default: last; }
    }
    state last { pkt.extract(hdr.c); transition accept; }
}
control Nop(inout headers_t h, inout meta_t m) { apply { } }
control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t h) { apply { pkt.emit(h); } }
V1Switch(P(), Nop(), I(), E(), Nop(), D()) main;
"""


@pytest.fixture(scope="module")
def small() -> Pair:
    return Pair(load_program_text(SMALL))


def _bytes(kind: int, flags: int, length: int, rest: bytes) -> bytes:
    return bytes([kind, flags]) + length.to_bytes(2, "big") + rest


@settings(max_examples=400, deadline=None)
@given(kind=st.integers(0, 7), flags=st.sampled_from([0, 3, 4, 9]),
       length=st.sampled_from([0, 1]), port=st.sampled_from([0, 2, 7]),
       rest=st.one_of(st.binary(max_size=24),
                      st.sampled_from([b"\xde\xad\xbe\xef" + bytes(12),
                                       b"\xde\xad\xbe\xef\x00\x01\x02\x00" + bytes(8),
                                       b"\xde\xad\xbe\xef\x00\x09\x07\x00" + bytes(8),
                                       b"\x00\x00\x01\x00" + bytes(8)])))
def test_a_program_of_every_construct_parses_as_the_python_states_do(
        small: Pair, kind: int, flags: int, length: int, port: int, rest: bytes) -> None:
    small.check(_bytes(kind, flags, length, rest), port)


@pytest.mark.parametrize("frame, port, planned", [
    (_bytes(1, 0, 0, bytes(8)), 0, True),                         # one, accept
    (_bytes(1, 0, 1, b"\xde\xad\xbe\xef\x00\x09\x00\x00" + bytes(4)), 7, True),
    # one -> the sub-parser -> parse_c -> its accept -> the caller's select -> last
    (_bytes(6, 0, 0, bytes(7) + b"\x01"), 0, True),               # b twice: the last counts
    (_bytes(6, 0, 0, b"\x00\x00\x00\x01" + bytes(8)), 0, True),    # ... and its x selects
    (_bytes(2, 0, 0, bytes(8)), 0, False),                        # an assignment
    (_bytes(5, 0, 0, bytes(8)), 0, False),                        # a masked keyset
    (_bytes(0, 0, 0, bytes(8)), 0, False),                        # reject
    (_bytes(3, 4, 0, bytes(8)), 2, False),                        # the sub-parser rejects
    (_bytes(3, 0, 0, b"\x00\x01\x02\x00"), 7, False),             # parse_c rejects
    (_bytes(3, 0, 0, b"\x00\x04\x02\x00"), 7, False),             # parse_c: no case
    (_bytes(1, 0, 0, b"\x00\x00"), 0, False),                     # too short for b
])
def test_the_plan_runs_what_it_can_and_gives_up_on_the_rest(
        small: Pair, frame: bytes, port: int, planned: bool) -> None:
    accepted = small.accepted
    small.check(frame, port)
    assert (small.accepted > accepted) == planned


class _Headers:
    __slots__ = ("a",)


def _plan(states: list) -> Callable:
    return native._native.ParsePlan(states, _Headers)


@pytest.mark.parametrize("states, error", [
    ([], ValueError),                                  # no start state
    ([([], [], [], 5)], ValueError),                   # a target past the states
    ([([], [], [], -3)], ValueError),                  # a target below give-up
    ([([("nope", None)], [], [], -1)], TypeError),     # not a Codec
    ([([], [], [((1, 2), 0)], -1)], ValueError),       # a case with values but no keys
    ([("not a state",)], TypeError),
])
def test_a_malformed_plan_is_refused(states: list, error: type) -> None:
    with pytest.raises(error):
        _plan(states)


def test_run_refuses_bad_arguments_and_leaves_other_structs_to_python() -> None:
    plan = _plan([([], [], [], -1)])
    with pytest.raises(TypeError):
        plan.run(b"", _Headers())
    with pytest.raises(TypeError):
        plan.run(12, _Headers(), None)  # not bytes
    assert plan.run(b"", _Headers(), None) == 0  # accept at once: nothing extracted
    assert plan.run(b"", object(), None) == -1  # not the plan's class: gives up
