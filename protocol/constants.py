"""MRC protocol and switch constants: the Python twin of ``p4src/include/constants.p4``.

Same names, same values, one definition each; ``tests/test_protocol_headers.py`` checks
that the two files agree. The comments there say where each value comes from.
"""

from __future__ import annotations

# ---- Ethernet and IPv6 ---------------------------------------------------------------
ETHERTYPE_IPV6 = 0x86DD
IP_PROTO_UDP = 17
IP_PROTO_IPV6 = 41
IP_PROTO_ROUTING = 43
SRH_ROUTING_TYPE = 4
SRH_MAX_SEGMENTS = 8

# ---- SRv6 micro-SIDs (RFC 9800, F3216) -----------------------------------------------
USID_BLOCK_DEFAULT = 0xFCBBBB00
USID_BLOCK_BITS = 32
USID_BITS = 16
USID_MAX_PER_CARRIER = 6

# ---- MRC transport ---------------------------------------------------------------------
MRC_UDP_PORT = 4791

OPCODE_WRITE_FIRST = 0xC6
OPCODE_WRITE_MIDDLE = 0xC7
OPCODE_WRITE_LAST = 0xC8
OPCODE_WRITE_LAST_IMM = 0xC9
OPCODE_WRITE_ONLY = 0xCA
OPCODE_WRITE_ONLY_IMM = 0xCB
OPCODE_ACK = 0xD1
OPCODE_ENDPOINT_REQUEST = 0xD8
OPCODE_ENDPOINT_RESPONSE = 0xD9
OPCODE_SACK = 0xDC
OPCODE_NACK = 0xDD
OPCODE_PROBE = 0xDE

DSCP_DATA = 0
DSCP_TRIMMABLE = 4
DSCP_TRIMMABLE_RETX = 8
DSCP_TRIMMED = 12
DSCP_TRIMMED_LASTHOP = 16
DSCP_CONTROL = 46

ECN_NOT_ECT = 0
ECN_ECT1 = 1
ECN_ECT0 = 2
ECN_CE = 3

NACK_TRIMMED = 0x01
NACK_TRIMMED_LASTHOP = 0x02
NACK_NO_BITMAP = 0x06
NACK_NO_PKT_BUFFER = 0x07
NACK_NO_RESOURCE = 0x0A
NACK_PSN_OUT_OF_WINDOW = 0x0B
NACK_UNEXPECTED_EVENT = 0x19

SACK_MARK_NONE = 0
SACK_MARK_SKIP_ONCE = 1
SACK_MARK_ALWAYS_SKIP = 2

# ---- Switch ports and queues -----------------------------------------------------------
CPU_PORT = 255
DROP_PORT = 511
PRIORITY_DATA = 0
PRIORITY_HIGH = 7

# ---- Drop reasons (indexes of the switch's drop_counter) -------------------------------
DROP_REASON_PARSER_ERROR = 1
DROP_REASON_NOT_IPV6 = 2
DROP_REASON_NO_ROUTE = 3
DROP_REASON_HOP_LIMIT = 4
DROP_REASON_BAD_SRH = 5
DROP_REASON_NO_LOCAL_DELIVERY = 6
DROP_REASON_BAD_PACKET_OUT = 7
DROP_REASON_COUNT = 8

# ---- Punt reasons (packet_in.reason) ---------------------------------------------------
PUNT_REASON_USID_END = 1
PUNT_REASON_SRH_END = 2
PUNT_REASON_LOCAL_ADDRESS = 3

# ---- The smart NIC (mrc_nic.p4) [ours]; docs/mrc-nic.md ------------------------------
NIC_HOST_PORT = 0
PACKET_OUT_TRANSMIT = 0xFFFF
NIC_QP_COUNT = 1024
NIC_EV_SLOTS = 256
NIC_EV_IDS = 512
NIC_EV_BACKUP_BASE = 256
NIC_MAX_PLANES = 8
NIC_RX_MPR = 8
NIC_RX_WINDOW = 1024
NIC_RX_WORDS = 32
NIC_RX_ADVANCE_WORDS = 2
NIC_PSN_TRACK = 1024
NIC_EV_SEARCH = 8
NIC_BACKUP_SEARCH = 4
NIC_REPLY_MCAST_BASE = 1
NIC_HOP_LIMIT = 64

EV_PLANE_SHIFT = 29
EV_ID_BITS = 9
USID_PLANE_SHIFT = 13

EV_SLOT_GOOD = 0
EV_SLOT_SKIP = 1
EV_SLOT_EMPTY = 2
EV_SLOT_PLANE_SHIFT = 2

EV_POOL_CONFIGURED = 0
EV_POOL_IN_SLOT = 1
EV_POOL_RETIRED = 2
EV_POOL_SPARE = 3

EV_EVENT_ALWAYS_SKIP = 1
EV_EVENT_HOST_LOSS = 2
EV_EVENT_RESTORED = 3
EV_EVENT_FLOOR = 4

NACK_HOST_LOSS_REPORT = 0xF0
NACK_PORT_STATUS = 0xF1
SACK_PR_PROBE = 1

NIC_DROP_PARSER_ERROR = 1
NIC_DROP_TRUNCATED = 2
NIC_DROP_NOT_MRC = 3
NIC_DROP_UNKNOWN_QP = 4
NIC_DROP_BAD_OPCODE = 5
NIC_DROP_NOT_LOCAL = 6
NIC_DROP_NO_EV = 7
NIC_DROP_NO_PATH = 8
NIC_DROP_BAD_PACKET_OUT = 9
NIC_DROP_NOT_ENCAPSULATED = 10
NIC_DROP_PLANE_DOWN = 11
NIC_DROP_REASON_COUNT = 16

NIC_EVENT_DUPLICATE = 0
NIC_EVENT_OUT_OF_WINDOW = 1
NIC_EVENT_SACK_SENT = 2
NIC_EVENT_NACK_SENT = 3
NIC_EVENT_PROBE_ANSWERED = 4
NIC_EVENT_SEARCH_FALLBACK = 5
NIC_EVENT_FLOOR_HELD = 6
NIC_EVENT_STALE_REPORT = 7
NIC_EVENT_NO_BACKUP = 8
NIC_EVENT_PROBE_OK = 9
NIC_EVENT_LOSS_REPORT = 10
NIC_EVENT_PORT_STATUS = 11
NIC_EVENT_COUNT = 16

# Trimmable DSCP classes, as sets for callers (derived, not a separate fact).
TRIMMABLE_DSCPS = frozenset({DSCP_TRIMMABLE, DSCP_TRIMMABLE_RETX})
WRITE_OPCODES = frozenset({
    OPCODE_WRITE_FIRST, OPCODE_WRITE_MIDDLE, OPCODE_WRITE_LAST, OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_ONLY, OPCODE_WRITE_ONLY_IMM,
})
IMM_OPCODES = frozenset({OPCODE_WRITE_LAST_IMM, OPCODE_WRITE_ONLY_IMM})


def ev_value(t1_usid: int, ev_id: int) -> int:
    """The 32-bit EV of a path through T1 uSID ``t1_usid`` with EV id ``ev_id`` (the EV
    layout of constants.p4: EV[31:16] T1 uSID, EV[8:0] EV id)."""
    if not 0 < t1_usid < 1 << USID_BITS or not 0 <= ev_id < 1 << EV_ID_BITS:
        raise ValueError(f"T1 uSID {t1_usid:#x} / EV id {ev_id} out of range")
    return t1_usid << USID_BITS | ev_id


def ev_plane(ev: int) -> int:
    """The plane an EV's path belongs to."""
    return ev >> EV_PLANE_SHIFT & (NIC_MAX_PLANES - 1)


def ev_id_of(ev: int) -> int:
    """The EV id (index in the QP's EV table) of an EV."""
    return ev & ((1 << EV_ID_BITS) - 1)
