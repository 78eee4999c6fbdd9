/*
 * Protocol and switch constants shared by srv6_switch.p4 and mrc_nic.p4.
 *
 * One definition per fact: protocol/constants.py holds the same names with the
 * same values, and tests/test_protocol_headers.py checks that the two agree.
 * Values marked [public] or [ours] in docs/mrc-protocol.md are decided here and
 * nowhere else, so they can be corrected in one place once the MRC 1.0 text is
 * checked.
 */

#ifndef _MRC_CONSTANTS_P4_
#define _MRC_CONSTANTS_P4_

/* ---- Ethernet and IPv6 ------------------------------------------------- */

const bit<16> ETHERTYPE_IPV6 = 0x86DD;

// IPv6 Next Header values (IANA protocol numbers).
const bit<8> IP_PROTO_UDP = 17;
// IPv6-in-IPv6 (RFC 2473): the MRC encapsulation carries the NIC-to-NIC
// packet inside an outer header whose DA is the uSID carrier.
const bit<8> IP_PROTO_IPV6 = 41;
// IPv6 Routing header; with Routing Type 4 it is an SRH (RFC 8754 section 2).
const bit<8> IP_PROTO_ROUTING = 43;
const bit<8> SRH_ROUTING_TYPE = 4;

// Segments the parser can hold.  A longer SRH is a parser error and is dropped:
// MRC carriers need one or two segments, and a switch must bound its parse depth.
const bit<32> SRH_MAX_SEGMENTS = 8;

/* ---- SRv6 micro-SIDs (RFC 9800 NEXT-CSID, F3216) ------------------------ */

// Default 32-bit locator block [ours]; the controller may choose another one,
// since the switch learns its block only through my_sid/usid_route entries.
const bit<32> USID_BLOCK_DEFAULT = 0xfcbbbb00;
const bit<32> USID_BLOCK_BITS = 32;
const bit<32> USID_BITS = 16;
// 128 - 32 = 96 bits after the block hold six 16-bit uSIDs.
const bit<32> USID_MAX_PER_CARRIER = 6;

/* ---- MRC transport [public] --------------------------------------------- */

// RoCEv2's UDP destination port, kept by MRC [public/ours].
const bit<16> MRC_UDP_PORT = 4791;

// BTH opcodes.
const bit<8> OPCODE_WRITE_FIRST = 0xC6;
const bit<8> OPCODE_WRITE_MIDDLE = 0xC7;
const bit<8> OPCODE_WRITE_LAST = 0xC8;
const bit<8> OPCODE_WRITE_LAST_IMM = 0xC9;
const bit<8> OPCODE_WRITE_ONLY = 0xCA;
const bit<8> OPCODE_WRITE_ONLY_IMM = 0xCB;
const bit<8> OPCODE_ACK = 0xD1;
const bit<8> OPCODE_ENDPOINT_REQUEST = 0xD8;
const bit<8> OPCODE_ENDPOINT_RESPONSE = 0xD9;
const bit<8> OPCODE_SACK = 0xDC;
const bit<8> OPCODE_NACK = 0xDD;
const bit<8> OPCODE_PROBE = 0xDE;

// DSCP classes: what a switch may do to a packet is read from its DSCP alone.
const bit<6> DSCP_DATA = 0;               // data that must not be trimmed
const bit<6> DSCP_TRIMMABLE = 4;          // trimmable data (also probes)
const bit<6> DSCP_TRIMMABLE_RETX = 8;     // trimmable retransmission
const bit<6> DSCP_TRIMMED = 12;           // header left by a fabric trim
const bit<6> DSCP_TRIMMED_LASTHOP = 16;   // header left by a trim toward a NIC
const bit<6> DSCP_CONTROL = 46;           // SACK/NACK/ACK: high priority, never trimmed

// ECN codepoints (RFC 3168 section 5).
const bit<2> ECN_NOT_ECT = 0;
const bit<2> ECN_ECT1 = 1;
const bit<2> ECN_ECT0 = 2;
const bit<2> ECN_CE = 3;

// NACK reason codes, shared with the Ultra Ethernet PDS.
const bit<8> NACK_TRIMMED = 0x01;
const bit<8> NACK_TRIMMED_LASTHOP = 0x02;
const bit<8> NACK_NO_BITMAP = 0x06;
const bit<8> NACK_NO_PKT_BUFFER = 0x07;
const bit<8> NACK_NO_RESOURCE = 0x0A;
const bit<8> NACK_PSN_OUT_OF_WINDOW = 0x0B;
const bit<8> NACK_UNEXPECTED_EVENT = 0x19;

// SACK mark (m): what the sender does with the echoed EV.
const bit<2> SACK_MARK_NONE = 0;
const bit<2> SACK_MARK_SKIP_ONCE = 1;     // the data packet arrived ECN-CE
const bit<2> SACK_MARK_ALWAYS_SKIP = 2;

/* ---- Switch ports and queues [ours] -------------------------------------- */

// The port simple_switch_grpc is started with (--cpu-port 255); packets on it
// carry the packet_out/packet_in controller headers.
const bit<9> CPU_PORT = 255;
// v1model/simple_switch drop port: egress_spec 511 drops at the end of ingress.
const bit<9> DROP_PORT = 511;

// standard_metadata.priority: simple_switch serves the highest number first
// (with --priority-queues); control and trimmed headers jump the data queue.
const bit<3> PRIORITY_DATA = 0;
const bit<3> PRIORITY_HIGH = 7;

/* ---- Drop reasons: indexes of the switch's drop counter ------------------ */

const bit<8> DROP_REASON_PARSER_ERROR = 1;       // includes an SRH longer than SRH_MAX_SEGMENTS
const bit<8> DROP_REASON_NOT_IPV6 = 2;
const bit<8> DROP_REASON_NO_ROUTE = 3;           // includes an unknown uSID of the block
const bit<8> DROP_REASON_HOP_LIMIT = 4;          // RFC 8200 section 3
const bit<8> DROP_REASON_BAD_SRH = 5;            // RFC 8754 section 4.3.1.1, S09-S12
const bit<8> DROP_REASON_NO_LOCAL_DELIVERY = 6;  // end of path here, delivery to CPU off
const bit<8> DROP_REASON_BAD_PACKET_OUT = 7;
const bit<32> DROP_REASON_COUNT = 8;

/* ---- Punt reasons: packet_in.reason --------------------------------------- */

const bit<8> PUNT_REASON_USID_END = 1;      // a uSID carrier without SRH ended here
const bit<8> PUNT_REASON_SRH_END = 2;       // a local SID with SRH Segments Left 0
const bit<8> PUNT_REASON_LOCAL_ADDRESS = 3; // ipv6_route sent it to the CPU

/* ---- The smart NIC (mrc_nic.p4) [ours] ------------------------------------
 * docs/mrc-nic.md explains each of these; every one is a choice of this
 * project, kept here so that it can change in one place.
 */

// The port toward the host (its software drives the NIC through it).  The
// fabric ports are whatever plane_port names, one per plane.
const bit<9> NIC_HOST_PORT = 0;
// packet_out.egress_port value that is not a port: the frame enters the
// transmit path as if the host had posted it (controller probes).
const bit<16> PACKET_OUT_TRANSMIT = 0xFFFF;

// Table and register sizes for production shapes: 1,024 QPs of up to 256
// EV slots (production MRC uses 128-256 EVs per connection [paper]).
const bit<32> NIC_QP_COUNT = 1024;
const bit<32> NIC_EV_SLOTS = 256;           // slots per QP: the sprayed set
const bit<32> NIC_EV_IDS = 512;             // EV ids per QP: slots' own + backups
const bit<32> NIC_EV_BACKUP_BASE = 256;     // backups of plane p: base + p * per_plane + i
const bit<32> NIC_MAX_PLANES = 8;
// The receive window is MPR x 128 PSNs [public]; MPR 8 [ours] covers a rotation of
// 256 EVs four times over, so one lost PSN does not stall a QP.
const bit<32> NIC_RX_MPR = 8;
const bit<32> NIC_RX_WINDOW = 1024;         // NIC_RX_MPR * 128
// The window's bits: words of 64 PSNs indexed by the PSN (word psn[10:6], bit
// psn[5:0]); twice the window, so the at most 17 words one window spans never
// alias.  One packet moves the cumulative PSN over at most NIC_RX_ADVANCE_WORDS
// complete words; later packets continue (bounded work per pass).
const bit<32> NIC_RX_WORDS = 32;
const bit<32> NIC_RX_ADVANCE_WORDS = 2;
// PSNs per QP whose latest transmission's EV is remembered (psn_ev): the whole
// window, so every loss report blames the EV that carried the lost copy.
const bit<32> NIC_PSN_TRACK = 1024;
// Bounded searches: slots one packet may check for a usable EV, backups one
// retirement may check for a spare of the same plane.  NIC_EV_SEARCH is
// NIC_MAX_PLANES (8), one position per plane: the controller interleaves a
// QP's slots over its planes (slot s on plane s % planes, docs/controller.md)
// and the walk XORs positions with r, so 8 consecutive positions of one
// rotation hold slots of 8 different residues mod 8, a slot of every plane
// (for 1, 2, 4 or 8 planes): with at least one plane up, a live one.  (4
// checks could all land on the 4 dead planes when 4 of 8 were down.)
const bit<32> NIC_EV_SEARCH = 8;
const bit<32> NIC_BACKUP_SEARCH = 4;
// Multicast group NIC_REPLY_MCAST_BASE + plane = {host port, plane port}:
// deliver a data packet and acknowledge it in one pass.
const bit<16> NIC_REPLY_MCAST_BASE = 1;
const bit<8> NIC_HOP_LIMIT = 64;

// EV layout (32 bits): EV[31:16] is the T1 uSID of the path, whose top bits
// are its plane (uSID[15:13], as the controller allocates uSIDs), and
// EV[8:0] the EV id within the QP; EV[15:9] stay zero.
const bit<32> EV_PLANE_SHIFT = 29;
const bit<32> EV_ID_BITS = 9;
const bit<32> USID_PLANE_SHIFT = 13;

// State of an EV slot (register ev_slot_state, bits [1:0]).
const bit<2> EV_SLOT_GOOD = 0;
const bit<2> EV_SLOT_SKIP = 1;              // left out of its next turn (ECN echo, trim)
const bit<2> EV_SLOT_EMPTY = 2;             // retired with no backup to refill it
// ev_slot_state bits [5:2]: the slot's plane + 1, learnt when the NIC first sends
// on the slot (0: not yet known), so the rotation can pass a plane that is down.
const bit<32> EV_SLOT_PLANE_SHIFT = 2;

// Where an EV id is (register ev_pool_state).  0 is the state the controller
// configured: ids below the QP's ev_slots sit in their own slot, the others
// wait in the backup pool.
const bit<2> EV_POOL_CONFIGURED = 0;
const bit<2> EV_POOL_IN_SLOT = 1;
const bit<2> EV_POOL_RETIRED = 2;           // ASSUMED_BAD: probed until restored
const bit<2> EV_POOL_SPARE = 3;

// Why an ev_event_t digest was sent.
const bit<8> EV_EVENT_ALWAYS_SKIP = 1;      // SACK mark ALWAYS_SKIP: retired
const bit<8> EV_EVENT_HOST_LOSS = 2;        // the host reported a lost PSN: retired
const bit<8> EV_EVENT_RESTORED = 3;         // enough probes answered: usable again
const bit<8> EV_EVENT_FLOOR = 4;            // not retired: the QP is at its floor

// A NACK the host posts on the host port to report a PSN lost without a trim
// (timeout, or a gap later SACKs never filled); the NIC consumes it.
const bit<8> NACK_HOST_LOSS_REPORT = 0xF0;
// A port-status update (docs/mrc-nic.md 3.1): a NACK whose vendor byte is the
// sending NIC's planes-down mask; the peer NIC stops using those planes toward it.
const bit<8> NACK_PORT_STATUS = 0xF1;
// sack.pr = 1: this SACK answers a probe.
const bit<1> SACK_PR_PROBE = 1;

// Indexes of the NIC's drop_counter.
const bit<8> NIC_DROP_PARSER_ERROR = 1;
const bit<8> NIC_DROP_TRUNCATED = 2;        // a transport header cut short
const bit<8> NIC_DROP_NOT_MRC = 3;          // not IPv6/UDP 4791/BTH
const bit<8> NIC_DROP_UNKNOWN_QP = 4;
const bit<8> NIC_DROP_BAD_OPCODE = 5;
const bit<8> NIC_DROP_NOT_LOCAL = 6;        // inner destination is not this NIC
const bit<8> NIC_DROP_NO_EV = 7;            // the chosen slot's EV is not configured
const bit<8> NIC_DROP_NO_PATH = 8;          // no plane_port / qp_plane entry
const bit<8> NIC_DROP_BAD_PACKET_OUT = 9;
const bit<8> NIC_DROP_NOT_ENCAPSULATED = 10; // from the fabric without inner IPv6
const bit<8> NIC_DROP_PLANE_DOWN = 11;      // a never-used slot's EV was on a down plane
const bit<32> NIC_DROP_REASON_COUNT = 16;

// Indexes of the NIC's event_counter: what happened that is not a drop.
const bit<32> NIC_EVENT_DUPLICATE = 0;      // acknowledged, not delivered again
const bit<32> NIC_EVENT_OUT_OF_WINDOW = 1;  // NACK PSN_OUT_OF_WINDOW sent
const bit<32> NIC_EVENT_SACK_SENT = 2;
const bit<32> NIC_EVENT_NACK_SENT = 3;
const bit<32> NIC_EVENT_PROBE_ANSWERED = 4;
const bit<32> NIC_EVENT_SEARCH_FALLBACK = 5; // no usable slot in NIC_EV_SEARCH checks
const bit<32> NIC_EVENT_FLOOR_HELD = 6;
const bit<32> NIC_EVENT_STALE_REPORT = 7;   // about an EV no longer in a slot
const bit<32> NIC_EVENT_NO_BACKUP = 8;      // retired, slot left empty
const bit<32> NIC_EVENT_PROBE_OK = 9;       // probe answer for a retired EV
const bit<32> NIC_EVENT_LOSS_REPORT = 10;   // host loss reports received
const bit<32> NIC_EVENT_PORT_STATUS = 11;   // port-status updates received from peers
const bit<32> NIC_EVENT_COUNT = 16;

#endif  /* _MRC_CONSTANTS_P4_ */
