/*
 * tofino.p4 for the mrc-p4 behavioral model (bm): the Tofino types, intrinsic
 * metadata and externs that tna.p4 builds on.
 *
 * Written for this project.  Names, field orders and widths, generic
 * parameters, directions and @optional markers follow Intel's open-source
 * tofino.p4 (p4lang/open-p4studio, p4include/), so a program that checks
 * against these declarations also goes through p4c's front end with the real
 * file and through the Tofino compiler.  bm only checks TNA programs; it does
 * not run them.  This is the subset MRC's switch uses plus what a typical
 * TNA program needs; add declarations only as the real file has them.
 */

#ifndef _MRC_BM_TOFINO_P4_
#define _MRC_BM_TOFINO_P4_

#include <core.p4>

/* ---- Common types ---------------------------------------------------------- */

typedef bit<9>  PortId_t;             // a port of the pipe (Tofino 1)
typedef bit<16> MulticastGroupId_t;
typedef bit<5>  QueueId_t;            // a queue of the egress port
typedef bit<3>  MirrorType_t;         // selects one Mirror instance of a deparser
typedef bit<10> MirrorId_t;           // a mirror session, set up by the control plane
typedef bit<3>  ResubmitType_t;
typedef bit<3>  DigestType_t;         // selects one Digest instance of a deparser
typedef bit<16> ReplicationId_t;

typedef error ParserError_t;

// The port metadata the ingress parser skips or unpacks after the intrinsic
// header (phase 0), in bits.
const bit<32> PORT_METADATA_SIZE = 32w64;

// Bits of ingress/egress_intrinsic_metadata_from_parser_t.parser_err.
const bit<16> PARSER_ERROR_OK           = 16w0x0000;
const bit<16> PARSER_ERROR_NO_MATCH     = 16w0x0001;
const bit<16> PARSER_ERROR_PARTIAL_HDR  = 16w0x0002;
const bit<16> PARSER_ERROR_CTR_RANGE    = 16w0x0004;
const bit<16> PARSER_ERROR_TIMEOUT_USER = 16w0x0008;
const bit<16> PARSER_ERROR_TIMEOUT_HW   = 16w0x0010;
const bit<16> PARSER_ERROR_SRC_EXT      = 16w0x0020;
const bit<16> PARSER_ERROR_DST_CONT     = 16w0x0040;
const bit<16> PARSER_ERROR_PHV_OWNER    = 16w0x0080;
const bit<16> PARSER_ERROR_MULTIWRITE   = 16w0x0100;
const bit<16> PARSER_ERROR_ARAM_MBE     = 16w0x0400;
const bit<16> PARSER_ERROR_FCS          = 16w0x0800;

enum MeterType_t { PACKETS, BYTES }

enum bit<8> MeterColor_t { GREEN = 8w0, YELLOW = 8w1, RED = 8w3 }

enum CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

enum SelectorMode_t { FAIR, RESILIENT }

enum HashAlgorithm_t {
    IDENTITY,
    RANDOM,
    XOR8,
    XOR16,
    XOR32,
    CRC8,
    CRC16,
    CRC32,
    CRC64,
    CUSTOM
}

// Added to core's exact, ternary and lpm.
match_kind {
    range,
    selector,
    atcam_partition_index
}

// Added to core's errors by the Tofino parsers.
error {
    CounterRange,
    Timeout,
    PhvOwner,
    MultiWrite,
    IbufOverflow,
    IbufUnderflow
}

/* ---- Ingress intrinsic metadata ------------------------------------------- */

// The first bytes the ingress parser sees: extracted before anything else.
@__intrinsic_metadata
header ingress_intrinsic_metadata_t {
    bit<1> resubmit_flag;
    @padding bit<1> _pad1;
    bit<2> packet_version;
    @padding bit<3> _pad2;
    PortId_t ingress_port;
    bit<48> ingress_mac_tstamp;       // ns, taken at the ingress MAC
}

// What ingress tells the traffic manager: where to (unicast port or
// multicast groups), which queue and class, copy to CPU.
@__intrinsic_metadata
struct ingress_intrinsic_metadata_for_tm_t {
    PortId_t ucast_egress_port;
    bit<1> bypass_egress;
    bit<1> deflect_on_drop;
    bit<3> ingress_cos;               // iCoS: priority group, admission, PFC
    QueueId_t qid;                    // the egress port's queue the packet joins
    bit<3> icos_for_copy_to_cpu;
    bit<1> copy_to_cpu;
    bit<2> packet_color;
    bit<1> disable_ucast_cutthru;
    bit<1> enable_mcast_cutthru;
    MulticastGroupId_t mcast_grp_a;
    MulticastGroupId_t mcast_grp_b;
    bit<13> level1_mcast_hash;
    bit<13> level2_mcast_hash;
    bit<16> level1_exclusion_id;
    bit<9> level2_exclusion_id;
    bit<16> rid;
}

@__intrinsic_metadata
struct ingress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;
    bit<32> global_ver;
    bit<16> parser_err;               // PARSER_ERROR_* bits
}

@__intrinsic_metadata
struct ingress_intrinsic_metadata_for_deparser_t {
    bit<3> drop_ctl;                  // bit 0: no unicast/multicast/resubmit
    DigestType_t digest_type;         // which Digest.pack runs
    ResubmitType_t resubmit_type;
    MirrorType_t mirror_type;         // which Mirror.emit runs
}

/* ---- Egress intrinsic metadata -------------------------------------------- */

// Filled in by the traffic manager; the egress parser extracts it first.
@__intrinsic_metadata
header egress_intrinsic_metadata_t {
    @padding bit<7> _pad0;
    PortId_t egress_port;
    @padding bit<5> _pad1;
    bit<19> enq_qdepth;               // queue depth (cells) when the packet joined
    @padding bit<6> _pad2;
    bit<2> enq_congest_stat;
    @padding bit<14> _pad3;
    bit<18> enq_tstamp;
    @padding bit<5> _pad4;
    bit<19> deq_qdepth;               // queue depth (cells) when it left
    @padding bit<6> _pad5;
    bit<2> deq_congest_stat;
    bit<8> app_pool_congest_stat;
    @padding bit<14> _pad6;
    bit<18> deq_timedelta;
    bit<16> egress_rid;
    @padding bit<7> _pad7;
    bit<1> egress_rid_first;
    @padding bit<3> _pad8;
    QueueId_t egress_qid;
    @padding bit<5> _pad9;
    bit<3> egress_cos;
    @padding bit<7> _pad10;
    bit<1> deflection_flag;
    bit<16> pkt_length;
}

@__intrinsic_metadata
struct egress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;
    bit<32> global_ver;
    bit<16> parser_err;
}

@__intrinsic_metadata
struct egress_intrinsic_metadata_for_deparser_t {
    bit<3> drop_ctl;
    MirrorType_t mirror_type;
    bit<1> coalesce_flush;
    bit<7> coalesce_length;
}

@__intrinsic_metadata
struct egress_intrinsic_metadata_for_output_port_t {
    bit<1> capture_tstamp_on_tx;
    bit<1> update_delay_on_tx;
    bit<1> force_tx_error;
}

/* ---- Checksum, parser externs, hashing ------------------------------------ */

// The 16-bit ones' complement engine of the parsers and deparsers.
extern Checksum {
    Checksum();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bool verify();
    void subtract_all_and_deposit<T>(out T residual);
    bit<16> get();
    bit<16> update<T>(in T data, @optional in bool zeros_as_ones);
}

extern ParserCounter {
    ParserCounter();
    void set<T>(in T value);
    void set<T>(in T field, in bit<8> max, in bit<8> rotate, in bit<3> mask,
                in bit<8> add);
    bool is_zero();
    bool is_negative();
    void increment(in bit<8> value);
    void decrement(in bit<8> value);
}

extern ParserPriority {
    ParserPriority();
    void set(in bit<3> prio);
}

extern CRCPolynomial<T> {
    CRCPolynomial(T coeff, bool reversed, bool msb, bool extended, T init, T xor);
}

extern Hash<W> {
    Hash(HashAlgorithm_t algo);
    Hash(HashAlgorithm_t algo, CRCPolynomial<_> poly);
    W get<D>(in D data);
}

// Uniform over 0 .. 2**W - 1; the range cannot be narrowed at run time.
extern Random<W> {
    Random();
    W get();
}

extern T max<T>(in T t1, in T t2);

extern T min<T>(in T t1, in T t2);

extern void invalidate<T>(in T field);

extern T port_metadata_unpack<T>(packet_in pkt);

extern bit<32> sizeInBits<H>(in H h);

extern bit<32> sizeInBytes<H>(in H h);

/* ---- Counters, meters, registers ------------------------------------------ */

extern Counter<W, I> {
    Counter(bit<32> size, CounterType_t type);
    void count(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectCounter<W> {
    DirectCounter(CounterType_t type);
    void count(@optional in bit<32> adjust_byte_count);
}

extern Meter<I> {
    Meter(bit<32> size, MeterType_t type);
    Meter(bit<32> size, MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in I index, in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectMeter {
    DirectMeter(MeterType_t type);
    DirectMeter(MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(@optional in bit<32> adjust_byte_count);
}

extern Lpf<T, I> {
    Lpf(bit<32> size);
    T execute(in T val, in I index);
}

extern Wred<T, I> {
    Wred(bit<32> size, bit<8> drop_value, bit<8> no_drop_value);
    bit<8> execute(in T val, in I index);
}

// A register array lives in one stage of one gress: ingress and egress cannot
// share it.  Programs touch it through RegisterAction.
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in I index);
    void write(in I index, in T value);
}

extern DirectRegister<T> {
    DirectRegister();
    DirectRegister(T initial_value);
    T read();
    void write(in T value);
}

extern RegisterParam<T> {
    RegisterParam(T initial_value);
    T read();
}

// One read-modify-write of a register cell per packet: the instance's
// initializer implements apply(), run by execute() on the cell at index.
extern RegisterAction<T, I, U> {
    RegisterAction(Register<_, _> reg);
    U execute(in I index);
    U execute_log();
    @synchronous(execute, execute_log)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern DirectRegisterAction<T, U> {
    DirectRegisterAction(DirectRegister<T> reg);
    U execute();
    @synchronous(execute)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern ActionProfile {
    ActionProfile(bit<32> size);
}

extern ActionSelector {
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   bit<32> max_group_size, bit<32> num_groups);
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   Register<bit<1>, _> reg, bit<32> max_group_size, bit<32> num_groups);
}

/* ---- Deparser externs: mirror, resubmit, digest ---------------------------- */

// Called in a deparser when mirror_type selects this instance: a copy of the
// packet goes to the session, which the control plane sets up (egress port,
// and a maximum length that truncates the copy).
extern Mirror {
    Mirror();
    Mirror(MirrorType_t mirror_type);
    void emit(in MirrorId_t session_id);
    void emit<T>(in MirrorId_t session_id, in T hdr);
}

extern Resubmit {
    Resubmit();
    Resubmit(ResubmitType_t resubmit_type);
    void emit();
    void emit<T>(in T hdr);
}

// Called in the ingress deparser when digest_type selects this instance.
extern Digest<T> {
    Digest();
    Digest(DigestType_t digest_type);
    void pack(in T data);
}

#endif  /* _MRC_BM_TOFINO_P4_ */
