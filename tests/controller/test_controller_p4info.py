"""Every planned entity fits the programs' P4Info: the table, its match fields (names,
kinds, order), the action (one of the table's), its parameters (names, order) and
values within their bit widths; the digest exists. The plan names things only through
``controller.plan.p4names``, so this is where a renamed table or parameter shows up."""

from __future__ import annotations

from pathlib import Path

import pytest
from p4.config.v1 import p4info_pb2

from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import preprocess
from behavioral_model.program import check_source
from controller.device import PipelineCache
from controller.plan import DigestConfig, Exact, FabricPlan, MulticastGroup
from controller.topology import DeviceAccess, Role

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = {"switch": ROOT / "p4src" / "srv6_switch.p4", "nic": ROOT / "p4src" / "mrc_nic.p4"}


@pytest.fixture(scope="module")
def p4infos() -> dict[str, p4info_pb2.P4Info]:
    return {kind: generate_p4info(check_source(preprocess(path, [ROOT / "p4src" / "include"])))
            for kind, path in PROGRAMS.items()}


def test_every_planned_entity_fits_the_programs(p4infos: dict[str, p4info_pb2.P4Info],
                                                small: FabricPlan) -> None:
    for device in small.device_names():
        info = p4infos["nic" if small.role_of(device) is Role.NIC else "switch"]
        tables = {t.preamble.name: t for t in info.tables}
        actions = {a.preamble.name: a for a in info.actions}
        digests = {d.preamble.name for d in info.digests}
        for entity in small.device_entities(device):
            if isinstance(entity, MulticastGroup):
                continue  # PRE entities are not in P4Info
            if isinstance(entity, DigestConfig):
                assert entity.digest in digests
                continue
            table = tables[entity.table]
            assert [name for name, _ in entity.match] == [f.name for f in table.match_fields]
            for (_, value), field in zip(entity.match, table.match_fields, strict=True):
                kind = (p4info_pb2.MatchField.EXACT if isinstance(value, Exact)
                        else p4info_pb2.MatchField.LPM)
                assert field.match_type == kind, (entity.table, field.name)
                assert 0 <= value.value < 1 << field.bitwidth, (entity.table, field.name)
            action = actions[entity.action]
            assert action.preamble.id in {ref.id for ref in table.action_refs}
            assert [name for name, _ in entity.params] == [p.name for p in action.params]
            for (_, value), param in zip(entity.params, action.params, strict=True):
                assert 0 <= value < 1 << param.bitwidth, (entity.action, param.name)


def test_the_pipeline_cache_gives_every_device_a_p4info_of_its_own() -> None:
    """The supervisors program devices from several threads; a P4Info message shared
    between them is mutated by reads in the pure-Python protobuf (see PipelineCache)."""
    cache = PipelineCache()
    access = DeviceAccess("127.0.0.1:9559", 1, "bm", str(PROGRAMS["switch"]))
    first, second = cache.get(access), cache.get(access)
    assert first.p4info is not second.p4info
    assert first.p4info == second.p4info and first.p4info.tables
    assert (first.cookie, first.device_config) == (second.cookie, second.device_config)
