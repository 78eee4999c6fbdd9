"""Every metric ``/metrics`` serves, with its type, labels and meaning: the one list the
collectors, docs/metrics.md and the Grafana dashboard's test go by.

Names follow Prometheus' conventions: the ``mrc_`` prefix, base units, ``_total`` on
counters (as exposed; the family is named without it), snake_case labels. Counters
read from a device restart at 0 when its pipeline is pushed again (Prometheus' rate()
treats that as a counter reset).
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

COUNTER, GAUGE = "counter", "gauge"


@dataclass(frozen=True)
class Metric:
    name: str  # as exposed: counters end in _total
    kind: str  # COUNTER or GAUGE
    labels: tuple[str, ...]
    help: str

    def family(self) -> CounterMetricFamily | GaugeMetricFamily:
        """An empty family of this metric, for a collector to fill at scrape time."""
        if self.kind == COUNTER:
            return CounterMetricFamily(self.name.removesuffix("_total"), self.help,
                                       labels=self.labels)
        return GaugeMetricFamily(self.name, self.help, labels=self.labels)


def _c(name: str, labels: tuple[str, ...], text: str) -> Metric:
    return Metric(name, COUNTER, labels, text)


def _g(name: str, labels: tuple[str, ...], text: str) -> Metric:
    return Metric(name, GAUGE, labels, text)


_DEV = ("device", "role")
_LINK = ("device", "port", "peer", "plane")
_QP = ("qp", "nic", "qp_index")

# -- the controller (mrc-ctl watch; python -m fabric.procs run) ---------------------------
DEVICE_REACHABLE = _g("mrc_device_reachable", _DEV,
                      "1 if the device answered this scrape's counter reads, else 0")
DEVICE_STATE = _g("mrc_device_state", (*_DEV, "state"),
                  "1 for the controller's current session state of the device "
                  "(connecting, up, unreachable, another-primary, failed), 0 for the others")
DEVICE_CONNECTIONS = _c("mrc_device_connections_total", _DEV,
                        "sessions the controller established and programmed (1 + reconnections)")
DEVICE_DROPS = _c("mrc_device_drops_total", (*_DEV, "reason"),
                  "packets the device's pipeline dropped, by drop reason")
NIC_EVENTS = _c("mrc_nic_events_total", ("device", "event"),
                "NIC pipeline events (SACKs and NACKs sent, probes answered, stale "
                "reports, ...), by kind")
PLANE_SWITCH_TX = _c("mrc_plane_switch_tx_packets_total", ("plane",),
                     "packets the plane's switches sent on their cabled ports")
PLANE_SWITCH_DROPS = _c("mrc_plane_switch_drops_total", ("plane",),
                        "packets the plane's switches dropped, every reason")
PLANE_TRIMS = _c("mrc_plane_trims_total", ("plane",),
                 "packets the plane's switches trimmed to their header (queue full)")
PLANE_ECN = _c("mrc_plane_ecn_marks_total", ("plane",),
               "packets the plane's switches marked ECN CE")
PLANE_NIC_TX = _c("mrc_plane_nic_tx_packets_total", ("plane",),
                  "data packets and probes the NICs sprayed on EVs of the plane")
PLANE_ECHOES = _c("mrc_plane_ecn_echoes_total", ("plane",),
                  "ECN echoes the NICs received for EVs of the plane")
PLANE_NIC_TRIMS = _c("mrc_plane_nic_trims_total", ("plane",),
                     "trim NACKs the NICs received for EVs of the plane")
PLANE_RETIREMENTS = _c("mrc_plane_ev_retirements_total", ("plane",),
                       "EVs of the plane the NICs retired")
LINK_RX = _c("mrc_link_rx_packets_total", _LINK, "packets a switch received on the port")
LINK_TX = _c("mrc_link_tx_packets_total", _LINK, "packets a switch sent on the port")
LINK_TRIMS = _c("mrc_link_trims_total", _LINK, "packets a switch trimmed on the port")
LINK_ECN = _c("mrc_link_ecn_marks_total", _LINK, "packets a switch marked ECN CE on the port")
QP_TX = _c("mrc_qp_tx_packets_total", _QP, "packets the QP end's NIC sent")
QP_RX = _c("mrc_qp_rx_packets_total", _QP, "packets the QP end's NIC received")
QP_ECHOES = _c("mrc_qp_ecn_echoes_total", _QP, "ECN echoes the QP end received")
QP_TRIMS = _c("mrc_qp_trims_total", _QP, "trim NACKs the QP end received")
QP_RETIREMENTS = _c("mrc_qp_ev_retirements_total", _QP, "EVs the QP end's NIC retired")
QP_EV_EVENTS = _c("mrc_qp_ev_events_total", (*_QP, "reason"),
                  "EV events (digests) the QP end's NIC reported to the controller: "
                  "always-skip, host-loss (both retire an EV), floor, restored")
QP_EV_IDS = _g("mrc_qp_ev_ids", ("qp", "nic", "plane", "kind"),
               "EV ids configured on the QP end's NIC per plane: kind slot (planned "
               "in a slot), backup (planned backup), topped_up (backup the controller "
               "added after retirements)")
QP_EVS_PROBING = _g("mrc_qp_evs_probing", ("qp", "nic", "plane"),
                    "retired EVs of the QP end the controller is probing now")
CONTROLLER_EVENTS = _c("mrc_controller_events_total", ("event", "device"),
                       "the controller's log events (connected, digest, top-up, "
                       "probe-sent, restored, device-lost, ...), by device")
HEALTH_READ = _g("mrc_health_read_duration_seconds", (),
                 "how long this scrape's reading of every device's counters took")

CONTROLLER_METRICS = (
    DEVICE_REACHABLE, DEVICE_STATE, DEVICE_CONNECTIONS, DEVICE_DROPS, NIC_EVENTS,
    PLANE_SWITCH_TX, PLANE_SWITCH_DROPS, PLANE_TRIMS, PLANE_ECN, PLANE_NIC_TX,
    PLANE_ECHOES, PLANE_NIC_TRIMS, PLANE_RETIREMENTS,
    LINK_RX, LINK_TX, LINK_TRIMS, LINK_ECN,
    QP_TX, QP_RX, QP_ECHOES, QP_TRIMS, QP_RETIREMENTS, QP_EV_EVENTS, QP_EV_IDS,
    QP_EVS_PROBING, CONTROLLER_EVENTS, HEALTH_READ)

# -- the process fabric (python -m fabric.procs up / run) --------------------------------
FABRIC_DEVICE_UP = _g("mrc_fabric_device_up", _DEV,
                      "1 while the device's process runs (and, on the patch panel, its "
                      "socket is connected), else 0")
FABRIC_LINK_UP = _g("mrc_fabric_link_up", ("link",),
                    "1 if the link is up, 0 if failure injection took it down")
FABRIC_LINK_LOSS = _g("mrc_fabric_link_loss_ratio", ("link",),
                      "probability (0 to 1) that the link drops a frame, each direction")
FABRIC_LINK_FRAMES = _c("mrc_fabric_link_frames_total", ("link", "source"),
                        "frames the link carried from its end `source`")
FABRIC_LINK_DROPS = _c("mrc_fabric_link_dropped_frames_total", ("link", "source", "reason"),
                       "frames from end `source` the link dropped: reason down (link "
                       "down) or loss (its loss probability)")
FABRIC_UNLINKED = _c("mrc_fabric_unlinked_frames_total", ("port",),
                     "frames out of a device port that has no link")
FABRIC_UNDELIVERED = _c("mrc_fabric_undelivered_frames_total", (),
                        "frames the patch panel could not deliver to a device or host")

FABRIC_METRICS = (FABRIC_DEVICE_UP, FABRIC_LINK_UP, FABRIC_LINK_LOSS, FABRIC_LINK_FRAMES,
                  FABRIC_LINK_DROPS, FABRIC_UNLINKED, FABRIC_UNDELIVERED)

ALL_METRICS = CONTROLLER_METRICS + FABRIC_METRICS
