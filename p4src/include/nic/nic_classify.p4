/*
 * Classification of one packet of the NIC (docs/mrc-nic.md sections 1, 3, 4):
 * a host post (write, probe, loss report), a fabric arrival (data, probe,
 * SACK, NACK), a packet-out, or a drop.
 *
 * Needs constants.p4, headers.p4 and nic_types.p4.
 */

#ifndef _MRC_NIC_CLASSIFY_P4_
#define _MRC_NIC_CLASSIFY_P4_

// What kind of packet this is, from where it came and its headers.
control NicClassify(inout headers_t hdr, inout nic_metadata_t meta,
                    in error parser_error) {
    apply {
        meta.out_port = DROP_PORT;
        bool from_host = meta.ingress_port == NIC_HOST_PORT;
        if (hdr.packet_out.isValid()) {
            // The controller speaks for the host (probes) or sends a frame
            // out of a port as it is.
            if (hdr.packet_out.egress_port == PACKET_OUT_TRANSMIT) {
                from_host = true;
            } else if ((bit<9>)hdr.packet_out.egress_port == CPU_PORT
                    || (bit<9>)hdr.packet_out.egress_port == DROP_PORT
                    || hdr.packet_out.egress_port >= 512) {
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
        } else if (hdr.srh.isValid() || !hdr.ipv6.isValid() || !hdr.udp.isValid()
                || !hdr.bth.isValid()) {
            // MRC carriers need no SRH; anything else is not MRC traffic.  (No
            // "!" or ">=" left of "||" anywhere in the NIC: p4c-dpdk 1.2.5 stops
            // with "Logical Expression Unroll pass failed", p4c#5733.)
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
            } else if (hdr.bth.opcode == OPCODE_NACK && hdr.nack.reason == NACK_PORT_STATUS) {
                // The controller's port-status update for the peer (docs/mrc-nic.md
                // 3.1) travels as a probe does: on the EV written in the frame.
                meta.tx_probe = true;
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
        } else if (hdr.bth.opcode == OPCODE_NACK && hdr.nack.reason == NACK_PORT_STATUS) {
            meta.rx_port_status = true;
        } else if (hdr.bth.opcode == OPCODE_NACK) {
            meta.rx_nack = true;
        } else {
            meta.drop_reason = NIC_DROP_BAD_OPCODE;
        }
        hdr.packet_out.setInvalid();
        meta.transport = meta.tx_data || meta.tx_probe || meta.loss_report
                         || meta.rx_data || meta.rx_probe || meta.rx_sack || meta.rx_nack
                         || meta.rx_port_status;
    }
}

#endif  /* _MRC_NIC_CLASSIFY_P4_ */
