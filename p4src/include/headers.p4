/*
 * Header layouts shared by srv6_switch.p4 and mrc_nic.p4.
 *
 * One definition per fact: protocol/headers.py (scapy) describes the same
 * layouts, and tests/test_protocol_headers.py checks them field by field and
 * checks every *_BYTES constant below against both.  Layouts follow
 * docs/mrc-protocol.md section 3; the confidence marks there ([paper],
 * [public], [ours]) apply here.
 *
 * Needs constants.p4 (SRH_MAX_SEGMENTS) to be included first.
 */

#ifndef _MRC_HEADERS_P4_
#define _MRC_HEADERS_P4_

typedef bit<48> mac_addr_t;
typedef bit<128> ipv6_addr_t;

/* ---- CPU port (P4Runtime PacketIn / PacketOut metadata) ------------------ */

// Ports are 16 bits wide (not v1model's 9) so both headers are whole bytes
// without padding fields that a P4Runtime client would have to fill in.
@controller_header("packet_out")
header packet_out_t {
    bit<16> egress_port;    // send the frame that follows out of this port
}

@controller_header("packet_in")
header packet_in_t {
    bit<16> ingress_port;   // where the frame entered the switch
    bit<8> reason;          // a PUNT_REASON_* constant
}

const bit<16> PACKET_OUT_BYTES = 2;
const bit<16> PACKET_IN_BYTES = 3;

/* ---- Ethernet, IPv6, SRH, UDP -------------------------------------------- */

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16> ether_type;
}

// RFC 8200 section 3, with the Traffic Class split into DSCP and ECN
// (RFC 2474, RFC 3168) because switches act on each half separately.
header ipv6_t {
    bit<4> version;
    bit<6> dscp;
    bit<2> ecn;
    bit<20> flow_label;       // low 16 bits: EV[15:0] [public/ours]
    bit<16> payload_len;
    bit<8> next_hdr;
    bit<8> hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

// Segment Routing Header, fixed part (RFC 8754 section 2).
header srh_t {
    bit<8> next_hdr;
    bit<8> hdr_ext_len;       // 8-octet units, not counting the first 8 octets
    bit<8> routing_type;      // 4
    bit<8> segments_left;
    bit<8> last_entry;        // index of the last element of the segment list
    bit<8> flags;
    bit<16> tag;
}

// One element of the SRH segment list; Segment List[0] comes first on the wire
// and is the last segment of the path.
header srh_segment_t {
    ipv6_addr_t sid;
}

header udp_t {
    bit<16> src_port;         // EV[31:16] [public/ours]
    bit<16> dst_port;         // MRC_UDP_PORT
    bit<16> length;
    bit<16> checksum;
}

const bit<16> ETHERNET_BYTES = 14;
const bit<16> IPV6_BYTES = 40;
const bit<16> SRH_FIXED_BYTES = 8;
const bit<16> SRH_SEGMENT_BYTES = 16;
const bit<16> UDP_BYTES = 8;

/* ---- MRC transport headers [public] -------------------------------------- */

// InfiniBand Base Transport Header as MRC uses it.
header bth_t {
    bit<8> opcode;
    bit<1> solicited_event;
    bit<1> mig_req;
    bit<2> pad_count;
    bit<4> tver;
    bit<16> pkey;
    bit<8> reserved0;
    bit<24> dest_qp;
    bit<1> ack_req;
    bit<1> reserved1;
    bit<1> retransmit;
    bit<1> tseth_present;
    bit<4> reserved2;
    bit<24> psn;
}

// Message extension header of every write packet.
header meth_t {
    bit<16> req_msg_seq;
    bit<16> msg_seq;
}

// RDMA extended transport header, in every data packet so that each packet
// can be placed in memory on arrival, in any order [paper].
header reth_t {
    bit<64> virtual_addr;
    bit<32> rkey;
    bit<32> dma_len;
}

// Immediate data of WRITE_LAST_IMM / WRITE_ONLY_IMM.
header immdt_t {
    bit<32> imm_data;
}

// Selective ACK, after the BTH (28 bytes).
header sack_t {
    bit<4> pds_type;
    bit<5> next_hdr;
    bit<2> mark;              // a SACK_MARK_* constant
    bit<4> reserved0;
    bit<1> pr;
    int<16> ack_psn_offset;
    bit<32> echoed_ev;
    bit<16> src_conn_id;
    bit<16> dst_conn_id;
    bit<8> reserved1;
    bit<24> cumulative_psn;
    bit<4> cc_type;
    bit<4> cc_flags;
    bit<8> mpr;               // window, in units of 128 PSNs
    int<16> sack_offset;
    bit<64> sack_bitmap;      // bit 0 is PSN cumulative_psn + sack_offset
}

// Congestion state that follows every SACK (8 bytes).
header sack_cc_t {
    bit<16> echoed_tx_timestamp;
    bit<1> reserved0;
    bit<15> ooo_count;
    bit<1> rc;
    bit<7> rcv_window_penalty;
    bit<24> received_bytes;
}

// Negative ACK, after the BTH (20 bytes).
header nack_t {
    bit<4> pds_type;
    bit<5> next_hdr;
    bit<7> reserved0;
    bit<8> reason;            // a NACK_* constant
    bit<8> vendor;
    bit<32> echoed_ev;
    bit<16> src_conn_id;
    bit<16> dst_conn_id;
    bit<8> reserved1;
    bit<24> nack_psn;
    bit<4> cc_type;
    bit<4> cc_flags;
    bit<8> reserved2;
    bit<16> tx_timestamp;
}

// EV probe, after the BTH (16 bytes).  The public descriptions give the fields
// but not all widths; the first word mirrors the NACK's (reserved where the
// NACK has its reason) and flags take the last 16 bits [ours].
header probe_t {
    bit<4> pds_type;
    bit<5> next_hdr;
    bit<15> reserved0;
    bit<8> vendor;
    bit<16> probe_id;
    bit<16> reserved1;
    bit<16> src_conn_id;
    bit<16> dst_conn_id;
    bit<16> tx_timestamp;
    bit<16> flags;
}

const bit<16> BTH_BYTES = 12;
const bit<16> METH_BYTES = 4;
const bit<16> RETH_BYTES = 16;
const bit<16> IMMDT_BYTES = 4;
const bit<16> SACK_BYTES = 28;
const bit<16> SACK_CC_BYTES = 8;
const bit<16> NACK_BYTES = 20;
const bit<16> PROBE_BYTES = 16;

/* ---- The parsed packet ---------------------------------------------------- */

// Outer header first.  inner_ipv6 is present on encapsulated MRC packets
// (outer NH 41, or SRH NH 41); udp may follow either IPv6 header.
struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
    ipv6_t ipv6;
    srh_t srh;
    srh_segment_t[SRH_MAX_SEGMENTS] srh_segments;
    ipv6_t inner_ipv6;
    udp_t udp;
    bth_t bth;
    meth_t meth;
    reth_t reth;
    immdt_t immdt;
    sack_t sack;
    sack_cc_t sack_cc;
    nack_t nack;
    probe_t probe;
}

#endif  /* _MRC_HEADERS_P4_ */
