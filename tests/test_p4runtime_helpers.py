"""Helpers for the P4Runtime server tests (an in-process server on an ephemeral port,
controllers with a StreamChannel, P4Info lookups by name), plus tests of the pieces
that need no server: byte strings, device-config bundles, controller headers."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2, status_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.p4runtime.codec import decode_int, decode_uint, encode_int, encode_uint
from behavioral_model.p4runtime.device_config import load_bundle, make_bundle, parse_bundle
from behavioral_model.p4runtime.errors import P4RTError
from behavioral_model.p4runtime.local_target import LocalTarget
from behavioral_model.p4runtime.packet_io import ControllerHeader
from behavioral_model.p4runtime.server import P4RuntimeServer
from behavioral_model.program import load_program

ROOT = Path(__file__).resolve().parent.parent
ROUTER = ROOT / "examples" / "ipv6_router.p4"
SWITCH = ROOT / "tests" / "p4" / "p4rt_switch.p4"
CPU_PORT = 255
DEVICE_ID = 1
TIMEOUT = 5.0

_P4INFO_CACHE: dict[Path, p4info_pb2.P4Info] = {}


def p4info_of(path: Path) -> p4info_pb2.P4Info:
    if path not in _P4INFO_CACHE:
        _P4INFO_CACHE[path] = generate_p4info(load_program(path).checked)
    return _P4INFO_CACHE[path]


class Names:
    """P4Info lookups by (suffix of) name."""

    def __init__(self, p4info: p4info_pb2.P4Info) -> None:
        self.p4info = p4info

    @staticmethod
    def _find(objects, name: str):  # type: ignore[no-untyped-def]
        for o in objects:
            if o.preamble.name == name or o.preamble.name.endswith("." + name):
                return o
        raise KeyError(name)

    def table(self, name: str) -> p4info_pb2.Table:
        return self._find(self.p4info.tables, name)

    def table_id(self, name: str) -> int:
        return self.table(name).preamble.id

    def action_id(self, name: str) -> int:
        return self._find(self.p4info.actions, name).preamble.id

    def field_id(self, table: str, field: str) -> int:
        return next(f.id for f in self.table(table).match_fields if f.name == field)

    def counter_id(self, name: str) -> int:
        return self._find(self.p4info.counters, name).preamble.id

    def meter_id(self, name: str) -> int:
        return self._find(self.p4info.meters, name).preamble.id

    def register_id(self, name: str) -> int:
        return self._find(self.p4info.registers, name).preamble.id

    def digest_id(self, name: str) -> int:
        return self._find(self.p4info.digests, name).preamble.id

    def value_set_id(self, name: str) -> int:
        return self._find(self.p4info.value_sets, name).preamble.id

    def profile_id(self, name: str) -> int:
        return self._find(self.p4info.action_profiles, name).preamble.id

    def action(self, name: str, *args: int) -> p4runtime_pb2.Action:
        info = self._find(self.p4info.actions, name)
        action = p4runtime_pb2.Action(action_id=info.preamble.id)
        for param, value in zip(info.params, args, strict=True):
            action.params.add(param_id=param.id, value=encode_uint(value))
        return action

    def entry(self, table: str, matches: dict[str, object], action: str | None = None,
              args: tuple[int, ...] = (), priority: int = 0) -> p4runtime_pb2.TableEntry:
        """``matches`` values: int (exact/optional), (value, plen) for lpm,
        ("t", value, mask) for ternary, ("r", low, high) for range."""
        t = self.table(table)
        te = p4runtime_pb2.TableEntry(table_id=t.preamble.id, priority=priority)
        fields = {f.name: f for f in t.match_fields}
        for name, value in matches.items():
            f = fields[name]
            fm = te.match.add(field_id=f.id)
            if f.match_type == p4info_pb2.MatchField.EXACT:
                fm.exact.value = encode_uint(value)  # type: ignore[arg-type]
            elif f.match_type == p4info_pb2.MatchField.LPM:
                fm.lpm.value = encode_uint(value[0])  # type: ignore[index]
                fm.lpm.prefix_len = value[1]  # type: ignore[index]
            elif f.match_type == p4info_pb2.MatchField.TERNARY:
                fm.ternary.value = encode_uint(value[1])  # type: ignore[index]
                fm.ternary.mask = encode_uint(value[2])  # type: ignore[index]
            elif f.match_type == p4info_pb2.MatchField.RANGE:
                fm.range.low = encode_uint(value[1])  # type: ignore[index]
                fm.range.high = encode_uint(value[2])  # type: ignore[index]
            else:
                fm.optional.value = encode_uint(value)  # type: ignore[arg-type]
        if action is not None:
            te.action.action.CopyFrom(self.action(action, *args))
        return te


def frame(dst: int, src: int, ether_type: int = 0x0800, size: int = 64) -> bytes:
    """An Ethernet frame of ``size`` bytes, zeros after the header."""
    head = dst.to_bytes(6, "big") + src.to_bytes(6, "big") + ether_type.to_bytes(2, "big")
    return head + bytes(size - len(head))


def update(kind: int, **entity: object) -> p4runtime_pb2.Update:
    u = p4runtime_pb2.Update(type=kind)
    for name, value in entity.items():
        getattr(u.entity, name).CopyFrom(value)
    return u


INSERT, MODIFY, DELETE = (p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY,
                          p4runtime_pb2.Update.DELETE)


def status_details(err: grpc.RpcError) -> list[p4runtime_pb2.Error]:
    """The per-update ``p4.v1.Error``s of a failed Write/Read."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            out = []
            for detail in status.details:
                e = p4runtime_pb2.Error()
                assert detail.Unpack(e)
                out.append(e)
            return out
    return []


def detail_codes(err: grpc.RpcError) -> list[int]:
    return [e.canonical_code for e in status_details(err)]


class Controller:
    """One client: a StreamChannel, its received messages, and helpers for RPCs."""

    def __init__(self, stub: p4runtime_pb2_grpc.P4RuntimeStub, election_id: int | None,
                 role: str = "", device_id: int = DEVICE_ID) -> None:
        self.stub = stub
        self.election_id = election_id
        self.role = role
        self.device_id = device_id
        self._out: queue.Queue[p4runtime_pb2.StreamMessageRequest | None] = queue.Queue()
        self.received: dict[str, queue.Queue] = {
            k: queue.Queue() for k in ("arbitration", "packet", "digest", "error", "other")}
        self.stream_error: grpc.RpcError | None = None
        self.p4info = p4info_pb2.P4Info()
        self._stream = stub.StreamChannel(self._requests())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _requests(self) -> Iterator[p4runtime_pb2.StreamMessageRequest]:
        while True:
            item = self._out.get()
            if item is None:
                return
            yield item

    def _read(self) -> None:
        try:
            for resp in self._stream:
                kind = resp.WhichOneof("update")
                self.received.get(kind, self.received["other"]).put(resp)
        except grpc.RpcError as err:
            self.stream_error = err
        finally:
            self.received["arbitration"].put(None)

    def send(self, req: p4runtime_pb2.StreamMessageRequest) -> None:
        self._out.put(req)

    def arbitrate(self, election_id: int | None = None,
                  wait: bool = True) -> p4runtime_pb2.MasterArbitrationUpdate | None:
        if election_id is not None:
            self.election_id = election_id
        req = p4runtime_pb2.StreamMessageRequest()
        arb = req.arbitration
        arb.device_id = self.device_id
        if self.role:
            arb.role.name = self.role
        if self.election_id is not None:
            arb.election_id.high = self.election_id >> 64
            arb.election_id.low = self.election_id & ((1 << 64) - 1)
        self.send(req)
        return self.next_arbitration() if wait else None

    def next(self, kind: str, timeout: float = TIMEOUT):  # type: ignore[no-untyped-def]
        try:
            return self.received[kind].get(timeout=timeout)
        except queue.Empty:
            return None

    def next_arbitration(self, timeout: float = TIMEOUT
                         ) -> p4runtime_pb2.MasterArbitrationUpdate | None:
        resp = self.next("arbitration", timeout)
        return None if resp is None else resp.arbitration

    def is_primary_msg(self, arb: p4runtime_pb2.MasterArbitrationUpdate | None) -> bool:
        return arb is not None and arb.status.code == code_pb2.OK

    def _stamp(self, req):  # type: ignore[no-untyped-def]
        req.device_id = self.device_id
        if self.role:
            req.role = self.role
        if self.election_id is not None:
            req.election_id.high = self.election_id >> 64
            req.election_id.low = self.election_id & ((1 << 64) - 1)
        return req

    def write(self, *updates: p4runtime_pb2.Update,
              atomicity: int = 0) -> p4runtime_pb2.WriteResponse:
        req = self._stamp(p4runtime_pb2.WriteRequest(atomicity=atomicity))
        req.updates.extend(updates)
        return self.stub.Write(req, timeout=30)

    def read(self, *entities: p4runtime_pb2.Entity) -> list[p4runtime_pb2.Entity]:
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.extend(entities)
        out: list[p4runtime_pb2.Entity] = []
        for resp in self.stub.Read(req, timeout=30):
            out.extend(resp.entities)
        return out

    def set_pipeline(self, path: Path | None = None, action: int | None = None,
                     device_config: bytes | None = None,
                     p4info: p4info_pb2.P4Info | None = None, cookie: int = 0) -> None:
        Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
        req = self._stamp(Req(action=Req.VERIFY_AND_COMMIT if action is None else action))
        if path is not None or device_config is not None or p4info is not None:
            req.config.p4info.CopyFrom(p4info if p4info is not None else p4info_of(path))
            req.config.p4_device_config = (device_config if device_config is not None
                                           else make_bundle(path))
            req.config.cookie.cookie = cookie
        self.stub.SetForwardingPipelineConfig(req, timeout=60)

    def packet_out(self, payload: bytes, **metadata: int) -> None:
        """Send a packet-out; metadata by field name (needs ``self.p4info``)."""
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = payload
        for name, value in metadata.items():
            md_id = _packet_meta_id(self.p4info, "packet_out", name)
            req.packet.metadata.add(metadata_id=md_id, value=encode_uint(value))
        self.send(req)

    def close(self) -> None:
        self._out.put(None)
        self._stream.cancel()
        self._reader.join(timeout=TIMEOUT)


def _packet_meta_id(p4info: p4info_pb2.P4Info, which: str, field: str) -> int:
    for cpm in p4info.controller_packet_metadata:
        if cpm.preamble.name == which:
            return next(m.id for m in cpm.metadata if m.name == field)
    raise KeyError(field)


class Harness:
    """A LocalTarget and a P4RuntimeServer on 127.0.0.1:<ephemeral>."""

    def __init__(self, device_id: int = DEVICE_ID, cpu_port: int = CPU_PORT) -> None:
        self.target = LocalTarget(device_id=device_id, cpu_port=cpu_port)
        self.server = P4RuntimeServer(self.target, "127.0.0.1:0")
        self.server.start()
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.server.port}")
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.controllers: list[Controller] = []

    def controller(self, election_id: int | None = 1, role: str = "",
                   arbitrate: bool = True) -> Controller:
        c = Controller(self.stub, election_id, role)
        self.controllers.append(c)
        if arbitrate:
            c.arbitrate()
        return c

    def primary_with(self, path: Path, election_id: int = 1) -> Controller:
        c = self.controller(election_id)
        c.set_pipeline(path)
        c.p4info = p4info_of(path)
        return c

    def close(self) -> None:
        for c in self.controllers:
            c.close()
        self.channel.close()
        self.server.stop(grace=0)




# -- tests of the pieces -----------------------------------------------------------------

def test_bytestring_codec() -> None:
    assert encode_uint(0) == b"\x00"
    assert encode_uint(0x63) == b"\x63"
    assert encode_uint(0x3064) == b"\x30\x64"
    assert decode_uint(b"\x00\x63", 16, "x") == 99
    assert decode_uint(b"\x00\x00\x63", 12, "x") == 99
    for bad, width in ((b"\x01\x63", 8), (b"\x10\x63", 12), (b"", 8)):
        with pytest.raises(P4RTError):
            decode_uint(bad, width, "x")
    assert encode_int(-99) == b"\x9d"
    assert encode_int(-739) == b"\xfd\x1d"
    assert encode_int(0) == b"\x00"
    assert decode_int(b"\xff\x9d", 8, "x") == -99
    with pytest.raises(P4RTError):
        decode_int(b"\x00\x9d", 8, "x")
    with pytest.raises(P4RTError):
        decode_int(b"\x8d\x1d", 12, "x")


def test_bundle_round_trip(tmp_path: Path) -> None:
    inc = tmp_path / "include"
    inc.mkdir()
    (inc / "consts.p4").write_text("#define PORT_OUT 9w3\n")
    main = tmp_path / "prog.p4"
    main.write_text('#include <consts.p4>\n' + ROUTER.read_text().replace(
        "std.egress_spec = port;", "std.egress_spec = port | PORT_OUT;"))
    data = make_bundle(main, [inc], {"X": "1"})
    bundle = json.loads(data)
    assert bundle["format"] == "mrc-bm-p4src/1"
    assert bundle["main"] == "prog.p4"
    assert set(bundle["files"]) == {"prog.p4", "include/consts.p4"}
    assert bundle["include_dirs"] == ["include"]
    program = load_bundle(data)
    assert "RouterIngress.ipv6_lpm" in program.new_state().tables


def test_bundle_errors() -> None:
    for data, text in ((b'{"header_types": [], "__meta__": {}}', "BMv2 JSON"),
                       (b'{"format": "x"}', "unknown format"),
                       (b"\xff\xfe", "not UTF-8"),
                       (b"", "empty"),
                       (b'{"format": "mrc-bm-p4src/1", "main": "a.p4", '
                        b'"files": {"../a.p4": ""}}', "must name one of the files")):
        with pytest.raises(P4RTError, match=text) as info:
            parse_bundle(data)
        assert info.value.code == code_pb2.INVALID_ARGUMENT
    with pytest.raises(P4RTError, match=r"main.p4:1:\d+") as info:
        load_bundle(b"control C() { apply { x = ; } }")
    assert info.value.code == code_pb2.INVALID_ARGUMENT


def test_controller_header_pack_unpack() -> None:
    header = ControllerHeader("packet_in", ((1, "port", 9), (2, "_pad", 7)))
    assert header.pack({"port": 3}) == b"\x01\x80"
    values, rest = header.unpack(b"\x01\x80payload")
    assert values == {"port": 3, "_pad": 0}
    assert rest == b"payload"


def test_a_stopped_server_leaves_no_worker_threads() -> None:
    """A fabric makes and stops a server per device and run: their gRPC workers must
    end with them (each run of 250 devices left 400 threads behind)."""
    before = set(threading.enumerate())
    harness = Harness()
    controller = harness.controller()  # a stream and an RPC: workers start
    controller.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest())
    started = [t for t in threading.enumerate()
               if t not in before and t.name.startswith("p4rt")]
    assert started, "the server ran its RPCs on no worker of its pool"
    harness.close()
    for thread in started:
        thread.join(timeout=30)
    assert not [t.name for t in started if t.is_alive()]
