"""``P4RuntimeTest``: the base class of our PTF tests, for bm and BMv2 alike.

Test parameters (``ptf --test-params "k=v;k=v"``, Python literals; ``scripts/run_ptf.sh``
passes them all):

============  ===========================================================================
grpcaddr      P4Runtime server, default ``'127.0.0.1:9559'``
p4info        P4Info file (text, JSON or binary) — required
config        device config: a ``.p4`` file is bundled with
              ``behavioral_model.p4runtime.device_config.make_bundle`` (bm); anything
              else is sent as it is (bm: a bundle file; BMv2: p4c's JSON) — required
config_include  ``-I`` folders for bundling a ``.p4`` config (list or ``:``-separated)
device_id     default 0
cpu_port      default 255 (the controller's port, for packet-in/out)
target        ``'bm'`` or ``'bmv2'``: only used by :func:`model_only` checks
push          ``'auto'`` (default: push unless the device already runs this exact
              pipeline, compared by cookie), ``'always'`` or ``'never'``
canonical     send canonical byte strings (default True; False pads to full width)
results_file  a file to which each test appends its outcome as a line of JSON
              (``ptf_outcomes.py``; ``run_ptf.sh --results-dir`` sets it)
============  ===========================================================================

Each test gets a fresh P4Runtime session (StreamChannel, primary with election id
(0, 1)); the pipeline is pushed with VERIFY_AND_COMMIT. Every write made through the
helpers is recorded and undone in ``tearDown`` in reverse order (inserts deleted,
modified defaults, counters and pre-existing entries restored), so tests do not see
each other's state. Counters are *not* reset between tests: assert on differences.
"""

from __future__ import annotations

import functools
import logging
import unittest
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
import ptf
import ptf.testutils as testutils
from google.protobuf import text_format
from p4.v1 import p4runtime_pb2
from ptf.base_tests import BaseTest
from ptf_outcomes import record_outcome

from p4rt_client import (
    P4InfoHelper,
    P4RuntimeSession,
    P4RuntimeWriteError,
    Value,
    code_name,
    grpc_code,
    load_p4info,
    pipeline_cookie,
    update,
)

__all__ = ["P4RuntimeTest", "model_only", "P4RuntimeWriteError"]

log = logging.getLogger("ptf_tests")

_T = TypeVar("_T")
INSERT = p4runtime_pb2.Update.INSERT
MODIFY = p4runtime_pb2.Update.MODIFY
DELETE = p4runtime_pb2.Update.DELETE
DEFAULT_TIMEOUT = 2.0

# Filled once per PTF process: the P4Info and device config are read (and a .p4 bundled)
# on first use.
_PIPELINE_CACHE: dict[tuple[str, str, str], tuple[Any, bytes]] = {}


def model_only(reason: str) -> Callable[[Callable[..., _T]], Callable[..., _T | None]]:
    """Mark a test method (or ``runTest``) as a check only our model can do (e.g.
    P4Runtime register reads, which BMv2 does not serve): skipped on other targets."""

    def wrap(fn: Callable[..., _T]) -> Callable[..., _T | None]:
        @functools.wraps(fn)
        def run(self: P4RuntimeTest, *args: Any, **kwargs: Any) -> _T | None:
            if self.target != "bm":
                self.skipTest(f"model-only ({reason}); target is {self.target}")
            return fn(self, *args, **kwargs)

        run.model_only = reason  # type: ignore[attr-defined]
        return run

    return wrap


def _entity_key(entity: p4runtime_pb2.Entity) -> bytes:
    """What identifies an entity (its data removed), for matching undo records."""
    key = p4runtime_pb2.Entity()
    key.CopyFrom(entity)
    which = key.WhichOneof("entity")
    if which == "table_entry":
        te = key.table_entry
        for f in ("action", "counter_data", "meter_config", "idle_timeout_ns",
                  "time_since_last_hit", "metadata", "meter_counter_data"):
            te.ClearField(f)
        fields = sorted(te.match, key=lambda m: m.field_id)
        del te.match[:]
        te.match.extend(fields)
    elif which == "packet_replication_engine_entry":
        pre = key.packet_replication_engine_entry
        kind = pre.WhichOneof("type")
        if kind == "multicast_group_entry":
            gid = pre.multicast_group_entry.multicast_group_id
            pre.multicast_group_entry.Clear()
            pre.multicast_group_entry.multicast_group_id = gid
        elif kind == "clone_session_entry":
            sid = pre.clone_session_entry.session_id
            pre.clone_session_entry.Clear()
            pre.clone_session_entry.session_id = sid
    elif which == "digest_entry":
        key.digest_entry.ClearField("config")
    elif which in ("counter_entry", "direct_counter_entry"):
        getattr(key, which).ClearField("data")
    elif which == "register_entry":
        key.register_entry.ClearField("data")
    elif which in ("meter_entry", "direct_meter_entry"):
        getattr(key, which).ClearField("config")
        getattr(key, which).ClearField("counter_data")
    elif which == "action_profile_member":
        key.action_profile_member.ClearField("action")
    elif which == "action_profile_group":
        key.action_profile_group.ClearField("members")
        key.action_profile_group.ClearField("max_size")
    return key.SerializeToString(deterministic=True)


class P4RuntimeTest(BaseTest):
    """PTF base test: P4Runtime session, pipeline, recorded writes, helpers by name."""

    session: P4RuntimeSession
    helper: P4InfoHelper

    # -- running, set-up and tear-down ---------------------------------------------------
    def run(self, result: unittest.TestResult | None = None) -> unittest.TestResult | None:
        """Run the test as unittest does; with the ``results_file`` parameter, append its
        outcome there too (what PTF prints can be interleaved with other output).
        PTF's runner passes the result in (PTF's BaseTest.run returns None)."""
        super().run(result)
        path = testutils.test_params_get().get("results_file")
        if path and result is not None:
            record_outcome(str(path), self, result)
        return result

    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        if self.dataplane is not None:
            self.dataplane.flush()
        params = testutils.test_params_get()
        self.grpc_addr: str = params.get("grpcaddr", "127.0.0.1:9559")
        self.device_id: int = int(params.get("device_id", 0))
        self.cpu_port: int = int(params.get("cpu_port", 255))
        self.target: str = str(params.get("target", "bm"))
        p4info_path = params.get("p4info")
        config_path = params.get("config")
        if not p4info_path or not config_path:
            self.fail("test parameters 'p4info' and 'config' are required "
                      "(see ptf_tests/lib/base_test.py)")
        include = params.get("config_include", ())
        if isinstance(include, str):
            include = [d for d in include.split(":") if d]
        p4info, device_config = self._load_pipeline(str(p4info_path), str(config_path),
                                                     list(include))
        self.helper = P4InfoHelper(p4info, canonical=bool(params.get("canonical", True)))
        self._undo: list[tuple[bytes | None, p4runtime_pb2.Update]] = []
        self._inserted: set[bytes] = set()
        self.session = P4RuntimeSession(self.grpc_addr, self.device_id, (0, 1))
        self.session.connect()
        try:
            push = str(params.get("push", "auto"))
            cookie = pipeline_cookie(p4info, device_config)
            if push == "always" or (push == "auto"
                                    and self.session.get_pipeline_cookie() != cookie):
                log.info("pushing the pipeline (%d bytes of device config)",
                         len(device_config))
                self.session.set_pipeline(p4info, device_config, cookie)
        except BaseException:
            # unittest skips tearDown when setUp fails: do not leave the stream open
            # (the next test's session would find the election id taken).
            self.session.close()
            raise

    @staticmethod
    def _load_pipeline(p4info_path: str, config_path: str,
                       include: Sequence[str]) -> tuple[Any, bytes]:
        key = (p4info_path, config_path, ":".join(include))
        if key not in _PIPELINE_CACHE:
            p4info = load_p4info(p4info_path)
            if config_path.endswith(".p4"):
                from behavioral_model.p4runtime.device_config import make_bundle

                config = make_bundle(config_path, include)
            else:
                config = Path(config_path).read_bytes()
            _PIPELINE_CACHE[key] = (p4info, config)
        return _PIPELINE_CACHE[key]

    def tearDown(self) -> None:
        try:
            self.undo_writes()
        finally:
            self.session.close()
            BaseTest.tearDown(self)

    def undo_writes(self) -> None:
        """Undo every recorded write, newest first; failures are logged (and make the
        test fail only if the test itself passed, so cleanup never hides a failure)."""
        failures = []
        while self._undo:
            _key, upd = self._undo.pop()
            try:
                self.session.write([upd])
            except P4RuntimeWriteError as error:
                failures.append(f"{p4runtime_pb2.Update.Type.Name(upd.type)} "
                                f"{text_format.MessageToString(upd.entity, as_one_line=True)}"
                                f": {error}")
        self._inserted.clear()
        if failures:
            for f in failures:
                log.error("cleanup failed: %s", f)
            raise AssertionError("cleanup failed:\n" + "\n".join(failures))

    # -- writes (recorded) ---------------------------------------------------------------
    def _read_current(self, entity: p4runtime_pb2.Entity) -> p4runtime_pb2.Entity | None:
        try:
            found = self.session.read([entity])
        except P4RuntimeWriteError as error:
            log.warning("cannot read %s to undo a write later: %s",
                        entity.WhichOneof("entity"), error)
            return None
        return found[0] if len(found) == 1 else None

    def _undo_for(self, upd: p4runtime_pb2.Update) -> list[tuple[bytes | None,
                                                               p4runtime_pb2.Update]]:
        """The undo record(s) of ``upd``, computed before it is written."""
        key = _entity_key(upd.entity)
        if upd.type == INSERT:
            undo = p4runtime_pb2.Update(type=DELETE)
            undo.entity.CopyFrom(upd.entity)
            if undo.entity.WhichOneof("entity") == "table_entry":
                undo.entity.table_entry.ClearField("action")
            return [(key, undo)]
        if key in self._inserted:
            return []  # our own entry: deleting the insert's undo record is enough
        which = upd.entity.WhichOneof("entity")
        if upd.type == DELETE and which in ("counter_entry", "direct_counter_entry",
                                            "register_entry", "meter_entry"):
            return []
        probe = p4runtime_pb2.Entity()
        probe.CopyFrom(upd.entity)
        if which == "table_entry":
            probe.table_entry.ClearField("action")
        old = self._read_current(probe)
        if old is None:
            return []
        if which == "table_entry":
            # Restore the entry or default action as it was; data such as counters is
            # not rewritten.
            for f in ("counter_data", "meter_config", "meter_counter_data",
                      "time_since_last_hit"):
                old.table_entry.ClearField(f)
        restore = p4runtime_pb2.Update(type=MODIFY if upd.type == MODIFY else INSERT)
        restore.entity.CopyFrom(old)
        return [(None, restore)]

    def write(self, updates: Sequence[p4runtime_pb2.Update],
              atomicity: int = p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR) -> None:
        """Write a batch and record how to undo the updates that were applied."""
        planned = [self._undo_for(u) for u in updates]
        try:
            self.session.write(updates, atomicity)
        except P4RuntimeWriteError as error:
            applied = set(error.applied()) if error.errors else set()
            self._record([(u, p) for i, (u, p) in enumerate(zip(updates, planned,
                                                                strict=True))
                          if i in applied])
            raise
        self._record(list(zip(updates, planned, strict=True)))

    def _record(self, done: Iterable[tuple[p4runtime_pb2.Update, list[Any]]]) -> None:
        for upd, undo in done:
            key = _entity_key(upd.entity)
            if upd.type == DELETE and key in self._inserted:
                self._inserted.discard(key)
                self._undo = [(k, u) for k, u in self._undo if k != key]
                continue
            if upd.type == INSERT:
                self._inserted.add(key)
            self._undo.extend(undo)

    def insert(self, *entities: Any) -> None:
        """INSERT (one batch) of TableEntry / PRE / DigestEntry... messages."""
        self.write([update(INSERT, e) for e in entities])

    def modify(self, *entities: Any) -> None:
        self.write([update(MODIFY, e) for e in entities])

    def delete(self, *entities: Any) -> None:
        self.write([update(DELETE, e) for e in entities])

    # -- entity helpers (by name) -------------------------------------------------------
    def table_entry(self, table: str, match: Mapping[str, Any] | None = None,
                    action: str | None = None, params: Mapping[str, Value] | None = None,
                    priority: int = 0) -> p4runtime_pb2.TableEntry:
        return self.helper.table_entry(table, match, action, params, priority)

    def insert_table_entry(self, table: str, match: Mapping[str, Any] | None = None,
                           action: str | None = None,
                           params: Mapping[str, Value] | None = None,
                           priority: int = 0) -> p4runtime_pb2.TableEntry:
        entry = self.table_entry(table, match, action, params, priority)
        self.insert(entry)
        return entry

    def set_default(self, table: str, action: str,
                    params: Mapping[str, Value] | None = None) -> None:
        """MODIFY the default entry (restored in tearDown)."""
        self.modify(self.helper.table_entry(table, None, action, params, default=True))

    def add_multicast_group(self, group_id: int,
                            replicas: Iterable[int | tuple[int, int]]) -> None:
        self.insert(self.helper.multicast_group_entry(group_id, replicas))

    def add_clone_session(self, session_id: int, replicas: Iterable[int | tuple[int, int]],
                          class_of_service: int = 0, packet_length_bytes: int = 0) -> None:
        self.insert(self.helper.clone_session_entry(session_id, replicas, class_of_service,
                                                    packet_length_bytes))

    def enable_digest(self, name: str, max_timeout_ns: int = 0, max_list_size: int = 1,
                      ack_timeout_ns: int = 1_000_000_000) -> None:
        self.insert(self.helper.digest_entry(name, max_timeout_ns, max_list_size,
                                             ack_timeout_ns))

    # -- reads --------------------------------------------------------------------------
    def read(self, *entities: Any) -> list[p4runtime_pb2.Entity]:
        return self.session.read(entities)

    def read_table_entries(self, table: str) -> list[p4runtime_pb2.TableEntry]:
        probe = p4runtime_pb2.TableEntry(table_id=self.helper.get_id("tables", table))
        return [e.table_entry for e in self.read(probe)]

    def read_counter(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of an indexed counter cell."""
        (entity,) = self.read(self.helper.counter_entry(name, index))
        data = entity.counter_entry.data
        return int(data.packet_count), int(data.byte_count)

    def read_direct_counter(self, entry: p4runtime_pb2.TableEntry) -> tuple[int, int]:
        """(packets, bytes) of the direct counter of a table entry."""
        (entity,) = self.read(self.helper.direct_counter_entry(entry))
        data = entity.direct_counter_entry.data
        return int(data.packet_count), int(data.byte_count)

    def read_register(self, name: str, index: int) -> int:
        (entity,) = self.read(self.helper.register_entry(name, index))
        return int(self.helper.decode_p4data(entity.register_entry.data))

    # -- controller packets and digests ----------------------------------------------------
    def send_packet_out(self, payload: bytes | Any, **metadata: Value) -> None:
        """A PacketOut with ``packet_out`` metadata by field name (padding: 0)."""
        self.session.packet_out(bytes(payload),
                                self.helper.packet_metadata("packet_out", metadata))

    def get_packet_in(self, timeout: float = DEFAULT_TIMEOUT
                      ) -> p4runtime_pb2.PacketIn | None:
        return self.session.get_stream("packet", timeout)

    def verify_packet_in(self, exp_pkt: bytes | Any, metadata: Mapping[str, int] | None = None,
                         timeout: float = DEFAULT_TIMEOUT) -> p4runtime_pb2.PacketIn:
        """Wait for a PacketIn; assert its payload is ``exp_pkt`` and, for every field
        in ``metadata``, that the packet_in metadata has that value."""
        msg = self.get_packet_in(timeout)
        if msg is None:
            self.fail(f"no PacketIn within {timeout} s")
        expected = bytes(exp_pkt)
        if msg.payload != expected:
            self.fail("PacketIn payload differs:\n"
                      f"  expected {expected.hex()}\n  received {msg.payload.hex()}")
        got = self.helper.decode_packet_metadata("packet_in", msg.metadata)
        for name, value in (metadata or {}).items():
            self.assertIn(name, got, f"PacketIn without metadata {name!r}: {got}")
            self.assertEqual(got[name], value, f"PacketIn metadata {name}: {got}")
        return msg

    def verify_no_packet_in(self, timeout: float = 0.5) -> None:
        msg = self.get_packet_in(timeout)
        if msg is not None:
            self.fail(f"unexpected PacketIn: {msg.payload.hex()}")

    def get_digest(self, timeout: float = DEFAULT_TIMEOUT) -> p4runtime_pb2.DigestList | None:
        return self.session.get_stream("digest", timeout)

    def verify_digest(self, name: str, timeout: float = DEFAULT_TIMEOUT,
                      ack: bool = True) -> list[Any]:
        """Wait for a DigestList of digest ``name``; its entries decoded (structs as
        tuples of ints). Acked unless ``ack=False``."""
        msg = self.get_digest(timeout)
        if msg is None:
            self.fail(f"no DigestList within {timeout} s")
        self.assertEqual(msg.digest_id, self.helper.get_id("digests", name),
                         f"DigestList of another digest: {msg}")
        if ack:
            self.session.ack_digest(msg)
        return [self.helper.decode_p4data(d) for d in msg.data]

    def verify_no_digest(self, timeout: float = 0.5) -> None:
        msg = self.get_digest(timeout)
        if msg is not None:
            self.fail(f"unexpected DigestList: {msg}")

    # -- errors ---------------------------------------------------------------------------
    def assertP4RuntimeError(self, code: int | grpc.StatusCode,  # noqa: N802 (unittest)
                             fn: Callable[..., Any], *args: Any,
                             **kwargs: Any) -> P4RuntimeWriteError:
        """Assert that ``fn(*args, **kwargs)`` fails with ``code`` (a google.rpc code
        number such as ``code_pb2.ALREADY_EXISTS``, or a grpc.StatusCode): the code of a
        failed update in the per-update details of a batched Write, else the RPC's
        status. Returns the error for further checks."""
        try:
            fn(*args, **kwargs)
        except P4RuntimeWriteError as error:
            wanted = grpc_code(code)
            failed = [grpc_code(c) for c in error.failed_codes()]
            if failed:
                self.assertIn(wanted, failed,
                              f"expected {wanted.name}, the update(s) failed with "
                              f"{[c.name for c in failed]}: {error}")
            else:
                self.assertEqual(error.code, wanted,
                                 f"expected {wanted.name}, got {error}")
            return error
        self.fail(f"expected a P4Runtime error {code_name(code)}, but the call succeeded")

    # -- data plane -----------------------------------------------------------------------
    def verify_packets(self, pkt: Any, ports: Sequence[int],
                       timeout: float | None = None) -> None:
        """``pkt`` on each of ``ports`` and nothing else anywhere (one negative poll
        over all ports, instead of PTF's per-port ones: same guarantee, less waiting)."""
        for port in ports:
            testutils.verify_packet(self, pkt, port, timeout=timeout)
        testutils.verify_no_other_packets(self)

    def verify_each_packet_on_each_port(self, pkts: Sequence[Any], ports: Sequence[int],
                                        timeout: float | None = None) -> None:
        """``pkts[i]`` on ``ports[i]`` (in any order between ports) and nothing else."""
        self.assertEqual(len(pkts), len(ports))
        for pkt, port in zip(pkts, ports, strict=True):
            testutils.verify_packet(self, pkt, port, timeout=timeout)
        testutils.verify_no_other_packets(self)

    # -- misc -----------------------------------------------------------------------------
    def swports(self, index: int) -> int:
        """The ``index``-th data-plane port PTF was given (sorted)."""
        ports = sorted(p for (d, p) in ptf.config["port_map"] if d == 0)
        return ports[index]
