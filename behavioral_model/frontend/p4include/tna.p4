/*
 * tna.p4 for the mrc-p4 behavioral model (bm): the Tofino Native Architecture,
 * Tofino 1.
 *
 * Written for this project.  The block types and packages have the names,
 * parameters and @optional markers of Intel's open-source tna.p4 /
 * tofino1arch.p4 (p4lang/open-p4studio, p4include/).  A pipe is six blocks:
 * ingress parser, ingress, ingress deparser, then the traffic manager, then
 * egress parser, egress, egress deparser.  Nothing but headers and the
 * intrinsic metadata crosses the traffic manager, so a program bridges what
 * egress needs as a header it emits in ingress and parses in egress.
 *
 * The real file picks Tofino 1 or 2 by __TARGET_TOFINO__, which the Tofino
 * compiler defines (p4c's front end needs -D__TARGET_TOFINO__=1).  bm only has
 * the Tofino 1 declarations and takes them when the macro is not defined.
 */

#ifndef _MRC_BM_TNA_P4_
#define _MRC_BM_TNA_P4_

#ifndef __TARGET_TOFINO__
#define __TARGET_TOFINO__ 1
#endif
#if __TARGET_TOFINO__ != 1
#error "bm's tna.p4 has the Tofino 1 declarations only"
#endif

#include <core.p4>
#include <tofino.p4>

parser IngressParserT<H, M>(
    packet_in pkt,
    out H hdr,
    out M ig_md,
    @optional out ingress_intrinsic_metadata_t ig_intr_md,
    @optional out ingress_intrinsic_metadata_for_tm_t ig_intr_md_for_tm,
    @optional out ingress_intrinsic_metadata_from_parser_t ig_intr_md_from_prsr);

parser EgressParserT<H, M>(
    packet_in pkt,
    out H hdr,
    out M eg_md,
    @optional out egress_intrinsic_metadata_t eg_intr_md,
    @optional out egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr);

control IngressT<H, M>(
    inout H hdr,
    inout M ig_md,
    @optional in ingress_intrinsic_metadata_t ig_intr_md,
    @optional in ingress_intrinsic_metadata_from_parser_t ig_intr_md_from_prsr,
    @optional inout ingress_intrinsic_metadata_for_deparser_t ig_intr_md_for_dprsr,
    @optional inout ingress_intrinsic_metadata_for_tm_t ig_intr_md_for_tm);

control EgressT<H, M>(
    inout H hdr,
    inout M eg_md,
    @optional in egress_intrinsic_metadata_t eg_intr_md,
    @optional in egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr,
    @optional inout egress_intrinsic_metadata_for_deparser_t eg_intr_md_for_dprsr,
    @optional inout egress_intrinsic_metadata_for_output_port_t eg_intr_md_for_oport);

control IngressDeparserT<H, M>(
    packet_out pkt,
    inout H hdr,
    in M metadata,
    @optional in ingress_intrinsic_metadata_for_deparser_t ig_intr_md_for_dprsr,
    @optional in ingress_intrinsic_metadata_t ig_intr_md);

control EgressDeparserT<H, M>(
    packet_out pkt,
    inout H hdr,
    in M metadata,
    @optional in egress_intrinsic_metadata_for_deparser_t eg_intr_md_for_dprsr,
    @optional in egress_intrinsic_metadata_t eg_intr_md,
    @optional in egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr);

package Pipeline<IH, IM, EH, EM>(
    IngressParserT<IH, IM> ingress_parser,
    IngressT<IH, IM> ingress,
    IngressDeparserT<IH, IM> ingress_deparser,
    EgressParserT<EH, EM> egress_parser,
    EgressT<EH, EM> egress,
    EgressDeparserT<EH, EM> egress_deparser);

// Up to four pipes; a program that gives one runs it on every pipe.
@pkginfo(arch="TNA", version="1.0.2")
package Switch<IH0, IM0, EH0, EM0, IH1, IM1, EH1, EM1,
               IH2, IM2, EH2, EM2, IH3, IM3, EH3, EM3>(
    Pipeline<IH0, IM0, EH0, EM0> pipe0,
    @optional Pipeline<IH1, IM1, EH1, EM1> pipe1,
    @optional Pipeline<IH2, IM2, EH2, EM2> pipe2,
    @optional Pipeline<IH3, IM3, EH3, EM3> pipe3);

#endif  /* _MRC_BM_TNA_P4_ */
