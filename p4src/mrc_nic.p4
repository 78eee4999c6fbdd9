/*
 * mrc_nic.p4 -- the MRC smart NIC (v1model, BMv2 simple_switch_grpc).
 *
 * One device is one NIC: a host port (NIC_HOST_PORT), one fabric port per
 * plane (plane_port), a CPU port.  docs/mrc-nic.md is the design: what the
 * controller configures (tables, multicast groups, the digest), what the NIC
 * keeps (registers), what the host posts and receives.
 *
 * Ingress, in table order (each table applies once per pass; the controls
 * are in include/nic/, the order in include/nic/nic_flow.p4):
 *   classify  host post (write, probe, loss report), fabric arrival (data,
 *             probe, SACK, NACK), packet-out, or a drop
 *   lookup    nic_address (arrivals), qp_context
 *   work      a write's PSN and EV slot (rotation over the EV set); an
 *             arrival's PSN window and SACK/NACK decision; a SACK's, NACK's
 *             or loss report's EV reaction (skip, retire + backup search,
 *             probe answers)
 *   ev        qp_ev: the path (T1 uSID) of the EV id chosen above
 *   settle    refill, floor, restore; the ev_event_t digest
 *   path      plane_port, qp_plane: port, MACs, uSID carrier
 *   forward   encapsulation of a host post; where the packet goes
 * Egress: the host copy is decapsulated; a fabric copy with a reply becomes
 * the SACK/NACK and loses its payload (truncate).
 *
 * The behaviour lives in include/nic/*.p4, written against our own metadata
 * (nic_metadata_t) and applied here in the order include/nic/nic_flow.p4
 * gives; this file adapts it to v1model: ports, drops, multicast, priority,
 * the digest, truncation, and how state is declared (the NIC_* macros below).
 * p4src/pna/mrc_nic.p4 is the same NIC for PNA.
 */

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

// How the NIC's state is spelt in v1model (include/nic/nic_state.p4).
#define NIC_REGISTER(T, size) register<T, bit<32>>(size)
#define NIC_REG_READ(dst, reg, index) reg.read(dst, index)
#define NIC_COUNTER(I, size, unit) counter<I>(size, unit)
#define NIC_PACKETS CounterType.packets
#define NIC_PACKETS_AND_BYTES CounterType.packets_and_bytes
#define NIC_COUNT_BYTES(ctr, index) ctr.count(index)
#define NIC_RANDOM(dst, mask) random(dst, 8w0, mask)
// v1model takes its port from egress_spec at the end of ingress: nothing to do when the
// plane's port is chosen (the PNA top level needs this hook, see p4src/pna/mrc_nic.p4).
#define NIC_PLANE_PORT_CHOSEN(port)

#include "include/constants.p4"
#include "include/headers.p4"
#include "include/parser.p4"
#include "include/nic/nic_types.p4"
#include "include/nic/nic_state.p4"
#include "include/nic/nic_classify.p4"
#include "include/nic/nic_lookup.p4"
#include "include/nic/nic_transmit.p4"
#include "include/nic/nic_receive.p4"
#include "include/nic/nic_ev_state.p4"
#include "include/nic/nic_reply.p4"
#include "include/nic/nic_flow.p4"

parser NicParser(packet_in packet,
                 out headers_t hdr,
                 inout nic_metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    MrcHeaderParser() mrc_parser;

    state start {
        mrc_parser.apply(packet, hdr, standard_metadata.ingress_port);
        transition accept;
    }
}

// IPv6 has no header checksum; MRC leaves out the ICRC [ours].
control NicVerifyChecksum(inout headers_t hdr, inout nic_metadata_t meta) {
    apply { }
}

control NicIngress(inout headers_t hdr,
                   inout nic_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    NicClassify() classify;
    NicLookup() lookup;
    NicWork() work;
    NicEvLookup() ev;
    NicSettle() settle;
    NicPathLookup() path;
    NicForward() forward;

    apply {
        meta.ingress_port = standard_metadata.ingress_port;
        classify.apply(hdr, meta, standard_metadata.parser_error);
        lookup.apply(hdr, meta);
        work.apply(hdr, meta);
        ev.apply(meta);
        settle.apply(hdr, meta);
        if (meta.event_reason != 0) {
            digest<ev_event_t>(1, meta.event);
        }
        path.apply(meta);
        forward.apply(hdr, meta);

        if (meta.drop_reason != 0) {
            mark_to_drop(standard_metadata);
        } else if (meta.out_mcast_group != 0) {
            // Deliver and acknowledge at once: the group's two copies meet
            // NicEgress, which makes the plane's copy the reply.
            standard_metadata.mcast_grp = meta.out_mcast_group;
        } else if (meta.out_port == DROP_PORT) {
            mark_to_drop(standard_metadata);
        } else {
            standard_metadata.egress_spec = meta.out_port;
        }
        standard_metadata.priority = meta.out_priority;
    }
}

control NicEgress(inout headers_t hdr,
                  inout nic_metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    NicDecap() decap;
    NicReplyBuilder() reply;

    apply {
        if (standard_metadata.egress_port == NIC_HOST_PORT) {
            if (meta.deliver) {
                decap.apply(hdr);
            }
        } else if (meta.reply != NIC_REPLY_NONE) {
            bit<32> frame_len;
            reply.apply(hdr, meta, frame_len);
            truncate(frame_len);
        }
    }
}

control NicComputeChecksum(inout headers_t hdr, inout nic_metadata_t meta) {
    apply { }
}

V1Switch(NicParser(),
         NicVerifyChecksum(),
         NicIngress(),
         NicEgress(),
         NicComputeChecksum(),
         MrcDeparser()) main;
