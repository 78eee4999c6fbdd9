"""Lark (LALR) grammar of STF files.

Written from the token and statement descriptions of p4c's ``tools/stf`` lexer and
parser plus the BMv2 pass-through commands of ``backends/bmv2/bmv2stf.py``. It is
kept inline (not a ``.lark`` file) so it ships with the package without extra
package-data configuration.

One command per line; ``#`` starts a comment; keywords are case-insensitive. Lark's
contextual lexer lets the same characters mean different things by position, as
p4c's lexer states do: after ``packet``/``expect`` and the port, hex digits are
packet data; in a key, ``0x**`` is a number with don't-care digits.
"""

from __future__ import annotations

__all__ = ["STF_GRAMMAR"]

STF_GRAMMAR = r"""
start: (_command? _NL)*

_command: add | remove_all | remove_entry | setdefault
        | packet | expect | no_packet | wait | check_counter
        | mirroring_add | mirroring_add_mc | mirroring_delete | mirroring_get
        | mc_mgrp_create | mc_mgrp_destroy
        | mc_node_create | mc_node_update | mc_node_associate
        | mc_node_dissociate | mc_node_destroy
        | counter_read | counter_write | counter_reset
        | register_read | register_write | register_reset
        | meter_get_rates | meter_set_rates | meter_array_set_rates

// ---- tables ----------------------------------------------------------------------
add: "add"i name priority key_match* action_call handle
remove_all: "remove"i "all"i
remove_entry: "remove"i name priority key_match+
setdefault: "setdefault"i name action_call

priority: NUMBER?
handle: ("=" ID)?

key_match: name ":" key_value
key_value: NUMBER                     -> number_value
         | NUMBER "&&&" NUMBER        -> masked_value
         | NUMBER "/" NUMBER          -> prefix_value
         | NUMBER ".." NUMBER         -> range_value

action_call: name "(" [action_arg ("," action_arg)*] ")"
action_arg: ID ":" NUMBER

name: name_part ("." name_part)*
name_part: (ID | QUOTED_ID) ("[" NUMBER "]")?

// ---- packets ---------------------------------------------------------------------
packet: "packet"i NUMBER PACKET_DATA*  // no data: an empty frame, as p4c's runner sends
expect: "expect"i NUMBER PACKET_DATA* DOLLAR?
no_packet: "no_packet"i
wait: "wait"i

// ---- counters --------------------------------------------------------------------
check_counter: "check_counter"i name "(" (ID | NUMBER) ")" [COUNT_KIND COMPARE NUMBER]

// ---- BMv2 CLI pass-through ---------------------------------------------------------
mirroring_add: "mirroring_add"i NUMBER NUMBER
mirroring_add_mc: "mirroring_add_mc"i NUMBER NUMBER
mirroring_delete: "mirroring_delete"i NUMBER
mirroring_get: "mirroring_get"i NUMBER
mc_mgrp_create: "mc_mgrp_create"i NUMBER
mc_mgrp_destroy: "mc_mgrp_destroy"i NUMBER
mc_node_create: "mc_node_create"i NUMBER NUMBER*
mc_node_update: "mc_node_update"i NUMBER NUMBER*
mc_node_associate: "mc_node_associate"i NUMBER NUMBER
mc_node_dissociate: "mc_node_dissociate"i NUMBER NUMBER
mc_node_destroy: "mc_node_destroy"i NUMBER
counter_read: "counter_read"i name NUMBER
counter_write: "counter_write"i name NUMBER NUMBER NUMBER
counter_reset: "counter_reset"i name
register_read: "register_read"i name NUMBER
register_write: "register_write"i name NUMBER NUMBER
register_reset: "register_reset"i name
meter_get_rates: "meter_get_rates"i name NUMBER
meter_set_rates: "meter_set_rates"i name NUMBER meter_rate+
meter_array_set_rates: "meter_array_set_rates"i name meter_rate+
meter_rate: NUMBER ":" NUMBER

// ---- terminals -------------------------------------------------------------------
// One NUMBER terminal (hex and binary may hold '*' digits; decimal may have a
// fraction, used by meter rates) so the lexer never splits "0x1F" as "0" "x1F".
NUMBER: /0[xX][0-9a-fA-F*]+|0[bB][01*]+|[0-9]+(?:\.[0-9]+)?/
ID: /[a-zA-Z_$][a-zA-Z_$0-9]*/
QUOTED_ID: /"[^"\n]+"/
PACKET_DATA: /[0-9a-fA-F*]+/
DOLLAR: "$"
COUNT_KIND: /packets|bytes/i
COMPARE: "==" | "!=" | "<=" | ">=" | "<" | ">"
_NL: /\n/

%ignore /[ \t\f\r]+/
%ignore /#[^\n]*/
"""
