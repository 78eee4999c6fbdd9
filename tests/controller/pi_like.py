"""A stand-in for BMv2's P4Runtime server (PI's DeviceMgr behind simple_switch_grpc),
in process and without gRPC: it keeps what the controller writes and answers Read and
Write the way PI does where PI differs from our target, so that the controller's
handling of those answers is tested where BMv2 is not installed.

What it copies from PI (p4lang/PI, proto/frontend/src/):
- device_mgr.cpp, DeviceMgrImp::read_: entities are read in order and the first error
  ends the whole Read, with that error's code as the RPC status.
- digest_mgr.cpp, DigestMgr::config_read: a DigestEntry read needs a digest id
  (UNIMPLEMENTED for 0); DigestData::get_config: NOT_FOUND for a digest not configured.
- digest_mgr.cpp, DigestData::set_config: INSERT of a configured digest is
  ALREADY_EXISTS, MODIFY/DELETE of one not configured NOT_FOUND.
- pre_mc_mgr.cpp, PreMcMgr::read_group: replicas come back as ``egress_port``.
- device_mgr.cpp, P4ErrorReporter::get_status: a Write with a failed update is UNKNOWN
  with one p4.v1.Error per update, up to the last failed one only.
- Match and action values come back padded to the field's width (older PI builds do
  that; newer ones send the shortest form), so both sides must be compared as numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

from controller.device.encoding import key_and_value
from p4rt_client import P4InfoHelper, P4RuntimeWriteError
from p4rt_client.errors import STATUS_DETAILS_KEY

_U = p4runtime_pb2.Update


class FakeRpcError(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, message: str,
                 status: status_pb2.Status | None = None) -> None:
        super().__init__(message)
        self._code, self._message, self._status = code, message, status

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self) -> Any:
        if self._status is None:
            return ()
        return ((STATUS_DETAILS_KEY, self._status.SerializeToString()),)


def rpc_failure(code: grpc.StatusCode, message: str, what: str = "Read") -> P4RuntimeWriteError:
    return P4RuntimeWriteError(FakeRpcError(code, message), what)


class PiLikeSession:
    """Enough of a P4RuntimeSession (``read``, ``write``) for ``reconcile``."""

    def __init__(self, helper: P4InfoHelper) -> None:
        self.helper = helper
        self.held: dict[Any, p4runtime_pb2.Entity] = {}
        self.reads: list[list[p4runtime_pb2.Entity]] = []
        self.writes: list[list[p4runtime_pb2.Update]] = []

    # -- Read ---------------------------------------------------------------------------
    def read(self, entities: Iterable[Any]) -> list[p4runtime_pb2.Entity]:
        wanted = list(entities)
        self.reads.append(wanted)
        result: list[p4runtime_pb2.Entity] = []
        for want in wanted:
            kind = want.WhichOneof("entity")
            if kind == "table_entry":
                table_id = want.table_entry.table_id
                result += [self._padded(e) for e in self.held.values()
                           if e.WhichOneof("entity") == kind
                           and e.table_entry.table_id == table_id]
            elif kind == "packet_replication_engine_entry":
                result += [e for e in self.held.values() if e.WhichOneof("entity") == kind]
            elif kind == "digest_entry":
                digest_id = want.digest_entry.digest_id
                if digest_id == 0:
                    raise rpc_failure(grpc.StatusCode.UNIMPLEMENTED,
                                      "digest_id must be set when reading DigestEntry")
                held = self.held.get(("digest", digest_id))
                if held is None:
                    raise rpc_failure(grpc.StatusCode.NOT_FOUND,
                                      f"Digest {digest_id} not configured")
                result.append(held)
            else:
                raise rpc_failure(grpc.StatusCode.UNIMPLEMENTED, f"{kind} reads")
        return result

    def _padded(self, entity: p4runtime_pb2.Entity) -> p4runtime_pb2.Entity:
        out = p4runtime_pb2.Entity()
        out.CopyFrom(entity)
        entry = out.table_entry
        info = self.helper.by_id(entry.table_id)
        widths = {f.id: f.bitwidth for f in info.match_fields}
        for fm in entry.match:
            width = (widths[fm.field_id] + 7) // 8
            which = fm.WhichOneof("field_match_type")
            part = getattr(fm, which)
            part.value = part.value.rjust(width, b"\0")
        action = entry.action.action
        params = {p.id: p.bitwidth for p in self.helper.by_id(action.action_id).params}
        for p in action.params:
            p.value = p.value.rjust((params[p.param_id] + 7) // 8, b"\0")
        return out

    # -- Write --------------------------------------------------------------------------
    def write(self, updates: list[p4runtime_pb2.Update]) -> None:
        self.writes.append(list(updates))
        errors: list[tuple[int, int, str]] = []
        for index, upd in enumerate(updates):
            key, _ = key_and_value(upd.entity)
            exists = key in self.held
            if upd.type == _U.INSERT and exists:
                errors.append((index, code_pb2.ALREADY_EXISTS, "already exists"))
            elif upd.type in (_U.MODIFY, _U.DELETE) and not exists:
                errors.append((index, code_pb2.NOT_FOUND, "not found"))
            elif upd.type == _U.DELETE:
                del self.held[key]
            else:
                self.held[key] = upd.entity
        if errors:
            status = status_pb2.Status(code=code_pb2.UNKNOWN)
            done = 0
            for index, code, message in errors:
                while done < index:
                    status.details.add().Pack(p4runtime_pb2.Error(code=code_pb2.OK))
                    done += 1
                status.details.add().Pack(p4runtime_pb2.Error(
                    canonical_code=code, message=message, space="ALL-sswitch-p4org"))
                done += 1
            raise P4RuntimeWriteError(FakeRpcError(grpc.StatusCode.UNKNOWN, "", status))
