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

# Trimmable DSCP classes, as sets for callers (derived, not a separate fact).
TRIMMABLE_DSCPS = frozenset({DSCP_TRIMMABLE, DSCP_TRIMMABLE_RETX})
WRITE_OPCODES = frozenset({
    OPCODE_WRITE_FIRST, OPCODE_WRITE_MIDDLE, OPCODE_WRITE_LAST, OPCODE_WRITE_LAST_IMM,
    OPCODE_WRITE_ONLY, OPCODE_WRITE_ONLY_IMM,
})
IMM_OPCODES = frozenset({OPCODE_WRITE_LAST_IMM, OPCODE_WRITE_ONLY_IMM})
