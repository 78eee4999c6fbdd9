"""SetForwardingPipelineConfig / GetForwardingPipelineConfig (P4Runtime spec, sections
of the same names).

* VERIFY: compile the device config (a P4 source bundle, see ``device_config``) and
  check that the P4Info describes that program. Nothing changes.
* VERIFY_AND_SAVE: verify, then keep the new pipeline *staged* with its own fresh
  state: later Writes and Reads go to the staged pipeline (as the spec asks), while
  the data plane keeps running the old one.
* COMMIT: make the staged pipeline the running one; the target gets a fresh state and
  the Writes accepted since the save are replayed on it ("replaying the write
  requests"). NOT_FOUND without a staged pipeline; INVALID_ARGUMENT with a config.
* VERIFY_AND_COMMIT: verify and run the new pipeline with a fresh (cleared) state.
* RECONCILE_AND_COMMIT: verify and run the new pipeline keeping the forwarding state
  that still makes sense (see ``reconcile``).

An empty ``p4_device_config`` is accepted when the P4Info fits the program already
running (re-commit of the same program, e.g. started from the switch command line).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.program import P4Program

from .context import PipelineContext
from .device_config import load_bundle
from .entities import apply_update, safe
from .errors import P4RTError, invalid, not_found
from .p4info_index import P4InfoIndex, P4InfoMismatch
from .reconcile import reconcile

if TYPE_CHECKING:
    from .server import P4RuntimeServer

__all__ = ["Staged", "set_pipeline", "get_pipeline"]

log = logging.getLogger("behavioral_model.p4runtime")
Req = p4runtime_pb2.SetForwardingPipelineConfigRequest


@dataclass
class Staged:
    """A pipeline saved by VERIFY_AND_SAVE and the Writes accepted since."""

    ctx: PipelineContext
    updates: list[p4runtime_pb2.Update] = field(default_factory=list)


@dataclass
class Verified:
    program: P4Program
    p4info: p4info_pb2.P4Info
    cookie: int
    device_config: bytes


def verify(server: P4RuntimeServer, req: p4runtime_pb2.SetForwardingPipelineConfigRequest
           ) -> Verified:
    if not req.HasField("config"):
        raise invalid("the request has no config")
    config = req.config
    if config.p4info.ByteSize() == 0:
        raise invalid("the config has no P4Info")
    p4info = p4info_pb2.P4Info()
    p4info.CopyFrom(config.p4info)
    if config.p4_device_config:
        program = load_bundle(config.p4_device_config)
        device_config = config.p4_device_config
    else:
        live = server.live_context()
        if live is None:
            raise invalid("empty p4_device_config and no program is running: send the P4 "
                          "source bundle (see behavioral_model/p4runtime/device_config.py)")
        program, device_config = live.program, live.device_config
    arch = getattr(server.target, "arch", None)
    if arch is not None and program.arch != arch:
        raise invalid(f"the device config is a {program.arch} program; this device runs "
                      f"{arch} programs")
    try:
        P4InfoIndex(p4info, program.new_state())
    except P4InfoMismatch as err:
        raise invalid(str(err)) from None
    return Verified(program, p4info, config.cookie.cookie, device_config)


def set_pipeline(server: P4RuntimeServer,
                 req: p4runtime_pb2.SetForwardingPipelineConfigRequest) -> None:
    """Perform ``req.action``; the caller checked device, role and primary."""
    action = req.action
    log.info("SetForwardingPipelineConfig %s", Req.Action.Name(action))
    if action == Req.COMMIT:
        if req.HasField("config") and (req.config.p4info.ByteSize()
                                       or req.config.p4_device_config):
            raise invalid("COMMIT takes no config; it commits the one saved by "
                          "VERIFY_AND_SAVE")
        staged = server.staged
        if staged is None:
            raise not_found("no saved config to commit (use VERIFY_AND_SAVE first)")
        _commit(server, Verified(staged.ctx.program, staged.ctx.p4info, staged.ctx.cookie,
                                 staged.ctx.device_config), staged.updates)
        return
    if action not in (Req.VERIFY, Req.VERIFY_AND_SAVE, Req.VERIFY_AND_COMMIT,
                      Req.RECONCILE_AND_COMMIT):
        raise invalid(f"unknown action {action}")
    verified = verify(server, req)
    if action == Req.VERIFY:
        return
    if action == Req.VERIFY_AND_SAVE:
        state = verified.program.new_state()
        ctx = PipelineContext(verified.program, verified.p4info,
                              P4InfoIndex(verified.p4info, state), verified.cookie, state,
                              verified.device_config, now_ns=server.target.now_ns)
        server.staged = Staged(ctx)
        return
    if action == Req.VERIFY_AND_COMMIT:
        _commit(server, verified, [])
        return
    old = server.live_context()
    target = server.target
    with target.lock:
        new = _swap(server, verified)
        if old is not None:
            reconcile(old, new)


def _swap(server: P4RuntimeServer, verified: Verified) -> PipelineContext:
    target = server.target
    with target.lock:
        target.set_pipeline(verified.program, verified.p4info, verified.cookie)
        server.staged = None
        server.remember_device_config(verified.program, verified.device_config)
        server.digests.reset()
        ctx = server.live_context()
    if ctx is None:
        raise P4RTError(code_pb2.INTERNAL, "the target did not take the new pipeline")
    return ctx


def _commit(server: P4RuntimeServer, verified: Verified,
            replay: list[p4runtime_pb2.Update]) -> None:
    with server.target.lock:
        ctx = _swap(server, verified)
        for update in replay:
            _, err = safe(lambda u=update: apply_update(ctx, u), "COMMIT replay")
            if err is not None:
                log.warning("COMMIT: replayed update failed: %s", err)
    server.idle_timeouts.pipeline_changed()


def get_pipeline(server: P4RuntimeServer,
                 req: p4runtime_pb2.GetForwardingPipelineConfigRequest
                 ) -> p4runtime_pb2.GetForwardingPipelineConfigResponse:
    resp = p4runtime_pb2.GetForwardingPipelineConfigResponse()
    ctx = server.live_context()
    if ctx is not None:
        resp.config.CopyFrom(ctx.forwarding_config(req.response_type))
    return resp
