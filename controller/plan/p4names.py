"""P4Info names of the programs' tables, actions and fields that the plan writes, and of
the counters and controller header the controller reads and sends.

The one place where the controller spells them: ``p4src/srv6_switch.p4`` (README "The
fabric switch") and ``docs/mrc-nic.md`` section 2 ("Tables (P4Info names)"). Actions
are named in the control that declares their table, as p4c does.
"""

from __future__ import annotations

# ---- srv6_switch.p4 --------------------------------------------------------------------
MY_SID = "SwitchIngress.my_sid"
USID_UN = "SwitchIngress.usid_un"
USID_ROUTE = "SwitchIngress.usid_route"
SET_NEXT_HOP = "SwitchIngress.set_next_hop"
TRIM_CONFIG = "SwitchIngress.trim_config"
SET_TRIM_THRESHOLD = "SwitchIngress.set_trim_threshold"
ECN_CONFIG = "SwitchEgress.ecn_config"
SET_ECN_THRESHOLDS = "SwitchEgress.set_ecn_thresholds"
DISABLE_ECN_MARKING = "SwitchEgress.disable_ecn_marking"

# ---- mrc_nic.p4 --------------------------------------------------------------------------
NIC_ADDRESS = "NicIngress.lookup.nic_address"
ACCEPT_LOCAL = "NicIngress.lookup.accept_local"
QP_CONTEXT = "NicIngress.lookup.qp_context"
SET_QP = "NicIngress.lookup.set_qp"
QP_EV = "NicIngress.ev.qp_ev"
SET_EV = "NicIngress.ev.set_ev"
PLANE_PORT = "NicIngress.path.plane_port"
SET_PLANE_PORT = "NicIngress.path.set_plane_port"
QP_PLANE = "NicIngress.path.qp_plane"
SET_QP_PATH = "NicIngress.path.set_qp_path"
NIC_PLANES = "NicIngress.lookup.nic_planes"
SET_PLANES_DOWN = "NicIngress.lookup.set_planes_down"
EV_EVENT_DIGEST = "ev_event_t"

# ---- counters the controller reads (health) -----------------------------------------------
SWITCH_RX_PORT_COUNTER = "SwitchIngress.rx_port_counter"
SWITCH_TX_PORT_COUNTER = "SwitchEgress.tx_port_counter"
SWITCH_DROP_COUNTER = "SwitchIngress.drop_counter"
SWITCH_TRIM_COUNTER = "SwitchEgress.trim_counter"
SWITCH_ECN_MARK_COUNTER = "SwitchEgress.ecn_mark_counter"
NIC_QP_COUNTERS = ("qp_tx_counter", "qp_rx_counter", "qp_ecn_counter", "qp_trim_counter",
                   "qp_retire_counter")
NIC_SLOT_COUNTERS = ("slot_tx_counter", "slot_ecn_counter", "slot_trim_counter",
                     "slot_retire_counter")
NIC_DROP_COUNTER = "drop_counter"
NIC_EVENT_COUNTER = "event_counter"
PACKET_OUT = "packet_out"
