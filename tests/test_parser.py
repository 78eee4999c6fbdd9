"""Tests of the P4_16 parser (behavioral_model.frontend.parser)."""

from __future__ import annotations

import logging
import random
import re
import time
from pathlib import Path

import pytest
from lark import Lark
from lark import logger as lark_logger

from behavioral_model.frontend import ast
from behavioral_model.frontend.errors import P4Error, P4SyntaxError, SourceLocation
from behavioral_model.frontend.parser import (
    _GRAMMAR,
    _TokenListLexer,
    parse_file,
    parse_source,
    parse_text,
)
from behavioral_model.frontend.preprocess import preprocess_text

P4_DIR = Path(__file__).parent / "p4"
SAMPLES = sorted(P4_DIR.glob("parse_*.p4"))


# ---------------------------------------------------------------------------------------
# helpers


def decl(prog: ast.Program, name: str) -> ast.Node:
    for d in prog.decls:
        if getattr(d, "name", None) == name:
            return d
    raise KeyError(name)


def local(container: ast.ControlDecl | ast.ParserDecl, name: str) -> ast.Declaration:
    for d in container.locals:
        if d.name == name:
            return d
    raise KeyError(name)


def state(p: ast.ParserDecl, name: str) -> ast.ParserState:
    return next(s for s in p.states if s.name == name)


def show(e: ast.Node | None) -> str:
    """Compact, fully parenthesised rendering of expressions (and type refs)."""
    match e:
        case None:
            return "None"
        case ast.IntLiteral(value=v, width=None):
            return str(v)
        case ast.IntLiteral(value=v, width=w, signed=s):
            return f"{w}{'s' if s else 'w'}{v}"
        case ast.BoolLiteral(value=v):
            return str(v).lower()
        case ast.StringLiteral(value=v):
            return repr(v)
        case ast.PathExpr(name=n, dot_prefix=d):
            return ("." if d else "") + n
        case ast.TypeNameExpr(type_ref=t):
            return show(t)
        case ast.MemberExpr(base=b, member=m):
            return f"{show(b)}.{m}"
        case ast.IndexExpr(base=b, index=i):
            return f"{show(b)}[{show(i)}]"
        case ast.SliceExpr(base=b, hi=h, lo=lo):
            return f"{show(b)}[{show(h)}:{show(lo)}]"
        case ast.UnaryExpr(op=op, operand=x):
            return f"({op}{show(x)})"
        case ast.BinaryExpr(op=op, left=left, right=right):
            return f"({show(left)} {op} {show(right)})"
        case ast.TernaryExpr(cond=c, then=t, else_=f):
            return f"({show(c)} ? {show(t)} : {show(f)})"
        case ast.CastExpr(type_ref=t, expr=x):
            return f"(({show(t)}) {show(x)})"
        case ast.MethodCallExpr(func=f, type_args=ta, args=args):
            targs = f"<{', '.join(show(t) for t in ta)}>" if ta else ""
            return f"{show(f)}{targs}({', '.join(show(a) for a in args)})"
        case ast.ConstructorCallExpr(type_ref=t, args=args):
            return f"{show(t)}({', '.join(show(a) for a in args)})"
        case ast.Argument(name=n, value=v):
            return (f"{n}=" if n else "") + show(v)
        case ast.ListExpr(elems=xs):
            return "{" + ", ".join(show(x) for x in xs) + "}"
        case ast.StructInitExpr(fields=fs):
            return "{" + ", ".join(f"{k}={show(v)}" for k, v in fs) + "}"
        case ast.DontCareExpr():
            return "_"
        case ast.DefaultExpr():
            return "default"
        case ast.MaskExpr(value=v, mask=m):
            return f"({show(v)} &&& {show(m)})"
        case ast.RangeExpr(low=lo, high=hi):
            return f"({show(lo)} .. {show(hi)})"
        case ast.BaseTypeRef(name=n):
            return n
        case ast.BitTypeRef(width=w, signed=s):
            return f"{'int' if s else 'bit'}<{show(w)}>"
        case ast.VarbitTypeRef(width=w):
            return f"varbit<{show(w)}>"
        case ast.NamedTypeRef(name=n, dot_prefix=d):
            return ("." if d else "") + n
        case ast.SpecializedTypeRef(base=b, args=args):
            return f"{show(b)}<{', '.join(show(a) for a in args)}>"
        case ast.StackTypeRef(elem=t, size=n):
            return f"{show(t)}[{show(n)}]"
        case ast.TupleTypeRef(elems=ts):
            return f"tuple<{', '.join(show(t) for t in ts)}>"
        case ast.DontCareTypeRef():
            return "_"
    raise AssertionError(f"show() does not know {e!r}")


PRELUDE = """
enum E { A, B }
header h_t { bit<8> f; }
struct S { bit<8> a; bit<8> b; }
const bit<8> g = 1;
extern bit<8> f<T>(in T x);
"""


def parse_expr(text: str) -> ast.Expression:
    """Parse `text` as the right-hand side of an assignment inside a control."""
    prog = parse_text(PRELUDE + f"control C() {{ apply {{ x = {text}; }} }}")
    ctl = prog.decls[-1]
    assert isinstance(ctl, ast.ControlDecl)
    stmt = ctl.body.stmts[0]
    assert isinstance(stmt, ast.AssignmentStatement)
    return stmt.rhs


def control_body(text: str, prelude: str = PRELUDE) -> list[ast.Statement | ast.Declaration]:
    prog = parse_text(prelude + f"control C() {{ apply {{ {text} }} }}")
    ctl = prog.decls[-1]
    assert isinstance(ctl, ast.ControlDecl)
    return ctl.body.stmts


def syntax_error(text: str, filename: str = "err.p4") -> P4SyntaxError:
    with pytest.raises(P4SyntaxError) as info:
        parse_text(text, filename)
    return info.value


# ---------------------------------------------------------------------------------------
# include files and sample programs


def test_v1model_and_core_parse_completely(tmp_path: Path) -> None:
    main = tmp_path / "main.p4"
    main.write_text("#include <core.p4>\n#include <v1model.p4>\n")
    prog = parse_file(main)
    names = {getattr(d, "name", None) for d in prog.decls}
    for expected in ("packet_in", "packet_out", "verify", "NoAction", "standard_metadata_t",
                     "counter", "direct_counter", "meter", "register", "hash", "Parser",
                     "Ingress", "Deparser", "V1Switch", "mark_to_drop", "CloneType"):
        assert expected in names, expected
    packet_in = decl(prog, "packet_in")
    assert isinstance(packet_in, ast.ExternDecl)
    extracts = [m for m in packet_in.methods if m.name == "extract"]
    assert len(extracts) == 2 and all(m.type_params == ["T"] for m in extracts)
    lookahead = next(m for m in packet_in.methods if m.name == "lookahead")
    assert show(lookahead.return_type) == "T"
    register = decl(prog, "register")
    assert isinstance(register, ast.ExternDecl) and register.type_params == ["T"]
    ctor = register.methods[0]
    assert ctor.name == "register" and ctor.return_type is None
    v1switch = decl(prog, "V1Switch")
    assert isinstance(v1switch, ast.PackageTypeDecl)
    assert v1switch.type_params == ["H", "M"]
    assert [show(p.type_ref) for p in v1switch.params][:2] == ["Parser<H, M>",
                                                               "VerifyChecksum<H, M>"]
    parser_t = decl(prog, "Parser")
    assert isinstance(parser_t, ast.ParserTypeDecl)
    assert [(p.direction, p.name) for p in parser_t.params] == [
        ("", "b"), ("out", "parsedHdr"), ("inout", "meta"), ("inout", "standard_metadata")]
    errors = [d for d in prog.decls if isinstance(d, ast.ErrorDecl)]
    assert "NoError" in errors[0].members
    kinds = [m for d in prog.decls if isinstance(d, ast.MatchKindDecl) for m in d.members]
    assert {"exact", "ternary", "lpm", "range", "optional", "selector"} <= set(kinds)
    assert packet_in.loc is not None and packet_in.loc.file.endswith("core.p4")


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_programs_parse(path: Path) -> None:
    prog = parse_file(path)
    main = prog.decls[-1]
    assert isinstance(main, ast.InstantiationDecl) and main.name == "main"
    assert all(isinstance(a.value, ast.ConstructorCallExpr) for a in main.args)


def test_at_least_four_samples() -> None:
    assert len(SAMPLES) >= 4


# ---------------------------------------------------------------------------------------
# IPv6 router


@pytest.fixture(scope="module")
def router() -> ast.Program:
    return parse_file(P4_DIR / "parse_ipv6_router.p4")


def test_router_types_and_annotations(router: ast.Program) -> None:
    assert isinstance(decl(router, "ipv6_addr_t"), ast.TypedefDecl)
    pin = decl(router, "packet_in_t")
    assert isinstance(pin, ast.HeaderDecl)
    ann = pin.annotation("controller_header")
    assert ann is not None and show(ann.args[0]) == "'packet_in'"
    assert pin.fields[0].annotation("id") is not None
    assert show(pin.fields[0].annotation("id").args[0]) == "1"
    assert show(pin.fields[0].type_ref) == "port_t"
    meta = decl(router, "metadata_t")
    assert show(meta.fields[0].annotation("field_list").args[0]) == "1"
    assert show(meta.fields[2].type_ref) == "bool"
    cpu = decl(router, "CPU_PORT")
    assert isinstance(cpu, ast.ConstDecl) and show(cpu.value) == "9w255"
    assert pin.loc == SourceLocation(str(P4_DIR / "parse_ipv6_router.p4"), 15, 1)


def test_router_ingress(router: ast.Program) -> None:
    ing = decl(router, "RouterIngress")
    assert isinstance(ing, ast.ControlDecl)
    dc = local(ing, "routing_counter")
    assert isinstance(dc, ast.InstantiationDecl)
    assert show(dc.type_ref) == "direct_counter"
    assert show(dc.args[0]) == "CounterType.packets_and_bytes"
    assert dc.display_name() == "routing_counter"
    drop = local(ing, "drop")
    assert isinstance(drop, ast.ActionDecl) and drop.display_name() == ".drop"
    send = local(ing, "send_to_cpu")
    assert show(send.annotation("brief").args[0]) == "'Send the packet to the controller.'"
    set_dmac = local(ing, "set_dmac")
    assert [(p.direction, show(p.type_ref), p.name) for p in set_dmac.params] == [
        ("", "mac_addr_t", "dmac"), ("", "port_t", "port")]
    decrement = local(ing, "decrement")
    assert [(p.direction, show(p.type_ref), p.name) for p in decrement.params] == [
        ("inout", "bit<8>", "hop_limit"), ("in", "bit<8>", "amount")]
    assert show(set_dmac.body.stmts[-1].call) == "decrement(hdr.ipv6.hop_limit, 1)"

    routing = local(ing, "routing_v6")
    assert isinstance(routing, ast.TableDecl)
    assert show(routing.annotation("id").args[0]) == "33554433"
    (key,) = routing.keys
    assert show(key.expr) == "hdr.ipv6.dst_addr" and key.match_kind == "lpm"
    assert show(key.annotation("name").args[0]) == "'dst_addr'"
    assert [a.name for a in routing.actions] == ["set_nexthop", "send_to_cpu", "drop"]
    assert routing.actions[2].annotation("defaultonly") is not None
    assert routing.default_action.name == "drop" and routing.default_action_const
    assert show(routing.property("counters").value) == "routing_counter"
    assert show(routing.property("size").value) == "4096"
    assert routing.property("default_action") is None

    stmts = ing.body.stmts
    assert show(stmts[0].call) == "port_counter.count(((bit<32>) standard_metadata.ingress_port))"
    first_if = stmts[1]
    assert isinstance(first_if, ast.IfStatement) and first_if.else_ is None
    assert isinstance(first_if.then.stmts[-1], ast.ExitStatement)
    assert isinstance(stmts[2].then.stmts[0], ast.ReturnStatement)
    assert stmts[2].then.stmts[0].value is None
    sw = stmts[4]
    assert isinstance(sw, ast.SwitchStatement)
    assert show(sw.expr) == "routing_v6.apply().action_run"
    assert [show(c.labels[0]) for c in sw.cases] == ["set_nexthop", "send_to_cpu", "default"]
    assert isinstance(sw.cases[2].labels[0], ast.DefaultExpr)
    assert all(c.body is not None for c in sw.cases)
    assert sw.loc.line == 161 and sw.loc.col == 9


def test_router_parser_and_main(router: ast.Program) -> None:
    prs = decl(router, "RouterParser")
    assert isinstance(prs, ast.ParserDecl)
    assert [s.name for s in prs.states] == ["start", "parse_packet_out", "parse_ethernet",
                                            "parse_ipv6"]
    tr = state(prs, "parse_packet_out").transition
    assert isinstance(tr, ast.DirectTransition) and tr.state == "parse_ethernet"
    verify = state(prs, "parse_ipv6").body[1]
    assert show(verify.call) == "verify((hdr.ipv6.version == 4w6), error.ParserInvalidArgument)"
    assert isinstance(verify.call.args[1].value.base.type_ref, ast.BaseTypeRef)
    main = router.decls[-1]
    assert isinstance(main, ast.InstantiationDecl)
    assert show(main.type_ref) == "V1Switch" and len(main.args) == 6


# ---------------------------------------------------------------------------------------
# parser-heavy program


@pytest.fixture(scope="module")
def heavy() -> ast.Program:
    return parse_file(P4_DIR / "parse_parser_heavy.p4")


def test_heavy_types(heavy: ast.Program) -> None:
    hdrs = decl(heavy, "headers_t")
    types = {f.name: show(f.type_ref) for f in hdrs.fields}
    assert types["mpls"] == "mpls_t[4]"  # MAX_LABELS expanded by the preprocessor
    assert isinstance(hdrs.fields[1].type_ref, ast.StackTypeRef)
    assert types["ip"] == "ip_t"
    assert isinstance(decl(heavy, "ip_t"), ast.HeaderUnionDecl)
    assert show(decl(heavy, "ipv4_options_t").fields[0].type_ref) == "varbit<320>"
    errs = [d for d in heavy.decls if isinstance(d, ast.ErrorDecl)]
    assert errs[-1].members == ["BadIpv4Version", "TooManyLabels"]


def test_heavy_parser_locals(heavy: ast.Program) -> None:
    prs = decl(heavy, "HeavyParser")
    assert isinstance(prs, ast.ParserDecl)
    assert [type(d).__name__ for d in prs.locals] == [
        "ConstDecl", "ValueSetDecl", "ValueSetDecl", "InstantiationDecl", "VariableDecl"]
    vs = local(prs, "tunnel_types")
    assert show(vs.elem_type) == "bit<16>" and show(vs.size) == "4"
    assert show(local(prs, "port_pairs").elem_type) == "tuple<bit<8>, bit<16>>"
    assert show(local(prs, "udp_parser").type_ref) == "UdpParser"


def test_heavy_select_keysets(heavy: ast.Program) -> None:
    prs = decl(heavy, "HeavyParser")
    eth = state(prs, "parse_ethernet").transition
    assert isinstance(eth, ast.SelectTransition)
    assert [show(c.keyset) for c in eth.cases] == [
        "TYPE_MPLS", "(2048 &&& 65535)", "34525", "tunnel_types", "(36864 .. 37119)", "_"]
    assert isinstance(eth.cases[1].keyset, ast.MaskExpr)
    assert isinstance(eth.cases[4].keyset, ast.RangeExpr)
    assert isinstance(eth.cases[5].keyset, ast.DontCareExpr)
    assert [c.state for c in eth.cases] == ["parse_mpls", "parse_ip", "parse_ip", "parse_mpls",
                                            "accept", "reject"]
    mpls = state(prs, "parse_mpls")
    assert show(mpls.body[0].call) == "pkt.extract(hdr.mpls.next)"
    sel = mpls.transition
    assert [show(k) for k in sel.keys] == ["hdr.mpls.last.bos", "hdr.mpls.lastIndex"]
    assert [show(c.keyset) for c in sel.cases] == ["{0, _}", "{1, (0 .. 3)}", "{_, _}"]
    assert isinstance(sel.cases[0].keyset, ast.ListExpr)
    ipv4 = state(prs, "parse_ipv4").transition
    assert [show(c.keyset) for c in ipv4.cases] == ["{17, 0}", "{(8w6 &&& 8w255), _}",
                                                    "default"]
    assert isinstance(ipv4.cases[2].keyset, ast.DefaultExpr)
    ip = state(prs, "parse_ip")
    assert show(ip.body[0].rhs) == "pkt.lookahead<bit<4>>()"
    assert show(ip.body[1].rhs) == "pkt.lookahead<ethernet_t>().ether_type[7:0]"
    assert [show(c.keyset) for c in ip.transition.cases] == ["4w4", "6", "default"]


def test_heavy_statements_in_states(heavy: ast.Program) -> None:
    prs = decl(heavy, "HeavyParser")
    body = state(prs, "parse_ipv4").body
    var = body[2]
    assert isinstance(var, ast.VariableDecl) and var.name == "opt_bits"
    assert show(var.init) == "((((bit<32>) hdr.ip.v4.ihl) - 5) * 32)"
    cond = body[3]
    assert isinstance(cond, ast.IfStatement)
    assert show(cond.then.stmts[0].call) == "pkt.extract(hdr.ipv4_options, opt_bits)"
    sub = state(prs, "parse_udp").body[0]
    assert show(sub.call) == "udp_parser.apply(pkt, hdr)"


def test_heavy_stack_operations(heavy: ast.Program) -> None:
    ing = decl(heavy, "StackIngress")
    cond = ing.body.stmts[0]
    assert show(cond.cond) == "(hdr.mpls[0].isValid() && (hdr.mpls.size == 4))"
    assert show(cond.then.stmts[0].call) == "hdr.mpls.pop_front(1)"
    assert [show(s.call) if isinstance(s, ast.MethodCallStatement) else show(s.lhs)
            for s in cond.else_.stmts] == ["hdr.mpls.push_front(1)", "hdr.mpls[0].setValid()",
                                           "hdr.mpls[0].label"]


# ---------------------------------------------------------------------------------------
# tables


@pytest.fixture(scope="module")
def tables() -> ast.Program:
    return parse_file(P4_DIR / "parse_tables.p4")


def test_table_const_entries(tables: ast.Program) -> None:
    acl = local(decl(tables, "TIngress"), "acl")
    assert isinstance(acl, ast.TableDecl)
    assert [(show(k.expr), k.match_kind) for k in acl.keys] == [
        ("hdr.h.a", "ternary"), ("hdr.h.b", "range"), ("hdr.h.c", "exact")]
    assert show(acl.keys[0].annotation("name").args[0]) == "'h.a'"
    assert show(acl.keys[2].annotation("name").args[0]) == "'c_field'"
    assert [a.name for a in acl.actions] == ["set_port", "deny", "NoAction"]
    assert acl.actions[1].annotation("tableonly") is not None
    assert acl.actions[2].annotation("defaultonly") is not None
    assert acl.entries_const
    rows = [(show(e.keyset), e.action.name, [show(a) for a in e.action.args], show(e.priority))
            for e in acl.entries]
    assert rows == [
        ("{(1 &&& 15), (1 .. 10), 32w0}", "set_port", ["1", "7"], "None"),
        ("{_, _, 32w1}", "deny", [], "5"),
        ("{default, (100 .. 200), _}", "set_port", ["9w2", "8w0"], "3"),
        ("{8w32, _, 5}", "NoAction", [], "None"),
    ]
    assert acl.entries[3].annotation("noWarn") is not None
    assert acl.default_action.name == "NoAction" and acl.default_action_const
    assert [(p.name, show(p.value)) for p in acl.properties] == [
        ("counters", "acl_counter"), ("largest_priority_wins", "false"),
        ("priority_delta", "10"), ("size", "64")]


def test_table_mutable_entries_and_properties(tables: ast.Program) -> None:
    ing = decl(tables, "TIngress")
    tbl = local(ing, "exact_tbl")
    assert not tbl.entries_const
    assert [(show(e.keyset), e.is_const, show(e.priority)) for e in tbl.entries] == [
        ("1", True, "None"), ("2", False, "None"), ("3", False, "7")]
    assert tbl.default_action.name == "set_x"
    assert [show(a) for a in tbl.default_action.args] == ["0"]
    assert not tbl.default_action_const
    impl = tbl.property("implementation")
    assert isinstance(impl.value, ast.ConstructorCallExpr)
    assert show(impl.value) == "action_profile(32w128)"
    no_key = local(ing, "no_key")
    assert no_key.keys == [] and [show(a) for a in no_key.default_action.args] == ["8w1"]
    deny = local(ing, "deny")
    assert show(deny.annotation("noWarn").args[0]) == "'unused'"
    stmts = ing.body.stmts
    assert show(stmts[0].cond) == "(!exact_tbl.apply().hit)"
    assert show(stmts[2].cond) == "acl.apply().miss"


# ---------------------------------------------------------------------------------------
# generics, externs, functions


@pytest.fixture(scope="module")
def generics() -> ast.Program:
    return parse_file(P4_DIR / "parse_generics.p4")


def test_generic_declarations(generics: ast.Program) -> None:
    pair = decl(generics, "Pair")
    assert isinstance(pair, ast.StructDecl) and pair.type_params == ["T"]
    assert [show(f.type_ref) for f in pair.fields] == ["T", "T"]
    assert show(pair.annotation("deprecated").args[0]) == "'use Pair2'"
    wide = decl(generics, "Wide")
    assert isinstance(wide, ast.HeaderDecl) and wide.type_params == ["W"]
    assert show(decl(generics, "pair_t").type_ref) == "tuple<bit<8>, bool>"
    newtype = decl(generics, "PortId_t")
    assert isinstance(newtype, ast.NewTypeDecl) and show(newtype.type_ref) == "bit<16>"
    prs = decl(generics, "Prs")
    assert isinstance(prs, ast.ParserTypeDecl) and prs.type_params == ["H"]
    pipe = decl(generics, "Pipe")
    assert isinstance(pipe, ast.ControlTypeDecl) and pipe.type_params == ["H"]
    top = decl(generics, "Top")
    assert isinstance(top, ast.PackageTypeDecl)
    assert [show(p.type_ref) for p in top.params] == ["Prs<H>", "Pipe<H>"]
    meta = decl(generics, "meta_t")
    assert {f.name: show(f.type_ref) for f in meta.fields}["p"] == "Pair<bit<8>>"
    assert {f.name: show(f.type_ref) for f in meta.fields}["s"] == "int<8>"


def test_enums(generics: ast.Program) -> None:
    color = decl(generics, "Color")
    assert isinstance(color, ast.EnumDecl) and color.underlying is None
    assert [m.name for m in color.members] == ["Red", "Green", "Blue"]
    op = decl(generics, "Opcode")
    assert show(op.underlying) == "bit<8>"
    assert [(m.name, show(m.value)) for m in op.members] == [
        ("Read", "1"), ("Write", "2"), ("Nack", "8w16")]


def test_externs(generics: ast.Program) -> None:
    ck = decl(generics, "Checksum")
    assert isinstance(ck, ast.ExternDecl) and ck.type_params == ["T"]
    sigs = [(m.name, show(m.return_type) if m.return_type else None, m.type_params,
             len(m.params), m.is_abstract) for m in ck.methods]
    assert sigs == [
        ("Checksum", None, [], 0, False),
        ("Checksum", None, [], 1, False),
        ("clear", "void", [], 0, False),
        ("add", "void", ["D"], 1, False),
        ("add", "void", ["D"], 2, False),
        ("get", "T", [], 0, False),
        ("finish", "T", [], 1, True),
    ]
    assert ck.methods[-1].annotation("pure") is not None
    virtual = decl(generics, "Virtual")
    assert virtual.methods[1].is_abstract
    pick = decl(generics, "pick")
    assert isinstance(pick, ast.ExternFunctionDecl)
    assert pick.type_params == ["T"] and show(pick.return_type) == "T"
    hash_it = decl(generics, "hash_it")
    assert hash_it.annotation("pure") is not None and hash_it.type_params == ["D"]
    log_it = decl(generics, "log_it")
    assert log_it.params[1].annotation("optional") is not None
    assert (log_it.params[0].direction, show(log_it.params[0].type_ref)) == ("", "string")


def test_functions(generics: ast.Program) -> None:
    choose = decl(generics, "choose")
    assert isinstance(choose, ast.FunctionDecl)
    assert choose.type_params == ["T"] and show(choose.return_type) == "T"
    assert [show(p.type_ref) for p in choose.params] == ["bool", "T", "T"]
    assert show(choose.body.stmts[0].value) == "(first ? a : b)"
    clamp = decl(generics, "clamp")
    cond = clamp.body.stmts[0]
    assert isinstance(cond.else_, ast.IfStatement)  # else if
    assert show(cond.else_.cond) == "(x > hi)"
    nothing = decl(generics, "nothing")
    assert show(nothing.return_type) == "void"
    assert isinstance(nothing.body.stmts[0], ast.ReturnStatement)


def test_generics_control(generics: ast.Program) -> None:
    pipe = decl(generics, "MyPipe")
    assert isinstance(pipe, ast.ControlDecl)
    assert pipe.annotation("hidden") is not None and pipe.annotation("hidden").args == []
    assert [(p.name, show(p.type_ref)) for p in pipe.constructor_params] == [
        ("init_val", "bit<8>")]
    ck2 = local(pipe, "ck2")
    assert show(ck2.type_ref) == "Checksum<bit<16>>" and show(ck2.args[0]) == "16w65535"
    assert show(local(pipe, "K").value) == "(8w5 + 3)"
    assert show(local(pipe, "scratch").init) == "0"
    compute = local(pipe, "compute")
    ann = compute.annotation("a")
    assert ann.args == [] and ann.body == 'k = 1, v = "x"'
    rhs = [show(s.rhs) for s in pipe.body.stmts if isinstance(s, ast.AssignmentStatement)]
    assert rhs[:4] == ["(m.b + (m.a * 2))", "(m.a << (2 + 1))", "(m.w >> 2)",
                       "(m.w[31:16] ++ m.w[15:0])"]
    assert "((Pair<bit<8>>) {first=3, second=4})" in rhs
    assert "Opcode.Write" in rhs and "((bit<32>) hdr_t.minSizeInBits())" in rhs
    assert "choose<bit<8>>((m.a > m.b), m.a, m.b)" in rhs
    assert "choose(first=true, a=m.a, b=m.b)" in rhs
    assert ".GLOBAL_K" in rhs
    calls = [show(s.call) for s in pipe.body.stmts if isinstance(s, ast.MethodCallStatement)]
    assert "ck.add<bit<8>>(m.a)" in calls
    assert "fetch(_)" in calls
    assert "log_it<bit<8>>('value {} \"quoted\"\\n', m.a)" in calls
    assert "compute(dst=m.b, v=init_val)" in calls
    block = next(s for s in pipe.body.stmts if isinstance(s, ast.BlockStatement))
    assert block.annotation("atomic") is not None
    switches = [s for s in pipe.body.stmts if isinstance(s, ast.SwitchStatement)]
    cases = [(show(c.labels[0]), c.body is None) for c in switches[0].cases]
    assert cases == [("1", True), ("2", False), ("K", False), ("default", False)]
    cases = [(show(c.labels[0]), c.body is None) for c in switches[1].cases]
    assert cases == [("Color.Red", False), ("Color.Green", True), ("default", False)]
    last = pipe.body.stmts[-1]
    assert isinstance(last, ast.IfStatement) and isinstance(last.else_, ast.EmptyStatement)


# ---------------------------------------------------------------------------------------
# expressions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a + b * c", "(a + (b * c))"),
        ("a * b + c", "((a * b) + c)"),
        ("a - b - c", "((a - b) - c)"),
        ("a << 2 + 1", "(a << (2 + 1))"),
        ("a >> b >> 1", "((a >> b) >> 1)"),
        ("a & b == c", "((a & b) == c)"),
        ("a | b ^ c & d", "(a | (b ^ (c & d)))"),
        ("a < b == c > d", "((a < b) == (c > d))"),
        ("a <= b && c >= d || e != g", "(((a <= b) && (c >= d)) || (e != g))"),
        ("a ++ b + c", "((a ++ b) + c)"),
        ("a |+| b |-| c * d", "((a |+| b) |-| (c * d))"),
        ("-a * b", "((-a) * b)"),
        ("!a && ~b == +c", "((!a) && ((~b) == (+c)))"),
        ("- -a", "(-(-a))"),
        ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
        ("a || b ? c + 1 : d", "((a || b) ? (c + 1) : d)"),
        ("(bit<8>) a + b", "(((bit<8>) a) + b)"),
        ("(bit<8>) (a + b)", "((bit<8>) (a + b))"),
        ("(int<16>) -a", "((int<16>) (-a))"),
        ("(h_t) {f = 1}", "((h_t) {f=1})"),
        ("(S) {a = 1, b = 2}", "((S) {a=1, b=2})"),
        ("a[7:4]", "a[7:4]"),
        ("a.b[3].c[15:0]", "a.b[3].c[15:0]"),
        ("a[i + 1]", "a[(i + 1)]"),
        ("{a, b + 1, {c}}", "{a, (b + 1), {c}}"),
        ("{}", "{}"),
        ("{a = 1, b = g}", "{a=1, b=g}"),
        ("E.A", "E.A"),
        ("error.NoError", "error.NoError"),
        ("h_t.minSizeInBits()", "h_t.minSizeInBits()"),
        ("h_t.minSizeInBytes() + 1", "(h_t.minSizeInBytes() + 1)"),
        (".g", ".g"),
        ("f<bit<8>>(a)", "f<bit<8>>(a)"),
        ("f<h_t>(a) >> 2", "(f<h_t>(a) >> 2)"),
        ("f(x = 1)", "f(x=1)"),
        ("f(_)", "f(_)"),
        ("t.apply().hit", "t.apply().hit"),
        ("s.stack.next.f", "s.stack.next.f"),
        ("s.stack.last.f + s.stack.lastIndex", "(s.stack.last.f + s.stack.lastIndex)"),
        ("a < b > (c)", "((a < b) > c)"),
        ("true && false", "(true && false)"),
        ('"str"', "'str'"),
        ("-5", "(-5)"),
        ("-8s5", "(-8s5)"),
    ],
)
def test_expression_shapes(text: str, expected: str) -> None:
    assert show(parse_expr(text)) == expected


@pytest.mark.parametrize(
    ("text", "value", "width", "signed"),
    [
        ("5", 5, None, False),
        ("0x1F", 31, None, False),
        ("0X1f", 31, None, False),
        ("0b101", 5, None, False),
        ("0B1_0", 2, None, False),
        ("0o17", 15, None, False),
        ("0O17", 15, None, False),
        ("0d19", 19, None, False),
        ("0D19", 19, None, False),
        ("8w5", 5, 8, False),
        ("8s5", 5, 8, True),
        ("16w0xFFFF", 0xFFFF, 16, False),
        ("4s0b0111", 7, 4, True),
        ("32w0o777", 0o777, 32, False),
        ("1_000_000", 1000000, None, False),
        ("0xdead_BEEF", 0xDEADBEEF, None, False),
        ("007", 7, None, False),
    ],
)
def test_integer_literals(text: str, value: int, width: int | None, signed: bool) -> None:
    lit = parse_expr(text)
    assert isinstance(lit, ast.IntLiteral)
    assert (lit.value, lit.width, lit.signed) == (value, width, signed)


def test_literals_and_strings() -> None:
    assert parse_expr("true").value is True
    assert parse_expr("false").value is False
    s = parse_expr(r'"a\"b\\c\nd"')
    assert isinstance(s, ast.StringLiteral) and s.value == 'a"b\\c\nd'
    neg = parse_expr("-5")
    assert isinstance(neg, ast.UnaryExpr) and neg.op == "-"
    assert isinstance(neg.operand, ast.IntLiteral) and neg.operand.value == 5


def test_nodes_have_locations() -> None:
    text = "control C() {\n  apply {\n    x = a +\n        b * 3;\n  }\n}\n"
    prog = parse_text(text, "loc.p4")
    stmt = prog.decls[0].body.stmts[0]
    assert stmt.loc == SourceLocation("loc.p4", 3, 5)
    add = stmt.rhs
    assert add.loc == SourceLocation("loc.p4", 3, 9)
    assert add.right.loc == SourceLocation("loc.p4", 4, 9)
    assert add.right.right.loc == SourceLocation("loc.p4", 4, 13)
    assert prog.decls[0].loc == SourceLocation("loc.p4", 1, 1)
    assert prog.decls[0].body.loc == SourceLocation("loc.p4", 2, 9)

    def walk(node: object) -> None:
        if isinstance(node, ast.Node):
            assert node.loc is not None, node
            for value in vars(node).values():
                walk(value)
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item)

    for path in SAMPLES:
        for d in parse_file(path).decls:
            walk(d)


def test_custom_locate() -> None:
    prog = parse_text("const bit<8> X = 1;", locate=lambda line, col: SourceLocation(
        "mapped.p4", line + 100, col))
    assert prog.decls[0].loc == SourceLocation("mapped.p4", 101, 1)


def test_parse_source_maps_included_lines(tmp_path: Path) -> None:
    (tmp_path / "defs.p4").write_text("// defs\n\nheader h_t {\n    bit<8> f;\n}\n")
    main = tmp_path / "main.p4"
    main.write_text('#include "defs.p4"\n\nstruct s_t {\n    h_t h;\n}\n')
    prog = parse_file(main)
    h, s = prog.decls
    assert h.loc.file.endswith("defs.p4") and h.loc.line == 3
    assert s.loc.file.endswith("main.p4") and s.loc.line == 3
    src = preprocess_text("const bit<8> X = 1;\n", "virtual.p4")
    assert parse_source(src).decls[0].loc == SourceLocation("virtual.p4", 1, 1)


def test_widths_defaults_and_constructor_params() -> None:
    prog = parse_text("""
const bit<8> W = 4;
@pure bit<(W * 2)> f(in bit<8> x, in varbit<(W)> v, in int<16> s = -1) { return x; }
parser P(bit<8> b)(bit<8> k, bool on = true) { state start { } }
control Q(inout bit<1> b) { apply { b = (bit)1; } }
""")
    f = prog.decls[1]
    assert isinstance(f, ast.FunctionDecl) and f.annotation("pure") is not None
    assert show(f.return_type) == "bit<(W * 2)>"
    assert [(p.name, show(p.type_ref), show(p.default)) for p in f.params] == [
        ("x", "bit<8>", "None"), ("v", "varbit<W>", "None"), ("s", "int<16>", "(-1)")]
    p = prog.decls[2]
    assert [(c.name, show(c.default)) for c in p.constructor_params] == [
        ("k", "None"), ("on", "true")]
    assert p.states[0].transition is None and p.states[0].body == []
    assert show(prog.decls[3].body.stmts[0].rhs) == "((bit<1>) 1)"


# ---------------------------------------------------------------------------------------
# type names and angle brackets


def test_nested_generics_and_shift() -> None:
    prelude = PRELUDE + "extern R<T> { R(bit<32> n); T read(in bit<32> i); }\n" \
                        "struct P<X> { X v; }\n"
    prog = parse_text(prelude + """
control C(inout bit<32> a) {
    R<bit<32>>(16) r;
    R<P<P<bit<8>>>>(1) deep;
    apply {
        a = r.read(0) >> 2;
        a = a>>1;
        a = a > 1 ? a : 0;
        bool lt = a < 3;
    }
}""")
    ctl = prog.decls[-1]
    assert show(ctl.locals[0].type_ref) == "R<bit<32>>"
    assert show(ctl.locals[1].type_ref) == "R<P<P<bit<8>>>>"
    assert [show(s.rhs if isinstance(s, ast.AssignmentStatement) else s.init)
            for s in ctl.body.stmts] == [
        "(r.read(0) >> 2)", "(a >> 1)", "((a > 1) ? a : 0)", "(a < 3)"]


def test_type_variables_are_scoped_to_their_declaration() -> None:
    text = "extern E<T> { E(); T get(); }\ncontrol C() { apply { T x; } }\n"
    err = syntax_error(text)
    assert err.location.line == 2
    assert "unexpected identifier 'x'" in err.message
    # ...but inside the generic declaration T is a type:
    parse_text("extern E<T> { E(); T get(); void put(in T v); }")
    parse_text("T id<T>(in T x) { T y = x; return y; }")


def test_value_shadowing_a_type_name() -> None:
    prog = parse_text("""
extern meter { meter(bit<32> n); void execute(in bit<32> i); }
control C() {
    meter(32) meter;
    apply { meter.execute(1); }
}
control D() { meter(8) m; apply { m.execute(2); } }
""")
    c = prog.decls[1]
    assert show(c.body.stmts[0].call) == "meter.execute(1)"
    assert show(prog.decls[2].locals[0].type_ref) == "meter"


def test_member_names_are_not_type_names() -> None:
    stmts = control_body("x = s.h_t + s.E; f<h_t>(s.h_t);")
    assert show(stmts[0].rhs) == "(s.h_t + s.E)"
    assert show(stmts[1].call) == "f<h_t>(s.h_t)"


def test_keyword_like_names() -> None:
    prog = parse_text("""
enum CounterType { packets }
extern counter { counter(bit<32> size, CounterType type); }
struct s { bit<8> key; bit<8> state; bit<8> type; bit<8> priority; }
control C(inout s m) { apply { m.key = m.state + m.type + m.priority; } }
""")
    assert prog.decls[1].methods[0].params[1].name == "type"
    assert show(prog.decls[3].body.stmts[0].rhs) == "((m.state + m.type) + m.priority)"


def test_direct_application_and_dot_prefix_types() -> None:
    prog = parse_text("""
header h_t { bit<8> f; }
control Sub(inout h_t h) { apply { } }
control C(inout h_t h) {
    .h_t copy;
    apply { Sub.apply(h); }
}
""")
    ctl = prog.decls[-1]
    assert show(ctl.locals[0].type_ref) == ".h_t"
    call = ctl.body.stmts[0].call
    assert show(call) == "Sub.apply(h)"
    assert isinstance(call.func.base, ast.TypeNameExpr)


# ---------------------------------------------------------------------------------------
# annotations


def test_annotation_forms() -> None:
    prog = parse_text("""
@name("x") @id(3) @hidden @brief("text") @priority(2) @deprecated("old")
@noWarn("unused") @a[k = 1, j = "v"] @pragma_like(a b c) @empty()
action act(@optional in bit<8> v) { }
""")
    (act,) = prog.decls
    anns = {a.name: a for a in act.annotations}
    assert [a.name for a in act.annotations] == [
        "name", "id", "hidden", "brief", "priority", "deprecated", "noWarn", "a",
        "pragma_like", "empty"]
    assert show(anns["name"].args[0]) == "'x'" and anns["name"].body is None
    assert show(anns["id"].args[0]) == "3"
    assert anns["hidden"].args == [] and anns["hidden"].body is None
    assert show(anns["priority"].args[0]) == "2"
    assert anns["a"].args == [] and anns["a"].body == 'k = 1, j = "v"'
    assert anns["pragma_like"].args == [] and anns["pragma_like"].body == "a b c"
    assert anns["empty"].args == [] and anns["empty"].body is None
    assert act.display_name() == "x"
    assert act.params[0].annotation("optional") is not None
    assert anns["name"].loc == SourceLocation("<string>", 2, 1)


# ---------------------------------------------------------------------------------------
# syntax errors


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        # missing `;`
        ("const bit<8> X = 1\nconst bit<8> Y = 2;", 2, 1,
         "unexpected keyword 'const' — expected ';'"),
        ("header h {\n  bit<8> a\n}\n", 3, 1, "unexpected '}' — expected ';'"),
        ("action a() {\n  x = 1\n}", 3, 1, "expected ';'"),
        # unbalanced braces
        ("control C() {\n  apply { x = 1; }\n", 2, 19, "unexpected end of file — expected '}'"),
        ("control C() { apply { } }\n}\n", 2, 1, "unexpected '}'"),
        ("control C() { apply { f(a; } }", 1, 26, "unexpected ';' — expected"),
        # bad literals and characters
        ("const bit<8> X = 8w;", 1, 18, "invalid integer literal '8w'"),
        ("const bit<8> X = 0x;", 1, 18, "invalid integer literal '0x'"),
        ("const bit<8> X = 12abc;", 1, 18, "invalid integer literal '12abc'"),
        ("const bit<8> X = 8w0xZZ;", 1, 18, "invalid integer literal '8w0xZZ'"),
        ('const string S = "abc;\n', 1, 18, "unterminated string literal"),
        ("const bit<8> X = 1; /* never closed", 1, 21, "unterminated comment"),
        ("const bit<8> X = 1 $ 2;", 1, 20, "unexpected character '$'"),
        # misplaced else, keyword as identifier
        ("control C() { apply {\n  if (a) { } ; else { }\n} }", 2, 16,
         "unexpected keyword 'else'"),
        ("control C() {\n  bit<8> table;\n  apply { }\n}", 2, 10,
         "unexpected keyword 'table' — expected identifier"),
        ("header switch { bit<8> a; }", 1, 8, "unexpected keyword 'switch' — expected identifier"),
        # unexpected end of file
        ("control", 1, 8, "unexpected end of file"),
        ("parser P(bit<8> b) {\n  state start {\n    transition accept;\n", 3, 23,
         "unexpected end of file"),
        # parser and table specifics
        ("parser P() { state start { transition ; } }", 1, 39, "unexpected ';'"),
        ("parser P() { state start { transition select(a) { 1: accept } } }", 1, 61,
         "unexpected '}' — expected ';'"),
        ("control C() { table t { key = { a : exact } } apply { } }", 1, 43,
         "unexpected '}' — expected ';'"),
        ("control C() { table t { actions = { a, b } } apply { } }", 1, 38,
         "unexpected ','"),
        ("control C() { table t { entries = { prio = 3 : 1 : a(); } } apply { } }", 1, 37,
         "expected 'priority'"),
        ("control C() { table t { default_action = 1 + 2; } apply { } }", 1, 42,
         "default_action must name an action"),
        ("@name(\"x\" control C() { apply { } }", 1, 6, "unbalanced '(' in annotation body"),
        ("@ control C() { apply { } }", 1, 1, "expected an annotation name after '@'"),
        ("struct s { bit<8 a; }", 1, 18, "unexpected identifier 'a' — expected '>'"),
        ("typedef bit<8>;", 1, 15, "unexpected ';' — expected identifier"),
    ],
)
def test_syntax_errors(text: str, line: int, col: int, fragment: str) -> None:
    err = syntax_error(text)
    assert err.location == SourceLocation("err.p4", line, col), str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"err.p4:{line}:{col}: ")


def test_error_in_included_file(tmp_path: Path) -> None:
    (tmp_path / "inc.p4").write_text("header a_t {\n    bit<8> x;\n    bit<8> y\n}\n")
    main = tmp_path / "main.p4"
    main.write_text("// main\n#include \"inc.p4\"\nstruct s { a_t a; }\n")
    with pytest.raises(P4SyntaxError) as info:
        parse_file(main)
    loc = info.value.location
    assert Path(loc.file).name == "inc.p4" and (loc.line, loc.col) == (4, 1)
    assert "expected ';'" in info.value.message
    # an error after the include is reported against the main file's own line
    (tmp_path / "inc.p4").write_text("header a_t {\n    bit<8> x;\n}\n")
    main.write_text("// main\n#include \"inc.p4\"\nstruct s { a_t a }\n")
    with pytest.raises(P4SyntaxError) as info:
        parse_file(main)
    loc = info.value.location
    assert Path(loc.file).name == "main.p4" and (loc.line, loc.col) == (3, 18)


def test_error_at_end_of_included_file(tmp_path: Path) -> None:
    (tmp_path / "inc.p4").write_text("header a_t {\n    bit<8> x;\n")
    main = tmp_path / "main.p4"
    main.write_text('#include "inc.p4"\n')
    with pytest.raises(P4SyntaxError) as info:
        parse_file(main)
    assert Path(info.value.location.file).name == "inc.p4"
    assert info.value.location.line == 2
    assert "unexpected end of file" in info.value.message


def test_bad_programs_never_leak_other_exceptions() -> None:
    rng = random.Random(1234)
    text = preprocess_text((P4_DIR / "parse_tables.p4").read_text(), "t.p4").text
    # drop the v1model part so each parse is quick
    pieces = ["<", ">", ">>", "(", ")", "{", "}", ";", "@", "@name(", "bit<8>", "x", ".",
              ",", "=", "_", "default", "8w", '"', "/*", "..", "&&&", "?", ":", "[", "]",
              "apply", "state", "select", "0x", "@a[", "extern", "<T>", "else", "#"]
    toks = re.findall(r"\w+|\s+|.", text)
    for _ in range(150):
        mutated = list(toks)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(mutated))
            op = rng.random()
            if op < 0.4:
                del mutated[i]
            elif op < 0.8:
                mutated.insert(i, rng.choice(pieces))
            else:
                mutated[i] = rng.choice(pieces)
        try:
            parse_text("".join(mutated), "fuzz.p4")
        except P4Error as err:
            assert "internal parser error" not in str(err)
            assert err.location is not None and err.location.file == "fuzz.p4"


# ---------------------------------------------------------------------------------------
# grammar health and speed


def test_grammar_has_only_the_expected_conflicts() -> None:
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    handler = Collect()
    old_level = lark_logger.level
    lark_logger.addHandler(handler)
    lark_logger.setLevel(logging.DEBUG)
    try:
        Lark(_GRAMMAR.read_text(), parser="lalr", lexer=_TokenListLexer,
             start=["program", "annotation_args"], maybe_placeholders=True, debug=True)
    finally:
        lark_logger.removeHandler(handler)
        lark_logger.setLevel(old_level)
    conflicts = {m.split("terminal ")[1].split(":")[0] for m in records if "conflict" in m}
    assert conflicts == {"ELSE", "LBRACE"}, records


def _generated_program(n: int) -> str:
    lines = ["#include <v1model.p4>"]
    for i in range(n):
        lines += [f"header h{i}_t {{", "    bit<8> a;", "    bit<16> b;", "    bit<32> c;", "}"]
    lines += ["struct headers_t {"] + [f"    h{i}_t h{i};" for i in range(n)] + ["}"]
    lines += ["struct meta_t {", "    bit<32> x;", "}"]
    lines += ["control Ing(inout headers_t hdr, inout meta_t meta,",
              "            inout standard_metadata_t sm) {"]
    for i in range(n):
        lines += [
            f"    action a{i}(bit<8> v) {{",
            f"        hdr.h{i}.a = v + 8w{i % 256};",
            f"        meta.x = meta.x + ((bit<32>) hdr.h{i}.b << 2);",
            "    }",
            f"    table t{i} {{",
            "        key = {",
            f"            hdr.h{i}.a : exact;",
            f"            hdr.h{i}.c : ternary;",
            "        }",
            f"        actions = {{ a{i}; NoAction; }}",
            "        const entries = {",
            f"            (8w{i % 256}, 32w0 &&& 32w0xFF) : a{i}(1);",
            "        }",
            "        default_action = NoAction();",
            "        size = 1024;",
            "    }",
        ]
    lines += ["    apply {"]
    lines += [f"        if (hdr.h{i}.isValid()) {{ t{i}.apply(); }}" for i in range(n)]
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def test_parse_speed_of_a_1000_line_program() -> None:
    text = _generated_program(44)
    src = preprocess_text(text, "big.p4")
    parse_source(src)  # warm-up: builds or loads the cached parser
    start = time.perf_counter()
    prog = parse_source(src)
    elapsed = time.perf_counter() - start
    n_lines = text.count("\n")
    print(f"\nparsed {n_lines} lines ({len(src.text.splitlines())} after preprocessing) "
          f"in {elapsed * 1000:.0f} ms")
    assert n_lines >= 1000
    ing = decl(prog, "Ing")
    assert sum(isinstance(d, ast.TableDecl) for d in ing.locals) == 44
