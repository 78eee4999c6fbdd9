// The PNA architecture on bm (behavioral_model/pipeline/pna.py): forwarding calls,
// class of service, Register, Counter, Random, Digest, the pre-control.
#include <core.p4>
#include <pna.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header cmd_t {
    bit<8> op;        // what the main control does, see below
    bit<8> arg;
    bit<8> res;       // written by the program
}

struct headers_t {
    eth_t eth;
    cmd_t cmd;
}

struct meta_t {
    bit<8> pre_mark;
}

struct note_t {
    bit<32> port;
    bit<8> arg;
}

Register<bit<8>, bit<32>>(4) cells;
Counter<bit<32>, bit<32>>(4, PNA_CounterType_t.PACKETS_AND_BYTES) seen;

parser Parse(packet_in pkt, out headers_t hdr, inout meta_t meta,
             in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.cmd);
        transition accept;
    }
}

control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply {
        meta.pre_mark = 0x5a;
    }
}

control Main(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    Random<bit<8>>(10, 13) draw;
    Digest<note_t>() notes;

    // send_to_port's port must be known at compile time (p4c): an action's parameter,
    // set by the entries, is; a header field is not.
    action to_port(PortIdUint_t port) {
        send_to_port((PortId_t)port);
    }
    table to_arg {
        key = { hdr.cmd.arg: exact; }
        actions = { to_port; }
        const entries = { 2 : to_port(2); 7 : to_port(7); 9 : to_port(9); }
    }

    apply {
        seen.count((bit<32>)hdr.cmd.arg);
        if (hdr.cmd.op == 1) {          // to port arg (to_arg below), class of service 5
            ostd.class_of_service = (ClassOfService_t)(ClassOfServiceUint_t)8w5;
        } else if (hdr.cmd.op == 2) {   // dropped
            drop_packet();
        } else if (hdr.cmd.op == 3) {   // dropped, then sent by to_arg: the last wins
            drop_packet();
        } else if (hdr.cmd.op == 4) {   // register: res = old cell 0, cell 0 += arg
            hdr.cmd.res = cells.read(0);
            cells.write(0, hdr.cmd.res + hdr.cmd.arg);
            send_to_port((PortId_t)1);
        } else if (hdr.cmd.op == 5) {   // a random draw in 10..13
            hdr.cmd.res = draw.read();
            send_to_port((PortId_t)1);
        } else if (hdr.cmd.op == 6) {   // a digest with the input port
            notes.pack({(PortIdUint_t)istd.input_port, hdr.cmd.arg});
            drop_packet();
        } else if (hdr.cmd.op == 7) {   // the pre-control's mark
            hdr.cmd.res = meta.pre_mark;
            send_to_port((PortId_t)1);
        }
        if (hdr.cmd.op == 1 || hdr.cmd.op == 3) {
            to_arg.apply();
        }
        // op 0: no forwarding call
    }
}

control Deparse(packet_out pkt, in headers_t hdr, in meta_t meta,
                in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.cmd);
    }
}

PNA_NIC(Parse(), Pre(), Main(), Deparse()) main;
