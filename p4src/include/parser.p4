/*
 * The parser and deparser shared by srv6_switch.p4 and mrc_nic.p4.
 *
 *   [packet_out, CPU port only] -> Ethernet -> outer IPv6
 *       -> SRH (NH 43, optional) -> inner IPv6 (NH 41) -> UDP 4791 -> BTH
 *       -> by opcode: METH+RETH(+ImmDt) for writes, SACK (+cc), NACK, PROBE
 *
 * MrcHeaderParser is a sub-parser because v1model's Parser type names the
 * program's own metadata struct: each program wraps it in a two-line parser
 * and so shares everything else.  Its headers are inout, not out: the caller's
 * headers are all invalid when parsing starts anyway, and inout lets p4c
 * inline the sub-parser without copying the header struct (stack included).
 *
 * Needs constants.p4 and headers.p4 to be included first.
 */

#ifndef _MRC_PARSER_P4_
#define _MRC_PARSER_P4_

parser MrcHeaderParser(packet_in packet,
                       inout headers_t hdr,
                       in bit<9> ingress_port) {
    // Segment List elements still to extract.
    bit<8> segments_to_parse;
    // Length of the SRH beyond its segment list, in 8-octet units: TLVs
    // (RFC 8754 section 2.1) or a Hdr Ext Len that disagrees with Last Entry.
    bit<8> srh_extra_len;

    state start {
        transition select(ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }

    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_ipv6 {
        packet.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_ROUTING: parse_srh;
            IP_PROTO_IPV6: parse_inner_ipv6;
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_srh {
        packet.extract(hdr.srh);
        // Last Entry is zero-based, so the list has Last Entry + 1 elements of
        // two 8-octet units each (RFC 8754 section 2).
        segments_to_parse = hdr.srh.last_entry + 1;
        srh_extra_len = hdr.srh.hdr_ext_len - (segments_to_parse << 1);
        transition select(hdr.srh.routing_type) {
            SRH_ROUTING_TYPE: parse_srh_segment;
            // Another routing type: the switch only forwards on the DA, so
            // the rest of the packet stays payload.
            default: accept;
        }
    }

    // A list longer than SRH_MAX_SEGMENTS overflows the stack: the parser
    // stops with error.StackOutOfBounds and ingress drops the packet.
    state parse_srh_segment {
        packet.extract(hdr.srh_segments.next);
        segments_to_parse = segments_to_parse - 1;
        transition select(segments_to_parse) {
            0: parse_after_srh;
            default: parse_srh_segment;
        }
    }

    state parse_after_srh {
        // With TLVs after the segment list nothing past the SRH is parsed: the
        // switch never needs them, and the inner packet then stays payload,
        // forwarded untouched (and never trimmed).
        transition select(srh_extra_len, hdr.srh.next_hdr) {
            (0, IP_PROTO_IPV6): parse_inner_ipv6;
            (0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_inner_ipv6 {
        packet.extract(hdr.inner_ipv6);
        transition select(hdr.inner_ipv6.next_hdr) {
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            MRC_UDP_PORT: parse_bth;
            default: accept;
        }
    }

    state parse_bth {
        packet.extract(hdr.bth);
        transition select(hdr.bth.opcode) {
            OPCODE_WRITE_FIRST: parse_write;
            OPCODE_WRITE_MIDDLE: parse_write;
            OPCODE_WRITE_LAST: parse_write;
            OPCODE_WRITE_ONLY: parse_write;
            OPCODE_WRITE_LAST_IMM: parse_write_imm;
            OPCODE_WRITE_ONLY_IMM: parse_write_imm;
            OPCODE_SACK: parse_sack;
            OPCODE_NACK: parse_nack;
            OPCODE_PROBE: parse_probe;
            default: accept;
        }
    }

    // RETH is in every write packet, not only the first [paper].
    state parse_write {
        packet.extract(hdr.meth);
        packet.extract(hdr.reth);
        transition accept;
    }

    state parse_write_imm {
        packet.extract(hdr.meth);
        packet.extract(hdr.reth);
        packet.extract(hdr.immdt);
        transition accept;
    }

    state parse_sack {
        packet.extract(hdr.sack);
        packet.extract(hdr.sack_cc);
        transition accept;
    }

    state parse_nack {
        packet.extract(hdr.nack);
        transition accept;
    }

    state parse_probe {
        packet.extract(hdr.probe);
        transition accept;
    }
}

// packet_out is consumed by ingress and never emitted; packet_in is valid only
// on packets sent to the CPU port.
control MrcDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv6);
        packet.emit(hdr.srh);
        packet.emit(hdr.srh_segments);
        packet.emit(hdr.inner_ipv6);
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
        packet.emit(hdr.meth);
        packet.emit(hdr.reth);
        packet.emit(hdr.immdt);
        packet.emit(hdr.sack);
        packet.emit(hdr.sack_cc);
        packet.emit(hdr.nack);
        packet.emit(hdr.probe);
    }
}

#endif  /* _MRC_PARSER_P4_ */
