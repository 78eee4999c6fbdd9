/*
 * pna/mrc_nic.p4 -- the MRC smart NIC for the Portable NIC Architecture
 * (p4c's pna.p4: p4c-bm2-pna for BMv2 pna_nic, p4c-dpdk; bm runs it too).
 *
 * The same NIC as p4src/mrc_nic.p4: the behaviour is include/nic/*.p4,
 * applied in the order include/nic/nic_flow.p4 gives; this file only adapts
 * it to PNA.  Its main control keeps the v1model ingress's name, NicIngress,
 * so tables, actions, registers, counters and the ev_event_t digest have the
 * same P4Runtime names on both architectures and one controller drives both.
 *
 * What PNA cannot say as v1model does (README, "Architectures"):
 *   - no multicast and no egress: a data packet that v1model delivers to the
 *     host *and* acknowledges (multicast group NIC_REPLY_MCAST_BASE + plane)
 *     is only delivered here and its SACK is not sent.  Every SACK of new data
 *     goes with a delivery, so this NIC SACKs only duplicates and probes: the
 *     sender's timer retransmits, and the duplicate's SACK frees the window;
 *   - no truncate: a reply built from an arriving packet keeps that packet's
 *     payload after the reply's headers (the IPv6 and UDP lengths end the
 *     reply where v1model cuts it);
 *   - priorities are a class of service (ostd.class_of_service), not a queue.
 * And what p4c-dpdk cannot take (docs/mrc-nic.md section 8; NIC_PNA_DPDK
 * below): byte counters are given the frame length the headers tell, and
 * there is no Random (the rotation steps instead of drawing).
 */

#include <core.p4>
#include <pna.p4>

// Which PNA compiler reads this file.  p4c-bm2-pna defines __TARGET_BMV2__
// (backends/bmv2/pna_nic/main.cpp), and so does bm, as a stand-in for BMv2;
// p4c-dpdk run as `p4c-dpdk --arch pna` defines no macro of its own
// (backends/dpdk/main.cpp).  So every build without __TARGET_BMV2__ spells the
// NIC as p4c-dpdk accepts it (NIC_PNA_DPDK below); bm reads that spelling with
// `-U __TARGET_BMV2__`, and tests/test_mrc_nic_pna.py runs the NIC's STF files
// against both.
#ifndef __TARGET_BMV2__
#define NIC_PNA_DPDK 1
#endif

// How the NIC's state is spelt in PNA (include/nic/nic_state.p4): a Register
// returns what it reads, a Counter also names its width.  For BMv2, Random
// draws from a range fixed at compile time (0..255, masked to the QP's
// ev_mask, which is 2^k - 1, so the draw stays uniform).
#define NIC_REGISTER(T, size) Register<T, bit<32>>(size)
#define NIC_REG_READ(dst, reg, index) dst = reg.read(index)
#define NIC_COUNTER(I, size, unit) Counter<bit<32>, I>(size, unit)
#define NIC_PACKETS PNA_CounterType_t.PACKETS
#define NIC_PACKETS_AND_BYTES PNA_CounterType_t.PACKETS_AND_BYTES
#ifdef NIC_PNA_DPDK
// p4c-dpdk rejects count(index) on a counter of bytes ("Expected packet length
// argument for count method of indirect counter", ConvertStatementToDpdk in
// backends/dpdk/dpdkHelpers.cpp): PNA has no packet length in its metadata,
// so the length comes from the headers (meta.frame_len, set below).  BMv2
// pna_nic takes one argument only ("Expected 1 argument", ExternConverter_Counter
// in backends/bmv2/portable_common/portable.cpp) and counts the real length.
#define NIC_COUNT_BYTES(ctr, index) ctr.count(index, meta.frame_len)
#else
#define NIC_COUNT_BYTES(ctr, index) ctr.count(index)
#endif
#ifdef NIC_PNA_DPDK
// p4c-dpdk has no Random (p4c's DpdkXfail.cmake: psa-random.p4 "Not
// implemented"; ConvertStatementToDpdk knows no Random.read).  The rotation's
// XOR then moves by an odd step at each wrap: modulo 2^k an odd step visits
// every value of 0..ev_mask, so each rotation still visits every slot once and
// consecutive rotations differ, but the order is predictable, not drawn.
#define NIC_RANDOM(dst, mask) dst = (dst + NIC_ROTATION_STEP) & (mask)
const bit<8> NIC_ROTATION_STEP = 0x9D;
#else
#define NIC_RANDOM(dst, mask) dst = nic_rotation_random.read() & (mask)

Random<bit<8>>(0, 255) nic_rotation_random;
#endif

// BMv2 pna_nic has no drop (drop_packet() is not among its primitives; its PNA
// support lists dropping as future work), so for p4c-bm2-pna, which defines
// __TARGET_BMV2__, a dropped packet goes to DROP_PORT, a port with no interface
// (bm drops it there too).
#ifdef __TARGET_BMV2__
#define NIC_DROP_PACKET() send_to_port((PortId_t)(PortIdUint_t)DROP_PORT)
#else
#define NIC_DROP_PACKET() drop_packet()
#endif

// PNA's send_to_port has a directionless parameter, and p4c requires its argument to be
// known at compile time (an action parameter bound by a table entry counts; a header or
// metadata field does not). So the fabric port is sent to inside plane_port's action,
// where the port is that action's own parameter; the host port, DROP_PORT and the ports
// a packet-out may name are constants at the end of NicIngress. PNA's later spelling
// (`in PortId_t dest_port`, p4lang/pna after 0.7) lifts the rule; p4c 1.2.5 has the
// directionless one. In PNA the last send_to_port of a pass wins.
#define NIC_PLANE_PORT_CHOSEN(port) send_to_port((PortId_t)port)

#include "../include/constants.p4"
#include "../include/headers.p4"
#include "../include/parser.p4"
#include "../include/nic/nic_types.p4"
#include "../include/nic/nic_state.p4"
#include "../include/nic/nic_classify.p4"
#include "../include/nic/nic_lookup.p4"
#include "../include/nic/nic_transmit.p4"
#include "../include/nic/nic_receive.p4"
#include "../include/nic/nic_ev_state.p4"
#include "../include/nic/nic_reply.p4"
#include "../include/nic/nic_flow.p4"

parser NicParser(packet_in packet,
                 out headers_t hdr,
                 inout nic_metadata_t meta,
                 in pna_main_parser_input_metadata_t istd) {
    MrcHeaderParser() mrc_parser;

    state start {
        mrc_parser.apply(packet, hdr, (bit<9>)(PortIdUint_t)istd.input_port);
        transition accept;
    }
}

// No inline decryption: MRC runs in the clear.
control NicPreControl(in headers_t hdr,
                      inout nic_metadata_t meta,
                      in pna_pre_input_metadata_t istd,
                      inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control NicIngress(inout headers_t hdr,
                   inout nic_metadata_t meta,
                   in pna_main_input_metadata_t istd,
                   inout pna_main_output_metadata_t ostd) {
    NicClassify() classify;
    NicLookup() lookup;
    NicWork() work;
    NicEvLookup() ev;
    NicSettle() settle;
    NicPathLookup() path;
    NicForward() forward;
    NicDecap() decap;
    NicReplyBuilder() reply;
    // Named like v1model's digest, which P4Info names after its type.
    // p4c-dpdk 1.2.5 refuses Digest.pack ("Unknown extern function"): its
    // build sends no EV events (docs/mrc-nic.md section 8).
#ifndef NIC_PNA_DPDK
    @name(".ev_event_t") Digest<ev_event_t>() ev_event_digest;
#endif

    apply {
        meta.ingress_port = (bit<9>)(PortIdUint_t)istd.input_port;
#ifdef NIC_PNA_DPDK
        // The bytes NIC_COUNT_BYTES counts: the frame as it arrived, as far as
        // the headers tell (Ethernet, and IPv6 with its payload; a packet-out's
        // own header and a non-IPv6 frame's payload are not counted).
        meta.frame_len = (bit<32>)ETHERNET_BYTES;
        if (hdr.ipv6.isValid()) {
            meta.frame_len = meta.frame_len + (bit<32>)IPV6_BYTES
                             + (bit<32>)hdr.ipv6.payload_len;
        }
#endif
        classify.apply(hdr, meta, istd.parser_error);
        lookup.apply(hdr, meta);
        work.apply(hdr, meta);
        ev.apply(meta);
        settle.apply(hdr, meta);
#ifndef NIC_PNA_DPDK
        if (meta.event_reason != 0) {
            ev_event_digest.pack(meta.event);
        }
#endif
        path.apply(meta);
        forward.apply(hdr, meta);

        bit<9> port = meta.out_port;
        if (meta.out_mcast_group != 0) {
            // Deliver and acknowledge: one packet out per pass in PNA, so the
            // data goes to the host and the SACK is not sent (see above).
            port = NIC_HOST_PORT;
        }
        if (meta.drop_reason != 0 || port == DROP_PORT) {
            NIC_DROP_PACKET();
        } else {
            // What v1model's egress does, here before the deparser.
            if (port == NIC_HOST_PORT) {
                if (meta.deliver) {
                    decap.apply(hdr);
                }
            } else if (meta.reply != NIC_REPLY_NONE) {
                bit<32> frame_len;
                reply.apply(hdr, meta, frame_len);
            }
            if (port == NIC_HOST_PORT) {
                send_to_port((PortId_t)(PortIdUint_t)NIC_HOST_PORT);
            } else if (!(meta.path_hit && port == meta.plane_port)) {
                // A packet-out naming its port (section 1 of docs/mrc-nic.md): a
                // name must be a constant here, so the ports a NIC's planes use in
                // every topology the controller plans (1..NIC_MAX_PLANES) are
                // spelt out; a packet-out to any other port is dropped and counted
                // (NIC_DROP_BAD_PACKET_OUT).
                switch (port) {
                    1: { send_to_port((PortId_t)1); }
                    2: { send_to_port((PortId_t)2); }
                    3: { send_to_port((PortId_t)3); }
                    4: { send_to_port((PortId_t)4); }
                    5: { send_to_port((PortId_t)5); }
                    6: { send_to_port((PortId_t)6); }
                    7: { send_to_port((PortId_t)7); }
                    8: { send_to_port((PortId_t)8); }
                    default: {
                        NIC_COUNT_BYTES(drop_counter, NIC_DROP_BAD_PACKET_OUT);
                        NIC_DROP_PACKET();
                    }
                }
            }
            // Otherwise plane_port's action has sent the packet to the plane's port.
        }
        ostd.class_of_service = (ClassOfService_t)(ClassOfServiceUint_t)meta.out_priority;
    }
}

control NicDeparser(packet_out packet,
                    in headers_t hdr,
                    in nic_metadata_t meta,
                    in pna_main_output_metadata_t ostd) {
    MrcDeparser() deparser;

    apply {
        deparser.apply(packet, hdr);
    }
}

PNA_NIC(NicParser(),
        NicPreControl(),
        NicIngress(),
        NicDeparser()) main;
