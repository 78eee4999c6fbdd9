"""The switch: SwitchCore in-process (packet-in/out, digests, recirculation, pipeline
swap, real-time rates, trace) and ``python -m behavioral_model switch`` as a
subprocess (start-up time, P4Runtime + nanomsg packet exchange, clean SIGTERM/SIGINT)."""

from __future__ import annotations

import logging
import os
import queue
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from port_sink import Sink

from behavioral_model.cli import build_parser
from behavioral_model.cli.common import CliError
from behavioral_model.cli.switch import _merge_target_options, options_from_args
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.program import load_program, load_program_text
from behavioral_model.runtime.digests import DigestMessage
from behavioral_model.switch import SwitchCore
from p4rt_client.channel import wait_for_grpc

ROOT = Path(__file__).resolve().parents[1]
ROUTER = ROOT / "examples" / "ipv6_router.p4"
CPU_PORT = 64

PACKET_IO_P4 = r"""
#include <core.p4>
#include <v1model.p4>
#define CPU_PORT 64
@controller_header("packet_out")
header packet_out_t { bit<9> egress_port; bit<7> pad; bit<8> tag; }
@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; bit<7> pad; bit<8> reason; }
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { packet_out_t packet_out; packet_in_t packet_in; eth_t eth; }
struct learn_t { bit<48> src; bit<9> port; }
struct meta_t { @field_list(1) bit<8> rounds; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        transition select(std.ingress_port) { CPU_PORT: cpu; default: eth; }
    }
    state cpu { pkt.extract(hdr.packet_out); transition eth; }
    state eth { pkt.extract(hdr.eth); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.packet_out.isValid()) {
            std.egress_spec = hdr.packet_out.egress_port;
            hdr.eth.src = (bit<48>) hdr.packet_out.tag;
            hdr.packet_out.setInvalid();
        } else if (hdr.eth.type == 0x0001) {
            std.egress_spec = CPU_PORT;
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = std.ingress_port;
            hdr.packet_in.reason = 7;
        } else if (hdr.eth.type == 0x0002) {
            digest<learn_t>(1, { hdr.eth.src, std.ingress_port });
            std.egress_spec = 3;
        } else if (hdr.eth.type == 0x0003) {
            std.egress_spec = 4;  // recirculated in egress, forever
        } else {
            std.egress_spec = 2;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.eth.type == 0x0003) { recirculate_preserving_field_list(1); }
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.packet_in); pkt.emit(hdr.eth); }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def eth(ether_type: int, src: int = 0x0200000000AA, payload: bytes = b"data") -> bytes:
    return bytes.fromhex("020000000001") + src.to_bytes(6, "big") + \
        ether_type.to_bytes(2, "big") + payload


@pytest.fixture(scope="module")
def packet_io_program():
    program = load_program_text(PACKET_IO_P4, "packet_io.p4")
    return program, generate_p4info(program.checked)


@pytest.fixture
def io_switch(packet_io_program):
    core = SwitchCore(3, cpu_port=CPU_PORT)
    core.set_pipeline(*packet_io_program, 42)
    sink = Sink()
    core.add_port_backend(sink)
    core.start()
    yield core, sink
    core.stop()


# -- SwitchCore in-process --------------------------------------------------------------
def test_target_protocol_basics(io_switch, packet_io_program) -> None:
    core, _ = io_switch
    assert core.device_id == 3
    program, p4info, cookie = core.pipeline()
    assert program is packet_io_program[0] and cookie == 42
    assert core.state is not None
    assert isinstance(core.lock, type(threading.RLock()))


def test_packet_in_strips_the_controller_header(io_switch) -> None:
    core, _ = io_switch
    got: queue.Queue = queue.Queue()
    core.add_packet_in_listener(lambda payload, md: got.put((payload, md)))
    frame = eth(0x0001)
    core.receive(5, frame)
    payload, metadata = got.get(timeout=3)
    assert payload == frame
    assert metadata == {"ingress_port": 5, "pad": 0, "reason": 7}


def test_packet_out_prepends_the_header_on_the_cpu_port(io_switch) -> None:
    core, sink = io_switch
    frame = eth(0x0800)
    core.packet_out(frame, {"egress_port": 9, "tag": 0x5A})
    port, data = sink.get()
    assert port == 9
    assert data == frame[:6] + (0x5A).to_bytes(6, "big") + frame[12:]


def test_packet_out_without_cpu_port_is_dropped(packet_io_program, caplog) -> None:
    core = SwitchCore(0)
    core.set_pipeline(*packet_io_program, 1)
    with caplog.at_level(logging.WARNING, "behavioral_model"):
        core.packet_out(b"x", {})
    assert "no CPU port" in caplog.text
    with pytest.raises(ValueError):
        SwitchCore(0, cpu_port=0)


def test_digests_reach_listeners(io_switch) -> None:
    core, sink = io_switch
    got: queue.Queue[DigestMessage] = queue.Queue()
    core.add_digest_listener(got.put)
    core.receive(6, eth(0x0002, src=0x0A0B0C0D0E0F))
    message = got.get(timeout=3)
    assert message.values == (0x0A0B0C0D0E0F, 6)
    assert sink.get()[0] == 3


def test_endless_recirculation_is_cut(io_switch, caplog) -> None:
    core, sink = io_switch
    with caplog.at_level(logging.WARNING, "behavioral_model"):
        core.receive(1, eth(0x0003))
        core.receive(1, eth(0x0800))  # later packets still flow
        assert sink.get() == (2, eth(0x0800))
    stats = core.dataplane.stats
    assert stats.recirculation_drops == 1 and stats.recirculated == 17
    assert "recirculations" in caplog.text


def test_pipeline_swap_flushes_queues_and_resets_state(io_switch, packet_io_program) -> None:
    core, sink = io_switch
    core.set_queue_rate(2, 1)  # the second packet would wait one second
    core.receive(1, eth(0x0800, payload=b"one"))
    core.receive(1, eth(0x0800, payload=b"two"))
    assert sink.get()[1].endswith(b"one")
    old_state = core.state
    core.set_pipeline(*packet_io_program, 43)
    assert core.state is not old_state
    assert core.pipeline()[2] == 43
    assert core.tm.stats.flushed == 1
    assert core.idle()


def test_real_time_rate_limit(io_switch) -> None:
    core, sink = io_switch
    core.set_queue_rate(2, 200)  # 5 ms apart
    start = time.monotonic()
    for i in range(5):
        core.receive(1, eth(0x0800, payload=bytes([i])))
    arrivals = [sink.get()[1][-1] for _ in range(5)]
    elapsed = time.monotonic() - start
    assert arrivals == [0, 1, 2, 3, 4]
    assert elapsed >= 0.019


class BatchSink(Sink):
    """A port backend that delivers and sends in batches, as the nanomsg port."""

    def __init__(self) -> None:
        super().__init__()
        self.deliver_batch = None
        self.batches: list[int] = []

    def start_batched(self, deliver_batch) -> None:
        self.deliver_batch = deliver_batch

    def transmit_batch(self, frames) -> None:
        self.batches.append(len(frames))
        for f in frames:
            self.sent.put((f.port, f.data))


@pytest.fixture
def batch_switch(packet_io_program):
    core = SwitchCore(3, cpu_port=CPU_PORT)
    core.set_pipeline(*packet_io_program, 42)
    sink = BatchSink()
    core.add_port_backend(sink)
    core.start()
    assert sink.deliver_batch is not None  # start_batched preferred over start
    yield core, sink
    core.stop()


def test_batches_run_in_the_callers_thread_in_order(batch_switch) -> None:
    core, sink = batch_switch
    frames = [(1, eth(0x0800, payload=bytes([i]))) for i in range(100)]
    assert sink.deliver_batch(frames) is True
    # everything was processed and sent before the call returned, in order, in
    # batches of at most BATCH frames
    assert [sink.sent.get_nowait() for _ in frames] == [(2, f) for _, f in frames]
    assert sink.batches == [64, 36]
    assert core.dataplane.stats.received == 100
    # other sources still go through the input buffer and the data-plane thread
    core.packet_out(eth(0x0800), {"egress_port": 7, "tag": 1})
    assert sink.get()[0] == 7


def test_batched_frames_behind_a_rate_limit_leave_on_time(batch_switch) -> None:
    core, sink = batch_switch
    core.set_queue_rate(2, 200)  # 5 ms apart
    start = time.monotonic()
    sink.deliver_batch([(1, eth(0x0800, payload=bytes([i]))) for i in range(4)])
    assert sink.sent.get_nowait()[1][-1] == 0  # had credit: left at once
    # the others wait in the queue; the data-plane thread sends them when due
    assert [sink.get()[1][-1] for _ in range(3)] == [1, 2, 3]
    assert time.monotonic() - start >= 0.014
    assert core.idle()
    stats = core.tm.stats
    assert (stats.enqueued, stats.dequeued) == (4, 4)


def test_batch_after_stop_is_refused(batch_switch) -> None:
    core, sink = batch_switch
    core.stop()
    assert sink.deliver_batch([(1, eth(0x0800))]) is False
    assert sink.sent.empty()


def test_cpu_port_cannot_be_a_data_port() -> None:
    class OnPort64(Sink):
        def port_info(self) -> dict:
            return {CPU_PORT: None}

    core = SwitchCore(0, cpu_port=CPU_PORT)
    with pytest.raises(ValueError):
        core.add_port_backend(OnPort64())


def ipv6_frame(dst: str = "2001:db8::1", payload: bytes = b"hi") -> bytes:
    import ipaddress

    header = bytes.fromhex("000000000002" "000000000001") + b"\x86\xdd"
    header += struct.pack("!IHBB", 6 << 28, len(payload), 17, 64)
    header += ipaddress.IPv6Address("2001:db8::99").packed
    return header + ipaddress.IPv6Address(dst).packed + payload


def install_routes(core: SwitchCore) -> None:
    from behavioral_model.runtime.matches import Exact, Lpm
    from behavioral_model.runtime.tables import ActionCall, TableEntry

    with core.lock:
        core.state.table("ipv6_lpm").insert(TableEntry(
            (Lpm(0x20010DB8 << 96, 32),), ActionCall("RouterIngress.set_nexthop", (7,))))
        core.state.table("nexthop").insert(TableEntry(
            (Exact(7),), ActionCall("RouterIngress.forward", (2, 0xA0000000002, 0xA0000000001))))


def test_debug_trace_names_tables_actions_and_drops(caplog) -> None:
    program = load_program(ROUTER)
    core = SwitchCore(0)
    core.set_pipeline(program, generate_p4info(program.checked), 1)
    install_routes(core)
    sink = Sink()
    core.add_port_backend(sink)
    core.start()
    try:
        with caplog.at_level(logging.DEBUG, "behavioral_model"):
            core.receive(1, ipv6_frame())
            sink.get()
            core.receive(1, ipv6_frame(dst="2001:db9::1"))
            core.receive(1, ipv6_frame())
            sink.get()
    finally:
        core.stop()
    text = caplog.text
    assert "[pkt 1] ingress: port 1, 56 bytes" in text
    assert "parser: headers [ethernet, ipv6]" in text
    assert "table RouterIngress.ipv6_lpm: key (0x20010db8000000000000000000000001) hit" \
        " -> RouterIngress.set_nexthop(7)" in text
    assert "table RouterIngress.nexthop: key (7) hit -> RouterIngress.forward(2, " in text
    assert "table RouterIngress.acl: key (" in text and "miss -> default NoAction()" in text
    assert "[pkt 1] out: port 2, 56 bytes" in text
    assert "[pkt 2] table RouterIngress.ipv6_lpm" in text and "miss -> default " \
        "RouterIngress.drop()" in text
    assert "[pkt 2] dropped at the end of ingress (egress_spec = drop port 511)" in text


def test_input_buffer_applies_back_pressure(packet_io_program) -> None:
    core = SwitchCore(0, input_capacity=2)
    core.set_pipeline(*packet_io_program, 1)
    assert core.receive(1, b"a") and core.receive(1, b"b")
    blocked = threading.Thread(target=core.receive, args=(1, b"c"))
    blocked.start()
    time.sleep(0.05)
    assert blocked.is_alive()  # the data-plane thread is not running yet
    core.stop()  # wakes it: the switch is stopping
    blocked.join(2)
    assert not blocked.is_alive()


# -- command line -----------------------------------------------------------------------
def parse(*argv: str):
    parser = build_parser("bm")
    args = parser.parse_args(["switch", *argv])
    switch_parser = parser._subparsers._group_actions[0].choices["switch"]  # noqa: SLF001
    _merge_target_options(switch_parser, args)
    return options_from_args(args)


def test_cli_options_mirror_simple_switch_grpc() -> None:
    opts = parse("prog.p4", "--device-id", "2", "-i", "1@veth0", "--interface", "2@veth2",
                 "--pcap", "--cpu-port", "255", "--grpc-server-addr", "127.0.0.1:1234",
                 "--priority-queues", "8", "--queue-depth", "16", "--queue-rate", "1000",
                 "-I", "inc", "-D", "X=1", "--port-queue-depth", "3=8",
                 "--port-queue-rate", "3=100", "--port-queue-rate", "4=5")
    assert opts.program == "prog.p4" and opts.device_id == 2
    assert opts.interfaces == {1: "veth0", 2: "veth2"} and opts.pcap_dir == "."
    assert (opts.cpu_port, opts.grpc_addr) == (255, "127.0.0.1:1234")
    assert (opts.priority_queues, opts.queue_depth, opts.queue_rate_pps) == (8, 16, 1000)
    assert list(opts.include_dirs) == ["inc"] and opts.defines == {"X": "1"}
    assert opts.port_queue_depths == {3: 8} and opts.port_queue_rates == {3: 100, 4: 5}


def test_cli_accepts_bmv2_double_dash() -> None:
    opts = parse("--no-p4", "--packet-in", "ipc:///tmp/x.ipc", "--",
                 "--grpc-server-addr", "127.0.0.1:9", "--cpu-port", "64")
    assert opts.program is None and opts.packet_in == "ipc:///tmp/x.ipc"
    assert (opts.grpc_addr, opts.cpu_port) == ("127.0.0.1:9", 64)
    opts = parse("prog.p4", "--", "--cpu-port", "64")
    assert (opts.program, opts.cpu_port) == ("prog.p4", 64)
    opts = parse("--device-id", "1", "prog.p4", "--log-console", "--", "--no-grpc")
    assert (opts.program, opts.device_id, opts.grpc_addr) == ("prog.p4", 1, None)


@pytest.mark.parametrize("argv, message", [
    ((), "--no-p4"),
    (("p.p4", "--cpu-port", "0"), "0 is not a valid"),
    (("p.p4", "--drop-port", "510"), "511"),
    (("p.p4", "--priority-queues", "0"), "1..32"),
    (("p.p4", "-i", "1@a", "-i", "1@b"), "twice"),
    (("p.p4", "-i", "64@a", "--cpu-port", "64"), "data port"),
    (("p.p4", "--log-console", "--log-file", "x"), "exclusive"),
])
def test_cli_usage_errors(argv, message) -> None:
    with pytest.raises(CliError) as info:
        parse(*argv)
    assert message in info.value.message and info.value.exit_code == 2


def test_cli_rejects_bmv2_json(tmp_path: Path, capsys) -> None:
    from behavioral_model.cli import main

    config = tmp_path / "prog.json"
    config.write_text("{}")
    assert main(["switch", str(config), "--no-grpc"]) == 1
    assert "BMv2 JSON" in capsys.readouterr().err


# -- the process ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_switch(*argv: str) -> tuple[subprocess.Popen, float]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "behavioral_model", "switch", *argv],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    return proc, started


def wait_grpc(addr: str, proc: subprocess.Popen, timeout: float = 120.0):
    """A channel to the switch once it answers (waited for in this thread: no gRPC
    connectivity-polling thread, p4rt_client.channel.server_answers says why)."""
    grpc = pytest.importorskip("grpc")
    try:
        wait_for_grpc(addr, timeout, alive=lambda: proc.poll() is None)
    except TimeoutError:
        if proc.poll() is not None:
            raise AssertionError(f"switch exited early: {proc.communicate()}") from None
        raise AssertionError("switch did not answer on gRPC") from None
    return grpc.insecure_channel(addr)


def stop_switch(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> tuple[str, str]:
    proc.send_signal(sig)
    try:  # a hang guard only: how fast it stops is not a test's business
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"switch did not stop: {err}") from None
    assert proc.returncode == 0, err
    return out, err


class P4RuntimeClient:
    """Just enough P4Runtime: arbitration, P4Info, table writes, packet-out."""

    def __init__(self, channel, device_id: int = 0) -> None:
        from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

        self.pb = p4runtime_pb2
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        self.device_id = device_id
        self.requests: queue.Queue = queue.Queue()
        arbitration = p4runtime_pb2.StreamMessageRequest()
        arbitration.arbitration.device_id = device_id
        arbitration.arbitration.election_id.low = 1
        self.requests.put(arbitration)
        self.stream = self.stub.StreamChannel(iter(self.requests.get, None))
        reply = next(self.stream)
        assert reply.arbitration.status.code == 0, reply
        config = self.stub.GetForwardingPipelineConfig(
            p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=device_id))
        self.p4info = config.config.p4info

    def _table(self, name: str):
        return next(t for t in self.p4info.tables if t.preamble.name.endswith(name))

    def _action(self, name: str):
        return next(a for a in self.p4info.actions if a.preamble.name.endswith(name))

    def insert(self, table: str, match, action: str, params: list[bytes]) -> None:
        pb = self.pb
        request = pb.WriteRequest(device_id=self.device_id)
        request.election_id.low = 1
        update = request.updates.add(type=pb.Update.INSERT)
        entry = update.entity.table_entry
        t = self._table(table)
        entry.table_id = t.preamble.id
        field = entry.match.add(field_id=t.match_fields[0].id)
        if isinstance(match, tuple):
            field.lpm.value, field.lpm.prefix_len = match
        else:
            field.exact.value = match
        a = self._action(action)
        entry.action.action.action_id = a.preamble.id
        for p, value in zip(a.params, params, strict=True):
            entry.action.action.params.add(param_id=p.id, value=value)
        self.stub.Write(request)

    def packet_out(self, payload: bytes) -> None:
        message = self.pb.StreamMessageRequest()
        message.packet.payload = payload
        self.requests.put(message)

    def close(self) -> None:
        self.requests.put(None)


def test_switch_process_end_to_end(tmp_path: Path) -> None:
    import pynng

    from behavioral_model.ports.nn import MSG_PACKET_IN, pack_message, unpack_message

    addr = f"127.0.0.1:{free_port()}"
    ipc = f"ipc://{tmp_path}/x.ipc"
    proc, started = start_switch(str(ROUTER), "--packet-in", ipc, "--grpc-server-addr",
                                 addr, "--cpu-port", str(CPU_PORT), "--pcap", str(tmp_path))
    try:
        channel = wait_grpc(addr, proc)
        startup = time.monotonic() - started
        print(f"switch answered on gRPC {startup:.2f} s after exec")
        peer = pynng.Pair0(recv_timeout=5000, send_timeout=5000)
        peer.dial(ipc, block=True)
        client = P4RuntimeClient(channel)
        prefix = bytes.fromhex("20010db8") + bytes(12)
        client.insert("ipv6_lpm", (prefix, 32), "set_nexthop", [b"\x07"])
        client.insert("nexthop", b"\x07", "forward",
                      [b"\x02", bytes.fromhex("0a0000000002"), bytes.fromhex("0a0000000001")])
        frame = ipv6_frame()
        peer.send(pack_message(MSG_PACKET_IN, 1, len(frame), frame))
        msg_type, port, length, body = unpack_message(peer.recv())
        assert (msg_type, port, length) == (4, 2, len(frame))
        assert body[:12] == bytes.fromhex("0a0000000002" "0a0000000001")
        assert body[21] == 63 and body[22:] == frame[22:]
        # packet-out: injected on the CPU port, routed like any packet
        client.packet_out(ipv6_frame(payload=b"from the controller"))
        _, port, _, body = unpack_message(peer.recv())
        assert port == 2 and body.endswith(b"from the controller")
        client.close()
        peer.close()
        channel.close()
    finally:
        if proc.poll() is None:
            out, err = stop_switch(proc)
        else:
            out, err = proc.communicate()
            raise AssertionError(f"switch died: {err}")
    assert "bm switch ready in" in out
    assert (tmp_path / "port1_in.pcap").exists() and (tmp_path / "port2_out.pcap").exists()
    assert not (tmp_path / "x.ipc").exists()  # socket closed and removed


def test_switch_process_no_p4_stops_on_sigint(tmp_path: Path) -> None:
    import pynng

    ipc = f"ipc://{tmp_path}/y.ipc"
    addr = f"127.0.0.1:{free_port()}"
    proc, _ = start_switch("--no-p4", "--packet-in", ipc, "--", "--grpc-server-addr", addr)
    try:
        wait_grpc(addr, proc).close()
        peer = pynng.Pair0(send_timeout=2000)
        peer.dial(ipc, block=True)
        peer.close()
    finally:
        out, _ = stop_switch(proc, signal.SIGINT)
    assert "no program (--no-p4)" in out


def test_busy_grpc_port_is_a_start_error() -> None:
    from behavioral_model.switch.process import SwitchStartError, check_tcp_address_free

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        addr = f"127.0.0.1:{busy.getsockname()[1]}"
        with pytest.raises(SwitchStartError, match="cannot listen"):
            check_tcp_address_free(addr)
    check_tcp_address_free("127.0.0.1:0")
    check_tcp_address_free(f"127.0.0.1:{free_port()}")


def test_switch_process_reports_start_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.p4"
    bad.write_text("control {")
    proc = subprocess.run([sys.executable, "-m", "behavioral_model", "switch", str(bad),
                           "--no-grpc"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "bad.p4" in proc.stderr


def test_switch_process_applies_queue_settings() -> None:
    from behavioral_model.switch.process import SwitchOptions, SwitchProcess

    process = SwitchProcess(SwitchOptions(
        program=str(ROUTER), grpc_addr=None, priority_queues=2, queue_depth=10,
        queue_rate_pps=50, port_queue_depths={3: 4}, port_queue_rates={3: 7}))
    process.start()
    try:
        tm = process.core.tm
        assert tm.nb_priorities == 2
        assert tm.queue_config(1) == (10, 50)
        assert tm.queue_config(3, 1) == (4, 7)
        assert process.core.pipeline() is not None
    finally:
        process.stop()
    assert not process.core.running
