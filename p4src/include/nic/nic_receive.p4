/*
 * Receive: the per-QP PSN window and what to answer (docs/mrc-nic.md 4.1, 4.2).
 *
 * Needs constants.p4, headers.p4, nic_types.p4, nic_state.p4.
 */

#ifndef _MRC_NIC_RECEIVE_P4_
#define _MRC_NIC_RECEIVE_P4_

// Trailing ones of the window bitmap: how far the cumulative PSN moves.
// Straight-line halving steps (32, 16, 8, 4, 2, 1, 1) because v1model targets
// have no loops; the bitmap leaves shifted by the count.
control NicCountInOrder(inout bit<64> bitmap, out bit<24> advance) {
    apply {
        advance = 0;
        if (bitmap[31:0] == 0xFFFFFFFF) { advance = advance + 32; bitmap = bitmap >> 32; }
        if (bitmap[15:0] == 0xFFFF) { advance = advance + 16; bitmap = bitmap >> 16; }
        if (bitmap[7:0] == 0xFF) { advance = advance + 8; bitmap = bitmap >> 8; }
        if (bitmap[3:0] == 0xF) { advance = advance + 4; bitmap = bitmap >> 4; }
        if (bitmap[1:0] == 0x3) { advance = advance + 2; bitmap = bitmap >> 2; }
        if (bitmap[0:0] == 1) { advance = advance + 1; bitmap = bitmap >> 1; }
        // After the steps above at most one more one can sit at bit 0 (a
        // full bitmap of 64 ones counts 63 in them).
        if (bitmap[0:0] == 1) { advance = advance + 1; bitmap = bitmap >> 1; }
    }
}

// Index of the highest one of a non-zero bitmap: the last PSN a SACK's window
// word shows received.  Straight-line halving steps, as above.
control NicHighestOne(in bit<64> bitmap, out bit<24> top) {
    apply {
        bit<64> rest = bitmap;
        top = 0;
        if (rest[63:32] != 0) { top = top + 32; rest = rest >> 32; }
        if (rest[31:16] != 0) { top = top + 16; rest = rest >> 16; }
        if (rest[15:8] != 0) { top = top + 8; rest = rest >> 8; }
        if (rest[7:4] != 0) { top = top + 4; rest = rest >> 4; }
        if (rest[3:2] != 0) { top = top + 2; rest = rest >> 2; }
        if (rest[1:1] != 0) { top = top + 1; }
    }
}

// One step of moving the cumulative PSN (docs/mrc-nic.md 4.1): over the run of
// ones from `expected` in its word.  A run that ends the word completes it: the
// word is cleared (it holds PSNs NIC_RX_WORDS * 64 later next time) and the
// walk goes on into the next word; otherwise the walk stops there, and that
// word becomes the SACK's report unless the arriving packet's word is ahead of
// it.  `known` is the arriving word as just written, read from the register
// otherwise.
control NicWindowStep(in bit<16> qp_index,
                      in bit<24> known_base,
                      in bit<64> known,
                      inout bit<24> expected,
                      inout bool walking,
                      inout bool reported,
                      inout bit<24> report_base,
                      inout bit<64> report_bits) {
    NicCountInOrder() count_in_order;

    apply {
        if (walking) {
            bit<24> base = expected & 0xFFFFC0;
            bit<64> word = known;
            if (base != known_base) {
                NIC_REG_READ(word, rx_bitmap, NIC_RX_WORD_INDEX(qp_index, expected));
            }
            bit<64> rest = word >> (bit<8>)expected[5:0];
            bit<24> advance;
            count_in_order.apply(rest, advance);
            if (advance + (bit<24>)expected[5:0] == 64) {
                rx_bitmap.write(NIC_RX_WORD_INDEX(qp_index, expected), 0);
                expected = base + 64;
            } else {
                expected = expected + advance;
                walking = false;
                bit<24> ahead = report_base - base;
                if (ahead == 0 || ahead[23:23] == 1 || !reported) {
                    reported = true;
                    report_base = base;
                    report_bits = word;
                }
            }
        }
    }
}

control NicReceive(in headers_t hdr, inout nic_metadata_t meta) {
    // NIC_RX_ADVANCE_WORDS (2) steps: bounded work per pass.
    NicWindowStep() step0;
    NicWindowStep() step1;
    NicHighestOne() highest_one;

    apply {
        bit<32> qp = (bit<32>)meta.qp_index;
        bit<24> expected;
        bit<24> received;
        NIC_REG_READ(expected, rx_expected, qp);
        NIC_REG_READ(received, rx_bytes, qp);
        meta.psn = hdr.bth.psn;
        // The window word the SACK reports, and its first PSN.
        bool reported = false;
        bit<24> report_base = 0;
        bit<64> report_bits = 0;
        // Where the arriving PSN's word is (a base no word has when it is
        // outside the window).
        bit<24> known_base = 1;
        bit<64> known = 0;
        bool walking = false;
        // A new packet at `expected` whose walk then moves `expected` further
        // filled a hole.  RFC 5681 section 4.2 SACKs such a packet at once "to
        // provide feedback to senders recovering from losses"; a TCP sender
        // saw every hole (each out-of-order segment is ACKed at once), ours
        // only those a SACK showed: a PSN below `rx_sack_high`.  Coalescing
        // the fill of such a hole leaves the sender taking the PSN for lost (a
        // packet a queue delayed past the last of a transfer would wait for
        // the sender's probe); SACKing the fill of a hole no SACK showed only
        // multiplies the SACKs, as sprayed packets fill holes all the time.
        bool fresh = false;
        bool at_expected = false;
        bool ack_now = false;
        bit<8> unacked = 0;
        // rx_sack_high, read only by a pass that fills a hole or sends a SACK.
        bit<24> sack_high = 0;
        bool filled = false;

        if (meta.rx_probe) {
            // A probe takes no PSN: its answer reports the window as it is and
            // echoes the probe's EV (docs/mrc-protocol.md section 3, PROBE).
            // The PSN in its BTH names what the sender asks about [ours]: inside
            // the window, the answer reports that PSN's word (a sender that
            // sees a transmission overtaken asks about it at its deadline, and
            // learns of a hole past the first without waiting for the holes
            // below it to fill, docs/mrc-nic.md 4.3).  Outside the window, or
            // when that word is empty (an empty bitmap says nothing), the word
            // at `expected`, as the walk leaves it.
            meta.reply = NIC_REPLY_SACK;
            meta.sack_pr = SACK_PR_PROBE;
            walking = true;
            event_counter.count(NIC_EVENT_PROBE_ANSWERED);
            bit<24> asked = meta.psn - expected;
            if (asked < (bit<24>)NIC_RX_WINDOW) {
                NIC_REG_READ(known, rx_bitmap, NIC_RX_WORD_INDEX(meta.qp_index, meta.psn));
                known_base = meta.psn & 0xFFFFC0;
                if (known != 0) {
                    reported = true;
                    report_base = known_base;
                    report_bits = known;
                }
            }
        } else if (hdr.ipv6.dscp == DSCP_TRIMMED || hdr.ipv6.dscp == DSCP_TRIMMED_LASTHOP) {
            // A trimmed header: tell the sender at once which PSN and EV, so it
            // retransmits without waiting for a timeout [paper].  The window
            // does not move: the data is not here.
            meta.reply = NIC_REPLY_NACK;
            if (hdr.ipv6.dscp == DSCP_TRIMMED) {
                meta.nack_reason = NACK_TRIMMED;
            } else {
                meta.nack_reason = NACK_TRIMMED_LASTHOP;
            }
        } else {
            // PSN arithmetic is modulo 2^24: d "negative" (top bit set) means
            // the PSN is behind the window.
            bit<24> d = meta.psn - expected;
            bool duplicate = false;
            if (d < (bit<24>)NIC_RX_WINDOW) {
                bit<32> index = NIC_RX_WORD_INDEX(meta.qp_index, meta.psn);
                NIC_REG_READ(known, rx_bitmap, index);
                bit<64> bit_d = 64w1 << (bit<8>)meta.psn[5:0];
                if ((known & bit_d) != 0) {
                    duplicate = true;
                } else {
                    fresh = true;
                    at_expected = d == 0;
                    known = known | bit_d;
                    rx_bitmap.write(index, known);
                }
                known_base = meta.psn & 0xFFFFC0;
                reported = true;
                report_base = known_base;
                report_bits = known;
            } else if (d[23:23] == 1) {
                duplicate = true;
            } else {
                meta.reply = NIC_REPLY_NACK;
                meta.nack_reason = NACK_PSN_OUT_OF_WINDOW;
                event_counter.count(NIC_EVENT_OUT_OF_WINDOW);
            }
            // Any data packet continues the walk of the cumulative PSN, so a
            // run longer than one packet's steps is caught up by the next ones.
            walking = duplicate || fresh;

            bool ce = hdr.ipv6.ecn == ECN_CE;
            if (ce) {
                // The ECN echo that makes the sender skip this EV once.
                meta.sack_mark = SACK_MARK_SKIP_ONCE;
            }
            if (duplicate) {
                // Acknowledged again (the first SACK may have been lost), never
                // delivered twice.
                meta.reply = NIC_REPLY_SACK;
                event_counter.count(NIC_EVENT_DUPLICATE);
            } else if (fresh) {
                meta.deliver = true;
                received = received + (bit<24>)hdr.inner_ipv6.payload_len;
                NIC_COUNT_BYTES(qp_rx_counter, qp);
                NIC_REG_READ(unacked, rx_unacked, qp);
                unacked = unacked + 1;
                // Immediate SACK for CE, retransmissions, AckReq and the fill
                // of a hole a SACK showed (below); the rest is coalesced, one
                // SACK per sack_every packets.
                if (ce || hdr.bth.retransmit == 1 || hdr.bth.ack_req == 1
                        || unacked >= meta.sack_every) {
                    ack_now = true;
                }
                rx_bytes.write(qp, received);
            }
        }

        if (walking) {
            step0.apply(meta.qp_index, known_base, known, expected, walking, reported,
                        report_base, report_bits);
            step1.apply(meta.qp_index, known_base, known, expected, walking, reported,
                        report_base, report_bits);
            rx_expected.write(qp, expected);
        }
        if (at_expected && expected != meta.psn + 1) {
            filled = true;
            NIC_REG_READ(sack_high, rx_sack_high, qp);
            bit<24> shown_past = sack_high - meta.psn - 1;
            if (shown_past != 0 && shown_past[23:23] == 0) {
                ack_now = true;
            }
        }
        if (fresh) {
            if (ack_now) {
                meta.reply = NIC_REPLY_SACK;
                unacked = 0;
            }
            rx_unacked.write(qp, unacked);
        }

        meta.cumulative_psn = expected - 1;
        bit<24> behind = expected - report_base;
        if ((behind >= 64 && behind[23:23] == 0) || !reported) {
            // No word to report, or the walk passed the arriving packet's word
            // and ended on a word boundary: nothing is known past expected.
            report_base = expected;
            report_bits = 0;
        }
        meta.sack_offset = (report_base - meta.cumulative_psn)[15:0];
        meta.sack_bitmap = report_bits;
        meta.received_bytes = received;
        if (meta.reply == NIC_REPLY_SACK) {
            event_counter.count(NIC_EVENT_SACK_SENT);
            if (report_bits != 0) {
                // rx_sack_high only moves forward (mod 2^24): the sender keeps
                // what an earlier SACK showed it.
                if (!filled) {
                    NIC_REG_READ(sack_high, rx_sack_high, qp);
                }
                bit<24> top = (bit<24>)meta.psn[5:0];
                if (report_base != known_base
                        || report_bits >> (bit<8>)meta.psn[5:0] != 1) {
                    // Not the usual case of a SACK whose word ends at the PSN
                    // it answers.
                    highest_one.apply(report_bits, top);
                }
                bit<24> shown = report_base + top + 1;
                bit<24> gain = shown - sack_high;
                if (gain != 0 && gain[23:23] == 0) {
                    rx_sack_high.write(qp, shown);
                }
            }
        } else if (meta.reply == NIC_REPLY_NACK) {
            event_counter.count(NIC_EVENT_NACK_SENT);
        }
        meta.need_path = meta.reply != NIC_REPLY_NONE;
    }
}

#endif  /* _MRC_NIC_RECEIVE_P4_ */
