/*
 * Types of the MRC fabric switch: the metadata one packet carries through the
 * switch's controls (switch_ingress.p4, switch_egress.p4).
 *
 * Architecture-neutral: nothing here names v1model or TNA.  Each top level
 * (p4src/srv6_switch.p4 for v1model, p4src/tna/srv6_switch.p4 for TNA) fills
 * the "from the architecture" fields and carries the "to the architecture"
 * fields out into its own intrinsic metadata.
 */

#ifndef _MRC_SWITCH_TYPES_P4_
#define _MRC_SWITCH_TYPES_P4_

// Ports are 9 bits wide in v1model and on Tofino 1 alike.
typedef bit<9> switch_port_t;
const bit<32> PORT_COUNT = 512;

struct switch_metadata_t {
    /* ---- from the architecture ---- */
    switch_port_t ingress_port;
    bool parser_error;          // the parser stopped on an error
    switch_port_t egress_port;  // egress: the port the packet leaves by
    bit<19> enq_qdepth;         // egress: depth of its queue when it was queued
    bool to_cpu;                // egress: egress_port is the CPU port

    // Set by my_sid/srv6_end: what to do when this node's segment is used up.
    bool local_sid;
    bit<1> end_to_cpu;
    bit<8> end_punt_reason;
    // uA: the adjacency replaces the route lookup.
    bool use_adjacency;
    switch_port_t adjacency_port;
    mac_addr_t adjacency_mac;
    // Key of usid_route: block:uSID of the DA after SID processing.
    bit<48> dst_usid_prefix;
    // The DA (possibly rewritten) still has to be looked up.
    bool route_lookup;

    /* ---- to the architecture: outcome of ingress ---- */
    // At most one of forward, punt_reason != 0 and drop_reason != 0 holds;
    // egress_port is meaningful for the first two.
    bool forward;               // egress_port is a front-panel port
    bit<8> punt_reason;         // non-zero: to the CPU port
    bit<8> drop_reason;         // non-zero: dropped (DROP_REASON_*)
    bool from_cpu;              // a packet-out, sent as it is
    bit<3> priority;            // PRIORITY_DATA or PRIORITY_HIGH

    // Trimming, decided in ingress (trim_config) and carried to egress.
    bool trim_eligible;         // trimmable packet toward a port with trim_config
    bool trim;
    bit<1> last_hop;            // the egress port faces a NIC
    bit<19> trim_threshold;

    /* ---- egress ---- */
    bool transit;               // neither to nor from the CPU, and IPv6
    bit<32> trim_length;        // trim: bytes to keep from the Ethernet header on
    // ECN, from ecn_config: marked for sure (depth at or above high), or on the
    // RED ramp (low < depth < high), where the architecture draws ecn_draw
    // uniformly in [0, ecn_span) and the packet is marked if it is below
    // ecn_excess.
    bool ecn_enabled;
    bit<19> ecn_low;
    bit<19> ecn_high;
    bool ecn_mark;
    bool ecn_ramp;
    bit<19> ecn_span;
    bit<19> ecn_excess;
    bit<19> ecn_draw;
    bool ecn_marked;            // set by SwitchEcnMark
}

#endif  /* _MRC_SWITCH_TYPES_P4_ */
