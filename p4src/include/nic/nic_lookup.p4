/*
 * The NIC's tables (docs/mrc-nic.md section 2), one control per stage of the
 * pass.  A table applies once per pass, and every path through the main
 * control meets them in the same order: nic_address, qp_context, qp_ev,
 * plane_port, qp_plane.  The controls between them (transmit, receive, EV
 * reactions) compute their keys from registers.  Each control decides itself
 * whether its stage has work (meta.transport, need_ev, need_path), so the
 * architecture's top level applies them in a straight line.
 *
 * Needs constants.p4, headers.p4 and nic_types.p4.
 */

#ifndef _MRC_NIC_LOOKUP_P4_
#define _MRC_NIC_LOOKUP_P4_

// Which NIC an arriving packet is for, and which of this NIC's QPs.
control NicLookup(in headers_t hdr, inout nic_metadata_t meta) {

    action accept_local() {
        meta.local = true;
    }

    // The NIC's own addresses: an encapsulated packet is for this NIC when
    // its inner destination is one of them (docs/mrc-protocol.md section 5).
    table nic_address {
        key = {
            hdr.inner_ipv6.dst_addr: exact @name("dst_addr");
        }
        actions = {
            accept_local;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 16;
    }

    action set_qp(bit<16> qp_index, bit<24> remote_qpn, bit<16> ev_slots, bit<8> ev_mask,
                  bit<16> min_active, bit<8> backups_per_plane, bit<8> sack_every,
                  bit<8> probe_threshold) {
        meta.qp_hit = true;
        meta.qp_index = qp_index;
        meta.remote_qpn = remote_qpn;
        meta.ev_slots = ev_slots;
        meta.ev_mask = ev_mask;
        meta.min_active = min_active;
        meta.backups_per_plane = backups_per_plane;
        meta.sack_every = sack_every;
        meta.probe_threshold = probe_threshold;
    }

    // Keyed by the local QPN: the host posts on its own QP, and peers address
    // this NIC's QP in BTH DestQP, so one entry serves both directions.
    table qp_context {
        key = {
            hdr.bth.dest_qp: exact @name("local_qpn");
        }
        actions = {
            set_qp;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = NIC_QP_COUNT;
    }

    action set_planes_down(bit<8> down_mask) {
        meta.planes_down = down_mask;
    }

    // Which of this NIC's ports are down (docs/mrc-nic.md 3.1): BMv2 has no
    // port-status input, so the controller says it here; no entry = all up.
    // Keyed by the NIC's address, the source of what its host posts.
    table nic_planes {
        key = {
            hdr.ipv6.src_addr: exact @name("src_addr");
        }
        actions = {
            set_planes_down;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = 16;
    }

    apply {
        if (meta.transport) {
            bool arrival = meta.rx_data || meta.rx_probe || meta.rx_sack || meta.rx_nack
                           || meta.rx_port_status;
            if (arrival) {
                nic_address.apply();
            }
            if (meta.drop_reason == 0) {
                qp_context.apply();
            }
            if (meta.tx_data) {
                nic_planes.apply();
            }
            if (arrival && !meta.local) {
                meta.drop_reason = NIC_DROP_NOT_LOCAL;
            }
            if (meta.drop_reason == 0 && !meta.qp_hit) {
                meta.drop_reason = NIC_DROP_UNKNOWN_QP;
            }
        }
    }
}

// The path of one EV id of a QP: its T1 uSID (docs/mrc-nic.md, "EV and carrier").
control NicEvLookup(inout nic_metadata_t meta) {

    action set_ev(bit<16> t1_usid) {
        meta.ev_hit = true;
        meta.t1_usid = t1_usid;
    }

    table qp_ev {
        key = {
            meta.qp_index: exact @name("qp_index");
            meta.ev_id: exact @name("ev_id");
        }
        actions = {
            set_ev;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = NIC_EV_ID_ENTRIES;
    }

    apply {
        if (meta.need_ev) {
            qp_ev.apply();
        }
    }
}

// The plane's port and the QP's template on that plane; together with the
// EV's T1 they make the uSID carrier block:srcT0:T1:dstT0:down.
control NicPathLookup(inout nic_metadata_t meta) {

    // The port is 32 bits, PNA's PortId_t width, on every architecture (one P4Info):
    // the PNA top level passes it to send_to_port through a single cast, and p4c
    // accepts a directionless argument only so (see p4src/pna/mrc_nic.p4).
    action set_plane_port(bit<32> port, bit<48> nic_mac, bit<48> next_hop_mac,
                          bit<32> usid_block, bit<16> src_t0_usid) {
        meta.path_hit = true;
        meta.plane_port = (bit<9>)port;
        NIC_PLANE_PORT_CHOSEN(port);
        meta.nic_mac = nic_mac;
        meta.next_hop_mac = next_hop_mac;
        meta.usid_block = usid_block;
        meta.src_t0_usid = src_t0_usid;
    }

    table plane_port {
        key = {
            meta.plane: exact @name("plane");
        }
        actions = {
            set_plane_port;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = NIC_MAX_PLANES;
    }

    bool qp_path_hit = false;

    action set_qp_path(bit<16> dst_t0_usid, bit<16> down_usid) {
        qp_path_hit = true;
        meta.dst_t0_usid = dst_t0_usid;
        meta.down_usid = down_usid;
    }

    table qp_plane {
        key = {
            meta.qp_index: exact @name("qp_index");
            meta.plane: exact @name("plane");
        }
        actions = {
            set_qp_path;
            @defaultonly NoAction;
        }
        default_action = NoAction();
        size = NIC_PLANE_ENTRIES;
    }

    apply {
        if (meta.need_path) {
            plane_port.apply();
            qp_plane.apply();
            meta.path_hit = meta.path_hit && qp_path_hit;
            // RFC 9800 F3216: 32-bit block, then 16-bit uSIDs in path order; the
            // two unused slots stay zero (end of carrier). Built as two 64-bit
            // halves: p4c-dpdk refuses a concatenation wider than 64 bits unless
            // it is the final 128-bit one ("Unsupported bitwidth 80").
            bit<64> carrier_high = meta.usid_block ++ meta.src_t0_usid ++ meta.ev[31:16];
            bit<64> carrier_low = meta.dst_t0_usid ++ meta.down_usid ++ 32w0;
            meta.carrier = carrier_high ++ carrier_low;
            if (!meta.path_hit) {
                meta.drop_reason = NIC_DROP_NO_PATH;
            }
        }
    }
}

#endif  /* _MRC_NIC_LOOKUP_P4_ */
