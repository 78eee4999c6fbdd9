"""Shared by the metrics tests (tests/controller/test_metrics*.py,
tests/fabric_procs/test_procs_metrics.py): scrape ``/metrics`` over loopback and parse it
with prometheus-client's parser, read a value, and the metrics the Grafana dashboard
queries."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from controller.metrics.catalog import COUNTER

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "tools" / "grafana" / "mrc-fabric.json"
SCRAPE_TIMEOUT_S = 60.0  # a scrape reads every device; generous on a loaded machine

Samples = dict[str, list[Sample]]


def scrape(url: str) -> Samples:
    """``/metrics`` at ``url``, parsed by prometheus-client: samples by sample name,
    with every metric exported (``_total`` on counters) a key, if without samples."""
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_S) as reply:
        text = reply.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        samples.setdefault(family.name + ("_total" if family.type == COUNTER else ""), [])
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels``."""
    return sum(s.value for s in samples.get(name, ())
               if all(s.labels.get(k) == v for k, v in labels.items()))


def dashboard_metrics() -> set[str]:
    """Every metric name in the dashboard's query expressions."""
    board = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", ())]
    assert exprs
    return {name for e in exprs for name in re.findall(r"\bmrc_[a-z0-9_]+", e)}
