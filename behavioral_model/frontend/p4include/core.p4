/*
 * core.p4 for the mrc-p4 behavioral model (bm).
 *
 * Written for this project.  It declares the P4_16 core library with the same
 * names, order, generic parameters, directions and types as p4c's
 * p4include/core.p4, so a program that checks against this file also compiles
 * with p4c.  Keep it that way: add nothing that p4c's file lacks.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

// Built-in error codes; programs may add their own with further error { } blocks.
error {
    NoError,               // the default value of parser_error
    PacketTooShort,        // extract/lookahead ran past the end of the packet
    NoMatch,               // no select case matched
    StackOutOfBounds,      // header stack index or .next beyond its size
    HeaderTooShort,        // a varbit extract asked for more bits than the field holds
    ParserTimeout,         // the target's parser time budget ran out
    ParserInvalidArgument  // e.g. a negative or misaligned advance/extract size
}

// The packet being parsed; only parsers receive one.
extern packet_in {
    // Copy the next sizeof(T) bits into hdr, mark it valid, move the cursor.
    void extract<T>(out T hdr);
    // Same, for a header whose single varbit field takes the given number of bits.
    void extract<T>(out T variableSizeHeader,
                    in bit<32> variableFieldSizeInBits);
    // Read the next sizeof(T) bits without moving the cursor.
    T lookahead<T>();
    // Move the cursor forward without copying.
    void advance(in bit<32> sizeInBits);
    // Whole packet length in bytes (not every target can tell).
    bit<32> length();
}

// The packet being built; only deparsers receive one.
extern packet_out {
    // Append hdr if it is a valid header; structs and stacks emit their members in order.
    void emit<T>(in T hdr);
}

// In a parser: when check is false, set parser_error to toSignal and go to reject.
extern void verify(in bool check, in error toSignal);

// The default action of tables that do not name one.
@noWarn("unused")
action NoAction() {}

// Key match kinds every target must know; architectures add more.
match_kind {
    exact,
    ternary,
    lpm
}

// Compile-time check; yields true so it can initialise a constant.
extern bool static_assert(bool check, string message);

// Same, with a default message.
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
