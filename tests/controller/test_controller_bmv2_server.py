"""The controller against what BMv2's P4Runtime server (PI) answers where it differs
from our target (``pi_like``): reconciling a NIC that BMv2 has just started; and
p4c-bm2-ss releases of any age giving the pipeline; a server that keeps no pipeline
cookie."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from pi_like import PiLikeSession, rpc_failure

from controller.device import DeviceLink, DeviceTarget, PipelineCache
from controller.device.encoding import desired_state
from controller.device.pipelines import P4C_BMV2, build_bmv2
from controller.device.reconcile import read_owned, reconcile
from controller.plan import FabricPlan
from controller.plan import p4names as n
from controller.topology import Role
from p4rt_client import P4InfoHelper

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"


def test_a_fresh_bmv2_nic_gets_its_digest_configured_then_nothing_is_written(
        small: FabricPlan, nic_helper: P4InfoHelper) -> None:
    # PI answers the read of a digest not configured yet with NOT_FOUND (our target
    # returns nothing): that is "not configured", not a failure of the device.
    session = PiLikeSession(nic_helper)
    desired = desired_state(nic_helper, small.device_entities("nic0"))
    counts = reconcile(session, nic_helper, Role.NIC, lambda current: desired)  # type: ignore[arg-type]
    digest_id = nic_helper.get_id("digests", n.EV_EVENT_DIGEST)
    assert counts.total == counts.inserted == len(desired)
    assert ("digest", digest_id) in session.held
    # read back as PI sends it (padded values, egress_port replicas): equal to the plan
    held, readable = read_owned(session, nic_helper, Role.NIC)  # type: ignore[arg-type]
    assert readable and {k: v for k, (v, _) in held.items()} == \
        {k: v for k, (v, _) in desired.items()}
    writes = len(session.writes)
    again = reconcile(session, nic_helper, Role.NIC, lambda current: desired)  # type: ignore[arg-type]
    assert again.total == 0 and len(session.writes) == writes


# Stands in for p4c-bm2-ss of a given age: what it accepts for the P4Info file.
P4C_STAND_IN = """#!{python}
import sys
from pathlib import Path
args = sys.argv[1:]
age = {age!r}
if "--p4runtime-files" in args:
    if age == "ancient":
        sys.exit("Unknown option --p4runtime-files")
    info = args[args.index("--p4runtime-files") + 1]
    if not info.endswith((".txt", ".json", ".bin")) and age == "1.2.2":
        sys.exit(f"[--Werror=unknown] error: {{info}}: Could not detect p4runtime info "
                 f"file format from file suffix {{Path(info).suffix}}")
else:
    info = args[args.index("--p4runtime-file") + 1]
    assert args[args.index("--p4runtime-format") + 1] == "text", args
Path(info).write_text('pkg_info {{ arch: "v1model" }}')
Path(args[args.index("-o") + 1]).write_text('{{"program": "stand-in"}}')
"""


@pytest.mark.parametrize("age", ["1.2.2", "ancient"])
def test_p4c_of_any_age_gives_the_pipeline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           age: str) -> None:
    stand_in = tmp_path / P4C_BMV2
    stand_in.write_text(P4C_STAND_IN.format(python=sys.executable, age=age))
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    pipeline = build_bmv2(str(ROOT / "p4src" / "mrc_nic.p4"), None)
    assert pipeline.device_config == b'{"program": "stand-in"}'
    assert pipeline.p4info.pkg_info.arch == "v1model"


class CookielessSession:
    """GetForwardingPipelineConfig of a PI build from before pipeline cookies: the
    P4Info alone, whatever the response type; FAILED_PRECONDITION with no pipeline."""

    def __init__(self, p4info: Any) -> None:
        self.p4info = p4info

    def get_pipeline_cookie(self) -> None:
        return None

    def get_p4info(self) -> Any:
        if self.p4info is None:
            raise rpc_failure(grpc.StatusCode.FAILED_PRECONDITION,
                              "No forwarding pipeline config set for this device",
                              "GetForwardingPipelineConfig")
        return self.p4info


def test_a_server_without_cookies_is_not_reprogrammed_on_every_connect(
        small: FabricPlan) -> None:
    nic = small.fabric.nic("nic0")
    assert nic is not None
    link = DeviceLink(DeviceTarget("nic0", Role.NIC, nic.access), PipelineCache(), (0, 10))
    ours = link.pipeline.p4info
    link.session = CookielessSession(ours)  # type: ignore[assignment]
    assert link.pipeline_current()
    other = type(ours)()
    other.CopyFrom(ours)
    other.tables[0].preamble.name += "_other"
    link.session = CookielessSession(other)  # type: ignore[assignment]
    assert not link.pipeline_current()
    link.session = CookielessSession(None)  # type: ignore[assignment]
    assert not link.pipeline_current()
    link.session = None
