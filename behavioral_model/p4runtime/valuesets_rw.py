"""``ValueSetEntry`` (parser value sets) and ``DigestEntry`` (digest configuration).

A value set is only MODIFYed, with its whole member list (empty = cleared). Members
follow the table match rules; the runtime stores each as one ``(value, mask)`` over the
fields concatenated in P4Info order (the first field most significant), which is how
the parser compares a select key with a value set. Duplicates are ALREADY_EXISTS and
more members than the P4Info size RESOURCE_EXHAUSTED (spec, "ValueSetEntry").

A ``DigestEntry`` INSERT enables a digest with its configuration, MODIFY changes it,
DELETE disables it (spec, "DigestEntry"); batching itself lives in ``digests``.
"""

from __future__ import annotations

from collections.abc import Callable

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.digests import DigestConfig
from behavioral_model.runtime.matches import Exact, FieldMatch, Lpm, Optional_, Ternary, prefix_mask

from .context import PipelineContext
from .errors import already_exists, invalid, not_found, resource_exhausted, unimplemented
from .fieldmatch import decode_matches, encode_match, match_data
from .p4info_index import ValueSetInfo

__all__ = ["write_value_set", "read_value_sets", "write_digest", "read_digests"]

Update = p4runtime_pb2.Update


def _pack(info: ValueSetInfo, matches: tuple[FieldMatch | None, ...]) -> tuple[int, int]:
    value = mask = 0
    for field, match in zip(info.fields, matches, strict=True):
        width = field.bitwidth
        full = (1 << width) - 1
        if match is None:
            v, m = 0, 0
        elif isinstance(match, Exact):
            v, m = match.value, full
        elif isinstance(match, Lpm):
            v, m = match.value, prefix_mask(match.prefix_len, width)
        elif isinstance(match, Ternary):
            v, m = match.value, match.mask
        elif isinstance(match, Optional_):
            v, m = (0, 0) if match.value is None else (match.value, full)
        else:
            raise unimplemented(f"value set '{info.name}': range matches are not "
                                "supported by this target")
        value = (value << width) | v
        mask = (mask << width) | m
    return value, mask


def write_value_set(ctx: PipelineContext, kind: int,
                    vse: p4runtime_pb2.ValueSetEntry) -> None:
    if kind != Update.MODIFY:
        raise invalid("ValueSetEntry can only be modified (not inserted or deleted)")
    info = ctx.index.value_set(vse.value_set_id)
    owner = f"value set '{info.name}'"
    decoded: list[tuple[FieldMatch | None, ...]] = []
    packed: list[tuple[int, int]] = []
    for member in vse.members:
        matches = decode_matches(info.fields_by_id, len(info.fields),
                                 [match_data(fm) for fm in member.match], owner)
        if matches in decoded:
            raise already_exists(f"{owner}: the same member is given twice")
        packed.append(_pack(info, matches))
        decoded.append(matches)
    if info.size and len(packed) > info.size:
        raise resource_exhausted(f"{owner} holds at most {info.size} members, got "
                                 f"{len(packed)}")
    members = ctx.state.value_sets[info.name]
    members[:] = packed  # in place: the compiled parser holds this list
    ctx.extras.vs_members[info.name] = [
        p4runtime_pb2.ValueSetMember(match=[
            encode_match(f, m) for f, m in zip(info.fields, matches, strict=True)
            if m is not None])
        for matches in decoded
    ]


def read_value_sets(ctx: PipelineContext, want: p4runtime_pb2.ValueSetEntry,
                    new: Callable[[], p4runtime_pb2.ValueSetEntry]) -> None:
    infos = ([ctx.index.value_set(want.value_set_id)] if want.value_set_id
             else list(ctx.index.value_sets.values()))
    for info in infos:
        out = new()
        out.value_set_id = info.id
        out.members.extend(ctx.extras.vs_members.get(info.name, []))


def write_digest(ctx: PipelineContext, kind: int, de: p4runtime_pb2.DigestEntry) -> None:
    info = ctx.index.digest(de.digest_id)
    configs = ctx.extras.digest_configs
    what = f"digest '{info.name}'"
    if kind == Update.DELETE:
        if info.id not in configs:
            raise not_found(f"{what} is not enabled")
        del configs[info.id]
        ctx.state.digests.unconfigure(info.name)
        return
    if kind not in (Update.INSERT, Update.MODIFY):
        raise invalid("update type must be INSERT, MODIFY or DELETE")
    if not de.HasField("config"):
        raise invalid(f"{what}: config is not set")
    cfg = de.config
    if cfg.max_timeout_ns < 0 or cfg.max_list_size < 0 or cfg.ack_timeout_ns < 0:
        raise invalid(f"{what}: configuration values cannot be negative")
    if kind == Update.INSERT and info.id in configs:
        raise already_exists(f"{what} is already enabled")
    if kind == Update.MODIFY and info.id not in configs:
        raise not_found(f"{what} is not enabled")
    configs[info.id] = p4runtime_pb2.DigestEntry.Config()
    configs[info.id].CopyFrom(cfg)
    ctx.state.digests.configure(info.name, DigestConfig(
        cfg.max_list_size, cfg.max_timeout_ns, cfg.ack_timeout_ns))


def read_digests(ctx: PipelineContext, want: p4runtime_pb2.DigestEntry,
                 new: Callable[[], p4runtime_pb2.DigestEntry]) -> None:
    configs = ctx.extras.digest_configs
    if want.digest_id:
        ctx.index.digest(want.digest_id)
        ids = [want.digest_id] if want.digest_id in configs else []
    else:
        ids = sorted(configs)
    for digest_id in ids:
        out = new()
        out.digest_id = digest_id
        out.config.CopyFrom(configs[digest_id])
