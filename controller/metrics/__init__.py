"""Prometheus metrics of the controller and the process fabric (docs/metrics.md): what
is exported (``catalog``), the collectors that read it at scrape time, and the HTTP
server behind ``--metrics-port``."""

from .catalog import ALL_METRICS, CONTROLLER_METRICS, FABRIC_METRICS, Metric
from .controller_collector import ControllerCollector
from .fabric_collector import DeviceProcess, FabricCollector
from .server import (
    MetricsError,
    MetricsServer,
    add_metrics_options,
    metrics_url,
    serve_metrics,
)

__all__ = ["ALL_METRICS", "CONTROLLER_METRICS", "FABRIC_METRICS", "ControllerCollector",
           "DeviceProcess", "FabricCollector", "Metric", "MetricsError", "MetricsServer",
           "add_metrics_options", "metrics_url", "serve_metrics"]
