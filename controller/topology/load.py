"""Reading a topology file: YAML, then the schema, then the fabric's cross-references.

Whatever is wrong comes out as one ``TopologyError`` naming the file, the place in it and
the problem, never as a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .clos import build_clos_fabric
from .errors import Problem, TopologyError, location
from .explicit import build_listed_fabric
from .fabric import Fabric
from .schema import TopologySpec


def load_topology(path: str | Path) -> Fabric:
    """The fabric a topology file describes; ``TopologyError`` if it cannot be planned."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise TopologyError(source, [Problem("", f"cannot read the file: {reason}")]) from None
    return parse_topology(text, source)


def parse_topology(text: str, source: str) -> Fabric:
    """The fabric of a topology given as YAML text; ``source`` names it in messages."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise TopologyError(source, [Problem(where, f"not valid YAML: {problem}")]) from None
    if not isinstance(data, dict):
        raise TopologyError(source, [Problem("", "the file must be a YAML mapping (key: value)")])
    try:
        spec = TopologySpec.model_validate(data)
    except ValidationError as err:
        raise TopologyError(source, [_schema_problem(e) for e in err.errors()]) from None

    listed = [key for key in ("planes", "nics", "links") if getattr(spec, key) is not None]
    if spec.clos is not None and listed:
        raise TopologyError(source, [Problem(listed[0], (
            "give either clos (a generated fabric) or planes, nics and links, not both"))])
    if spec.clos is not None:
        fabric: Fabric = build_clos_fabric(spec, source)
    elif len(listed) == 3:
        fabric = build_listed_fabric(spec, source)
    else:
        missing = ", ".join(k for k in ("planes", "nics", "links") if k not in listed)
        raise TopologyError(source, [Problem("", (
            f"missing {missing}: a topology gives clos, or planes, nics and links"))])
    problems = list(_qp_path_problems(fabric))
    if problems:
        raise TopologyError(source, problems)
    return fabric


def _schema_problem(error: Any) -> Problem:
    message = error["msg"]
    if error["type"] == "model_type":
        # pydantic would name the model class, which means nothing to the file's author.
        message = "should be a mapping (key: value)"
    elif error["type"] == "value_error":
        message = str(error["ctx"]["error"])
    value = error.get("input")
    if isinstance(value, (str, int, float, bool)) and error["type"] != "missing":
        message += f" (got {value!r})"
    return Problem(location(error["loc"]), message)


def _qp_path_problems(fabric: Fabric) -> list[Problem]:
    """Every QP needs, on every plane, a T1 cabled to both ends' T0s."""
    problems = []
    for qp in fabric.qps:
        a, b = qp.ends
        for plane in range(fabric.planes):
            t0_a = fabric.nic_link(a.nic, plane).peer
            t0_b = fabric.nic_link(b.nic, plane).peer
            if not fabric.common_t1s(plane, t0_a, t0_b):
                problems.append(Problem(f"{qp.where}.endpoints", (
                    f"no T1 of plane {plane} is cabled to both {t0_a} ({a.nic}) and "
                    f"{t0_b} ({b.nic})")))
    return problems
