/*
 * v1model.p4 for the mrc-p4 behavioral model (bm).
 *
 * Written for this project.  It declares the v1model architecture (the one
 * BMv2 simple_switch implements) with the same names, order, generic
 * parameters, directions and types as p4c's p4include/v1model.p4, so a program
 * that checks against this file also compiles with p4c-bm2-ss.  Keep it that
 * way: add nothing that p4c's file lacks.
 *
 * Versions: like p4c, the index types of counter/meter/register and the port
 * type depend on V1MODEL_VERSION.  Without a definition it is 20180101 (as in
 * p4c); a program that wants the 20200408 declarations (PortId_t,
 * counter<I>, meter<I>, register<T, I>) writes
 *
 *     #define V1MODEL_VERSION 20200408
 *
 * before including this file, which p4c honours in the same way.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include "core.p4"

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

// v1model adds three match kinds to core's exact/ternary/lpm.
match_kind {
    range,     // lo..hi, inclusive
    optional,  // exact value or "don't care"
    selector   // key fields hashed by an action_selector
}

// Lets a program (or a static_assert) see which declarations it got.
const bit<32> __v1model_version = V1MODEL_VERSION;

#if V1MODEL_VERSION >= 20200408
typedef bit<9>  PortId_t;       // simple_switch ports are 9 bits wide
#endif

// Per-packet metadata owned by the architecture.  @alias gives the name of the
// corresponding simple_switch intrinsic field where the two differ.
@metadata @name("standard_metadata")
struct standard_metadata_t {
#if V1MODEL_VERSION >= 20200408
    PortId_t    ingress_port;
    PortId_t    egress_spec;    // output port chosen in ingress
    PortId_t    egress_port;    // the actual output port, seen in egress
#else
    bit<9>      ingress_port;
    bit<9>      egress_spec;
    bit<9>      egress_port;
#endif
    bit<32>     instance_type;  // normal, clone, resubmit, recirculate, ...
    bit<32>     packet_length;  // bytes, as received

    // Traffic-manager queue state, valid in egress.
    @alias("queueing_metadata.enq_timestamp")
    bit<32> enq_timestamp;
    @alias("queueing_metadata.enq_qdepth")
    bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta")
    bit<32> deq_timedelta;
    @alias("queueing_metadata.deq_qdepth")
    bit<19> deq_qdepth;

    // Timestamps (microseconds in simple_switch).
    @alias("intrinsic_metadata.ingress_global_timestamp")
    bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")
    bit<48> egress_global_timestamp;
    // Non-zero in ingress: replicate to this multicast group.
    @alias("intrinsic_metadata.mcast_grp")
    bit<16> mcast_grp;
    // Replication id of a multicast copy, seen in egress.
    @alias("intrinsic_metadata.egress_rid")
    bit<16> egress_rid;
    // 1 when a verify_checksum call found a mismatch.
    bit<1>  checksum_error;
    // Outcome of the parser (error.NoError when it accepted).
    error parser_error;
    // Queue priority for the traffic manager.
    @alias("intrinsic_metadata.priority")
    bit<3> priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

// Array of counters the control plane can read; the data plane only counts.
extern counter
#if V1MODEL_VERSION >= 20200408
<I>
#endif
{
    counter(bit<32> size, CounterType type);
    // An index >= size counts nothing.
#if V1MODEL_VERSION >= 20200408
    void count(in I index);
#else
    void count(in bit<32> index);
#endif
}

// One counter per entry of the table that lists it in its "counters" property;
// it counts on every hit, whether or not the action calls count().
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

// Colour values written by meters.
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

// Array of two-rate three-colour meters.
extern meter
#if V1MODEL_VERSION >= 20200408
<I>
#endif
{
    meter(bit<32> size, MeterType type);
    // result gets a V1MODEL_METER_COLOR_* value; T must be bit<W>, W >= 2.
#if V1MODEL_VERSION >= 20200408
    void execute_meter<T>(in I index, out T result);
#else
    void execute_meter<T>(in bit<32> index, out T result);
#endif
}

// One meter per entry of the table that lists it in its "meters" property.
extern direct_meter<T> {
    direct_meter(MeterType type);
    // Colour of the entry that just matched; only valid inside that table's actions.
    void read(out T result);
}

// Array of size values of type T, readable and writable by the data plane.
#if V1MODEL_VERSION >= 20200408
extern register<T, I>
#else
extern register<T>
#endif
{
    register(bit<32> size);
    // Out-of-range reads leave result unspecified.
    @noSideEffects
#if V1MODEL_VERSION >= 20200408
    void read(out T result, in I index);
#else
    void read(out T result, in bit<32> index);
#endif
    // Out-of-range writes do nothing.
#if V1MODEL_VERSION >= 20200408
    void write(in I index, in T value);
#else
    void write(in bit<32> index, in T value);
#endif
}

// Table "implementation" whose members the control plane manages.
extern action_profile {
    action_profile(bit<32> size);
}

// result = a value in lo..hi inclusive (unspecified when lo > hi).
extern void random<T>(out T result, in T lo, in T hi);

// Send the value of data (as it is now) to the control plane.  The struct
// name of T names the digest in P4Info.  Ingress only.
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

// The old form without arguments.
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

// Set egress_spec to the drop port and mcast_grp to 0; later code may undo it.
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

// result = base + (H(data) % max), or base when max == 0.
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

// Action profile whose member is picked by a hash of the selector key fields.
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,  // copy at the end of ingress, sent to egress
    E2E   // copy at the end of egress, sent to egress again
}

// Kept because p4c still declares it.
@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

// VerifyChecksum only: when condition holds and checksum is not the checksum
// of data, standard_metadata.checksum_error becomes 1.
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

// ComputeChecksum only: when condition holds, checksum = algo(data).
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

// As verify_checksum, with the unparsed payload appended to data.
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

// As update_checksum, with the unparsed payload appended to data.
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

// Clone the packet to the given clone session, without user metadata.
extern void clone(in CloneType type, in bit<32> session);

@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);

// Ingress only: parse the original packet again; the user metadata fields
// annotated @field_list(index) keep their values from the end of ingress.
extern void resubmit_preserving_field_list(bit<8> index);

@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);

// Egress only: send the deparsed packet back to the parser, keeping the
// @field_list(index) user metadata from the end of egress.
extern void recirculate_preserving_field_list(bit<8> index);

@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

// Clone to a session, keeping the @field_list(index) user metadata.
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

// Send at most length bytes of the packet.
extern void truncate(in bit<32> length);

// On false, simple_switch logs the location and stops.
extern void assert(in bool check);

// Same as assert on a device; a hint that bounds the inputs for verification tools.
extern void assume(in bool check);

// Log a message; "{}" in msg is replaced by the next field of data.
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

// The pipeline blocks a V1Switch is built from.  H: a struct of headers,
// header stacks and header unions; M: a struct of user metadata.

parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

// May contain only verify_checksum(_with_payload) calls, blocks and returns.
control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

// May contain only update_checksum(_with_payload) calls, blocks and returns.
control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

// May contain only packet_out.emit calls.
@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep
                       );

#endif  /* _V1_MODEL_P4_ */
