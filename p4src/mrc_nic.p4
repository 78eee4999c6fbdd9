/*
 * mrc_nic.p4 -- the MRC smart NIC (v1model, BMv2 simple_switch_grpc).
 *
 * One device is one NIC: a host port (NIC_HOST_PORT), one fabric port per
 * plane (plane_port), a CPU port.  docs/mrc-nic.md is the design: what the
 * controller configures (tables, multicast groups, the digest), what the NIC
 * keeps (registers), what the host posts and receives.
 *
 * Ingress, in table order (each table applies once per pass):
 *   classify        host post (write, probe, loss report), fabric arrival
 *                   (data, probe, SACK, NACK), packet-out, or a drop
 *   lookup          nic_address (arrivals), qp_context
 *   transmit        PSN and EV slot of a write (rotation over the EV set)
 *   receive         PSN window, SACK/NACK decision        (data, probes)
 *   EV reaction     skip, retire + backup search, probes   (SACK, NACK, loss)
 *   ev lookup       qp_ev: the path (T1 uSID) of the EV id chosen above
 *   EV commit       refill, floor, restore; digest
 *   path lookup     plane_port, qp_plane: port, MACs, uSID carrier
 *   encap           outer IPv6 around a host post
 * Egress: the host copy is decapsulated; a fabric copy with a reply becomes
 * the SACK/NACK and loses its payload (truncate).
 *
 * The behaviour lives in include/nic/*.p4, written against our own metadata
 * (nic_metadata_t); this file adapts it to v1model: ports, drops, multicast,
 * priority, digest, truncation.
 */

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

#include "include/constants.p4"
#include "include/headers.p4"
#include "include/parser.p4"
#include "include/nic/nic_types.p4"
#include "include/nic/nic_state.p4"
#include "include/nic/nic_lookup.p4"
#include "include/nic/nic_transmit.p4"
#include "include/nic/nic_receive.p4"
#include "include/nic/nic_ev_state.p4"
#include "include/nic/nic_reply.p4"

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

// What kind of packet this is, from where it came and its headers.
control NicClassify(inout headers_t hdr, inout nic_metadata_t meta,
                    in error parser_error) {
    apply {
        bool from_host = meta.ingress_port == NIC_HOST_PORT;
        if (hdr.packet_out.isValid()) {
            // The controller speaks for the host (probes) or sends a frame
            // out of a port as it is.
            if (hdr.packet_out.egress_port == PACKET_OUT_TRANSMIT) {
                from_host = true;
            } else if (hdr.packet_out.egress_port >= 512
                    || (bit<9>)hdr.packet_out.egress_port == CPU_PORT
                    || (bit<9>)hdr.packet_out.egress_port == DROP_PORT) {
                meta.drop_reason = NIC_DROP_BAD_PACKET_OUT;
            } else {
                meta.out_port = (bit<9>)hdr.packet_out.egress_port;
            }
        }
        if (meta.drop_reason != 0 || (hdr.packet_out.isValid() && !from_host)) {
            // decided above
        } else if (parser_error == error.PacketTooShort) {
            meta.drop_reason = NIC_DROP_TRUNCATED;
        } else if (parser_error != error.NoError) {
            meta.drop_reason = NIC_DROP_PARSER_ERROR;
        } else if (!hdr.ipv6.isValid() || !hdr.udp.isValid() || !hdr.bth.isValid()
                || hdr.srh.isValid()) {
            // MRC carriers need no SRH; anything else is not MRC traffic.
            meta.drop_reason = NIC_DROP_NOT_MRC;
        } else if (from_host) {
            if (hdr.inner_ipv6.isValid()) {
                meta.drop_reason = NIC_DROP_NOT_MRC;
            } else if (hdr.meth.isValid()) {
                meta.tx_data = true;
            } else if (hdr.bth.opcode == OPCODE_PROBE) {
                meta.tx_probe = true;
            } else if (hdr.bth.opcode == OPCODE_NACK
                    && hdr.nack.reason == NACK_HOST_LOSS_REPORT) {
                meta.loss_report = true;
            } else {
                meta.drop_reason = NIC_DROP_BAD_OPCODE;
            }
        } else if (!hdr.inner_ipv6.isValid()) {
            meta.drop_reason = NIC_DROP_NOT_ENCAPSULATED;
        } else if (hdr.meth.isValid()) {
            meta.rx_data = true;
        } else if (hdr.bth.opcode == OPCODE_PROBE) {
            meta.rx_probe = true;
        } else if (hdr.bth.opcode == OPCODE_SACK) {
            meta.rx_sack = true;
        } else if (hdr.bth.opcode == OPCODE_NACK) {
            meta.rx_nack = true;
        } else {
            meta.drop_reason = NIC_DROP_BAD_OPCODE;
        }
        hdr.packet_out.setInvalid();
    }
}

control NicIngress(inout headers_t hdr,
                   inout nic_metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    NicClassify() classify;
    NicLookup() lookup;
    NicTransmit() transmit;
    NicReceive() receive;
    NicEvReaction() react;
    NicEvLookup() ev;
    NicEvCommit() commit;
    NicPathLookup() path;
    NicEncap() encap;

    apply {
        meta.ingress_port = standard_metadata.ingress_port;
        meta.out_port = DROP_PORT;
        classify.apply(hdr, meta, standard_metadata.parser_error);

        bool transport = meta.tx_data || meta.tx_probe || meta.loss_report
                         || meta.rx_data || meta.rx_probe || meta.rx_sack || meta.rx_nack;
        if (transport) {
            lookup.apply(hdr, meta);
            if (meta.rx_data || meta.rx_probe || meta.rx_sack || meta.rx_nack) {
                if (!meta.local) {
                    meta.drop_reason = NIC_DROP_NOT_LOCAL;
                }
            }
            if (meta.drop_reason == 0 && !meta.qp_hit) {
                meta.drop_reason = NIC_DROP_UNKNOWN_QP;
            }
        }

        if (meta.drop_reason == 0 && transport) {
            if (meta.tx_data) {
                transmit.apply(hdr, meta);
            } else if (meta.tx_probe) {
                // A probe goes on the EV the host chose, whatever its state, as
                // trimmable data (docs/mrc-protocol.md section 3).
                meta.ev = hdr.udp.src_port ++ hdr.ipv6.flow_label[15:0];
                meta.dscp = DSCP_TRIMMABLE;
            } else if (meta.rx_data || meta.rx_probe) {
                meta.ev = hdr.udp.src_port ++ hdr.ipv6.flow_label[15:0];
                receive.apply(hdr, meta);
            } else {
                react.apply(hdr, meta);
            }

            if (meta.need_ev) {
                ev.apply(meta);
            }
            if (meta.tx_data) {
                if (meta.ev_hit) {
                    meta.ev = meta.t1_usid ++ 7w0 ++ meta.ev_id[8:0];
                    psn_ev.write(NIC_SLOT_INDEX(meta.qp_index, meta.psn[7:0]), meta.ev);
                    slot_tx_counter.count(NIC_SLOT_INDEX(meta.qp_index, meta.slot));
                } else {
                    meta.drop_reason = NIC_DROP_NO_EV;
                }
            } else if (meta.loss_report || meta.rx_sack || meta.rx_nack) {
                commit.apply(meta);
                if (meta.event_reason != 0) {
                    meta.event.local_qpn = hdr.bth.dest_qp;
                    digest<ev_event_t>(1, meta.event);
                }
            }

            meta.plane = (bit<8>)meta.ev[31:29];
            if (meta.tx_data || meta.tx_probe) {
                meta.need_path = meta.drop_reason == 0;
            }
            if (meta.need_path) {
                path.apply(meta);
                if (!meta.path_hit) {
                    meta.drop_reason = NIC_DROP_NO_PATH;
                }
            }

            if (meta.drop_reason != 0) {
                // counted below
            } else if (meta.tx_data || meta.tx_probe) {
                encap.apply(hdr, meta);
                qp_tx_counter.count((bit<32>)meta.qp_index);
            } else if (meta.loss_report) {
                // Consumed: the report was for the NIC alone.
                meta.out_port = DROP_PORT;
            } else if (meta.rx_sack || meta.rx_nack) {
                // The host frees, retransmits and times on what the peer said.
                meta.deliver = true;
                meta.out_port = NIC_HOST_PORT;
            } else if (meta.deliver && meta.reply != NIC_REPLY_NONE) {
                meta.out_mcast_group = NIC_REPLY_MCAST_BASE + (bit<16>)meta.plane;
                meta.out_priority = PRIORITY_HIGH;
            } else if (meta.deliver) {
                meta.out_port = NIC_HOST_PORT;
            } else if (meta.reply != NIC_REPLY_NONE) {
                meta.out_port = meta.plane_port;
                meta.out_priority = PRIORITY_HIGH;
            }
        }

        if (meta.drop_reason != 0) {
            drop_counter.count(meta.drop_reason);
            mark_to_drop(standard_metadata);
        } else if (meta.out_mcast_group != 0) {
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
