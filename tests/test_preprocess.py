"""Tests for behavioral_model.frontend.preprocess (the cpp stand-in)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error, PreprocessError, SourceLocation
from behavioral_model.frontend.preprocess import (
    BUILTIN_INCLUDE_DIR,
    PreprocessedSource,
    parse_define_option,
    parse_undefine_option,
    preprocess,
    preprocess_text,
)


def lines(text: str, **kwargs: object) -> list[str]:
    """Non-empty output lines, whitespace-normalised."""
    out = preprocess_text(text, **kwargs).text  # type: ignore[arg-type]
    return [" ".join(line.split()) for line in out.splitlines() if line.strip()]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def raises(text: str, **kwargs: object) -> PreprocessError:
    with pytest.raises(PreprocessError) as info:
        preprocess_text(text, "main.p4", **kwargs)  # type: ignore[arg-type]
    return info.value


# ----------------------------------------------------------------- errors.py


def test_p4error_str_with_and_without_location() -> None:
    loc = SourceLocation("a.p4", 3, 7)
    assert str(P4Error("boom", loc)) == "a.p4:3:7: boom"
    assert str(P4Error("boom")) == "boom"
    err = PreprocessError("bad", loc)
    assert isinstance(err, P4Error)
    assert err.location == loc and err.message == "bad"
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == "a.p4:3:7: bad"


# ---------------------------------------------------------- plain text, comments


def test_plain_text_passes_through_with_identity_line_map() -> None:
    src = "header h_t {\n    bit<8> f;\n}\n"
    result = preprocess_text(src, "x.p4")
    assert result.text == src
    assert result.line_map == [("x.p4", 1), ("x.p4", 2), ("x.p4", 3)]


def test_comments_are_blanked_keeping_lines_and_columns() -> None:
    src = "a /* one\ntwo */ b // tail\nc\n"
    result = preprocess_text(src, "x.p4")
    out = result.text.splitlines()
    assert out == ["a", "       b", "c"]
    assert out[1].index("b") == src.splitlines()[1].index("b")
    assert result.line_map == [("x.p4", 1), ("x.p4", 2), ("x.p4", 3)]


def test_comment_markers_inside_strings_are_kept() -> None:
    assert lines('@name("a//b /* c */") x;') == ['@name("a//b /* c */") x;']


def test_line_continuation_joins_lines_and_keeps_line_count() -> None:
    result = preprocess_text("#define X 1 + \\\n   2\nX;\nend\n", "x.p4")
    assert result.text.splitlines()[2:] == ["1 + 2;", "end"]
    assert result.line_map[2:] == [("x.p4", 3), ("x.p4", 4)]
    assert len(result.line_map) == 4


def test_crlf_input() -> None:
    assert lines("#define A 1\r\nA;\r\n") == ["1;"]


# -------------------------------------------------------------------- macros


def test_object_like_macro() -> None:
    assert lines("#define N 16\nbit<N> x; // N\n") == ["bit<16> x;"]


def test_macros_not_expanded_in_strings_or_inside_identifiers() -> None:
    assert lines('#define N 1\nlog_msg("N"); NN; N_1; N;\n') == ['log_msg("N"); NN; N_1; 1;']


def test_function_like_macro_with_nested_expansion() -> None:
    src = "#define N 4\n#define ADD(a, b) ((a) + (b))\n#define TWICE(x) ADD(x, x)\nTWICE(N);\n"
    assert lines(src) == ["((4) + (4));"]


def test_function_like_macro_name_without_parens_is_left_alone() -> None:
    assert lines("#define F(x) x\nF; F (1);\n") == ["F; 1;"]


def test_macro_argument_with_commas_in_parentheses() -> None:
    assert lines("#define FIRST(a, b) a\nFIRST((1, 2), 3);\n") == ["(1, 2);"]


def test_empty_parameter_list_and_empty_argument() -> None:
    assert lines("#define Z() zero\n#define ID(x) [x]\nZ() ID();\n") == ["zero [];"]


def test_self_reference_does_not_recurse() -> None:
    assert lines("#define X X + 1\nX;\n") == ["X + 1;"]
    assert lines("#define A B\n#define B A\nA; B;\n") == ["A; B;"]
    assert lines("#define f(x) x + f(x)\nf(1);\n") == ["1 + f(1);"]


def test_rescan_picks_up_arguments_after_the_expansion() -> None:
    assert lines("#define F(x) <x>\n#define G F\nG(2);\n") == ["<2>;"]


def test_stringify_and_paste() -> None:
    src = (
        "#define STR(x) #x\n"
        "#define XSTR(x) STR(x)\n"
        "#define CAT(a, b) a ## b\n"
        "#define V 7\n"
        'STR( a  "q"  b ); XSTR(V); CAT(hdr_, V); CAT(x, );\n'
    )
    assert lines(src) == ['"a \\"q\\" b"; "7"; hdr_V; x;']


def test_variadic_macro() -> None:
    src = '#define LOG(fmt, ...) log_msg(fmt, {__VA_ARGS__})\nLOG("m", a, b); LOG("n");\n'
    assert lines(src) == ['log_msg("m", {a, b}); log_msg("n", {});']


def test_macro_call_spanning_lines_maps_to_first_line() -> None:
    result = preprocess_text("#define ADD(a, b) a + b\nx = ADD(1,\n  2);\ny;\n", "m.p4")
    assert result.text.splitlines() == ["", "x = 1 + 2;", "", "y;"]
    assert result.line_map == [("m.p4", 1), ("m.p4", 2), ("m.p4", 3), ("m.p4", 4)]


def test_undef() -> None:
    assert lines("#define A 1\nA;\n#undef A\nA;\n#undef NEVER\n") == ["1;", "A;"]


def test_redefinition_takes_the_latest_value() -> None:
    assert lines("#define A 1\n#define A 2\nA;\n") == ["2;"]


def test_line_and_file_builtins() -> None:
    assert lines("\n__LINE__ __FILE__\n", filename="z.p4") == ['2 "z.p4"']


def test_defines_argument_and_parse_define_option() -> None:
    assert parse_define_option("FOO") == ("FOO", "1")
    assert parse_define_option("FOO=bar baz") == ("FOO", "bar baz")
    assert parse_define_option("-DX=1=2") == ("X", "1=2")
    assert parse_define_option("F(x)=x+1") == ("F(x)", "x+1")
    assert parse_define_option("E=") == ("E", "")
    with pytest.raises(PreprocessError, match="invalid -D option"):
        parse_define_option("=3")
    with pytest.raises(PreprocessError, match="invalid -D option"):
        parse_define_option("9X")
    defines = dict(parse_define_option(o) for o in ["A", "B=5", "F(x)=x+1"])
    assert lines("A B F(2)\n", defines=defines) == ["1 5 2+1"]


# ------------------------------------------------------------- conditionals


def test_ifdef_ifndef_else() -> None:
    src = "#define A\n#ifdef A\nyes1\n#else\nno\n#endif\n#ifndef A\nno\n#else\nyes2\n#endif\n"
    assert lines(src) == ["yes1", "yes2"]


def test_if_elif_chain_takes_first_true_branch_only() -> None:
    src = "#if 0\na\n#elif 2 > 1\nb\n#elif 1\nc\n#else\nd\n#endif\n"
    assert lines(src) == ["b"]
    assert lines("#if 0\na\n#elif 0\nb\n#else\nd\n#endif\n") == ["d"]


def test_defined_forms_and_unknown_identifiers_are_zero() -> None:
    src = (
        "#define A 0\n"
        "#if defined(A) && defined A && !defined(B)\nyes1\n#endif\n"
        "#if UNKNOWN || A\nno\n#endif\n"
        "#if !UNKNOWN\nyes2\n#endif\n"
    )
    assert lines(src) == ["yes1", "yes2"]


@pytest.mark.parametrize(
    "expr",
    [
        "1 + 2 * 3 == 7",
        "(1 + 2) * 3 == 9",
        "0x10 == 16 && 010 == 8",
        "7 / 2 == 3 && -7 / 2 == -3 && -7 % 3 == -1",
        "(1 << 4) == 16 && (256 >> 4) == 16",
        "(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5 && ~0 == -1",
        "3 != 4 && 3 < 4 && 4 > 3 && 3 <= 3 && 3 >= 3",
        "!0 && !!5 == 1",
        "1 ? 2 : 0",
        "0 ? 0 : 1",
        "-1 < 0 && +1",
        "1 || 1 / 0",
        "!(0 && 1 / 0)",
        "20200408 >= 20180101",
        "10UL == 10",
    ],
)
def test_if_expressions_true(expr: str) -> None:
    assert lines(f"#if {expr}\nyes\n#else\nno\n#endif\n") == ["yes"]


def test_if_uses_macro_values() -> None:
    src = "#define V 20200408\n#if V >= 20200408\nnew\n#else\nold\n#endif\n"
    assert lines(src) == ["new"]
    assert lines("#define F(x) (x * 2)\n#if F(3) == 6\nok\n#endif\n") == ["ok"]


def test_nested_conditionals_in_skipped_region() -> None:
    src = "#if 0\n#if 1\nno\n#else\nno\n#endif\n#bogus directive\n#error never\n#endif\nyes\n"
    assert lines(src) == ["yes"]


def test_skipped_lines_keep_their_line_numbers() -> None:
    result = preprocess_text("#if 0\nx\n#endif\ny\n", "c.p4")
    assert result.text.splitlines() == ["", "", "", "y"]
    assert result.location(4, 1) == SourceLocation("c.p4", 4, 1)


# ------------------------------------------------------------------ includes


def test_include_quoted_relative_to_including_file(tmp_path: Path) -> None:
    write(tmp_path / "sub" / "inc.p4", "from_sub\n")
    write(tmp_path / "sub" / "mid.p4", '#include "inc.p4"\n')
    main = write(tmp_path / "main.p4", '#include "sub/mid.p4"\nmain\n')
    assert lines(main.read_text(), filename=str(main)) == ["from_sub", "main"]


def test_include_search_order(tmp_path: Path) -> None:
    write(tmp_path / "local" / "x.p4", "local\n")
    write(tmp_path / "first" / "x.p4", "first\n")
    write(tmp_path / "second" / "x.p4", "second\n")
    main = tmp_path / "local" / "main.p4"
    dirs = [tmp_path / "first", tmp_path / "second"]
    # "..." looks beside the including file first, <...> does not.
    assert lines('#include "x.p4"\n', filename=str(main), include_dirs=dirs) == ["local"]
    assert lines("#include <x.p4>\n", filename=str(main), include_dirs=dirs) == ["first"]
    assert lines("#include <x.p4>\n", filename=str(main), include_dirs=dirs[::-1]) == ["second"]


def test_include_dirs_come_before_builtin(tmp_path: Path) -> None:
    write(tmp_path / "core.p4", "my_core\n")
    assert lines("#include <core.p4>\n", include_dirs=[tmp_path]) == ["my_core"]


def test_builtin_includes_always_resolve() -> None:
    out = preprocess_text("#include <core.p4>\n#include <v1model.p4>\n").text
    assert "extern packet_in" in out and "package V1Switch" in out
    assert (BUILTIN_INCLUDE_DIR / "core.p4").is_file()


def test_include_guard_prevents_double_inclusion(tmp_path: Path) -> None:
    write(tmp_path / "h.p4", "#ifndef H_P4\n#define H_P4\nheader_body\n#endif\n")
    src = '#include "h.p4"\n#include "h.p4"\n'
    assert lines(src, filename=str(tmp_path / "m.p4")) == ["header_body"]


def test_pragma_once(tmp_path: Path) -> None:
    write(tmp_path / "h.p4", "#pragma once\nonce_body\n")
    src = '#include "h.p4"\n#include "h.p4"\n'
    assert lines(src, filename=str(tmp_path / "m.p4")) == ["once_body"]


def test_computed_include(tmp_path: Path) -> None:
    write(tmp_path / "arch.p4", "arch\n")
    src = '#define ARCH "arch.p4"\n#include ARCH\n'
    assert lines(src, filename=str(tmp_path / "m.p4")) == ["arch"]


def test_macros_flow_between_files(tmp_path: Path) -> None:
    write(tmp_path / "consts.p4", "#define WIDTH 12\n")
    src = '#include "consts.p4"\nbit<WIDTH> f;\n'
    assert lines(src, filename=str(tmp_path / "m.p4")) == ["bit<12> f;"]


def test_line_map_across_includes(tmp_path: Path) -> None:
    inc = write(tmp_path / "inc.p4", "i1\ni2\n")
    main = write(tmp_path / "main.p4", 'm1\n#include "inc.p4"\nm3\n')
    result = preprocess(main)
    assert result.text.splitlines() == ["m1", "i1", "i2", "m3"]
    assert result.line_map == [(str(main), 1), (str(inc), 1), (str(inc), 2), (str(main), 3)]
    assert result.location(3, 5) == SourceLocation(str(inc), 2, 5)
    assert result.location(4, 1) == SourceLocation(str(main), 3, 1)
    # Past the end maps to the last line; an empty result keeps the main file name.
    assert result.location(99, 2) == SourceLocation(str(main), 3, 2)
    assert PreprocessedSource("", [], main_file="e.p4").location(1, 1) == SourceLocation(
        "e.p4", 1, 1
    )


def test_error_location_inside_included_file(tmp_path: Path) -> None:
    inc = write(tmp_path / "inc.p4", "ok\n\n  #error bad thing\n")
    main = write(tmp_path / "main.p4", 'first\n#include "inc.p4"\n')
    with pytest.raises(PreprocessError) as info:
        preprocess(main)
    assert info.value.location == SourceLocation(str(inc), 3, 3)
    assert str(info.value) == f"{inc}:3:3: #error: bad thing"


def test_warning_directive_is_collected() -> None:
    result = preprocess_text("#warning careful now\nx\n", "w.p4")
    assert result.warnings == ["w.p4:1:1: #warning: careful now"]
    assert result.text.splitlines() == ["", "x"]


# -------------------------------------------------------------------- errors


def test_error_directive() -> None:
    err = raises("x\n#error Unsupported target\n")
    assert err.message == "#error: Unsupported target"
    assert err.location == SourceLocation("main.p4", 2, 1)


def test_error_in_inactive_branch_is_ignored() -> None:
    assert lines("#ifdef NOPE\n#error no\n#endif\nok\n") == ["ok"]


def test_missing_include(tmp_path: Path) -> None:
    err = raises('\n#include "nope.p4"\n', include_dirs=[tmp_path])
    assert err.message.startswith("cannot find include file 'nope.p4'")
    assert str(tmp_path) in err.message
    assert err.location == SourceLocation("main.p4", 2, 1)


def test_malformed_include() -> None:
    err = raises("#include nope.p4\n")
    assert err.message == '#include expects "FILENAME" or <FILENAME>'
    assert raises('#include ""\n').message == "empty file name in #include"


def test_recursive_include_hits_depth_limit(tmp_path: Path) -> None:
    loop = write(tmp_path / "loop.p4", '#include "loop.p4"\n')
    with pytest.raises(PreprocessError) as info:
        preprocess(loop)
    assert info.value.message == "#include nested too deeply (more than 64 levels)"
    assert info.value.location == SourceLocation(str(loop), 1, 1)


def test_unterminated_if() -> None:
    err = raises("a\n#ifdef X\nb\n")
    assert err.message == "unterminated #ifdef"
    assert err.location == SourceLocation("main.p4", 2, 1)
    assert raises("#if 1\n#if 0\n#endif\n").message == "unterminated #if"


def test_conditional_must_close_in_the_same_file(tmp_path: Path) -> None:
    inc = write(tmp_path / "inc.p4", "#if 1\n")
    with pytest.raises(PreprocessError) as info:
        preprocess_text('#include "inc.p4"\n#endif\n', str(tmp_path / "m.p4"))
    assert info.value.message == "unterminated #if"
    assert info.value.location == SourceLocation(str(inc), 1, 1)


@pytest.mark.parametrize(
    ("src", "message", "line"),
    [
        ("x\n#else\n", "#else without #if", 2),
        ("#elif 1\n", "#elif without #if", 1),
        ("\n\n#endif\n", "#endif without #if", 3),
        ("#if 1\n#else\n#else\n#endif\n", "#else after #else", 3),
        ("#if 1\n#else\n#elif 1\n#endif\n", "#elif after #else", 3),
    ],
)
def test_misplaced_conditionals(src: str, message: str, line: int) -> None:
    err = raises(src)
    assert err.message == message
    assert err.location == SourceLocation("main.p4", line, 1)


@pytest.mark.parametrize(
    ("expr", "detail"),
    [
        ("", "missing expression"),
        ("1 +", "unexpected end of expression"),
        ("(1", "unexpected end of expression"),
        ("1 2", "unexpected '2'"),
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("8w1 == 1", "invalid integer constant '8w1'"),
        ('"s"', "unexpected character '\"'"),
        ("1 ? 2", "unexpected end of expression"),
        ("1 << -1", "negative shift count"),
    ],
)
def test_bad_if_expressions(expr: str, detail: str) -> None:
    err = raises(f"\n#if {expr}\n#endif\n")
    assert err.message == f"invalid #if expression: {detail}"
    assert err.location == SourceLocation("main.p4", 2, 1)


def test_bad_defined_usage() -> None:
    assert raises("#if defined\n#endif\n").message == "operator 'defined' requires an identifier"
    assert raises("#if defined(X\n#endif\n").message == "missing ')' after 'defined'"


def test_unknown_directive() -> None:
    err = raises("ok\n  #pragma foo\n")
    assert err.message == "unknown preprocessor directive '#pragma'"
    assert err.location == SourceLocation("main.p4", 2, 3)
    assert raises("#includes <x>\n").message == "unknown preprocessor directive '#includes'"
    assert raises('# 12 "f"\n').message == "unknown preprocessor directive '#12'"
    assert lines("#\nok\n") == ["ok"]  # the null directive


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("#define\n", "macro name missing"),
        ("#define 3 x\n", "macro name must be an identifier, got '3'"),
        ("#define defined 1\n", "'defined' cannot be used as a macro name"),
        ("#define F(a, a) a\n", "duplicate macro parameter 'a'"),
        ("#define F(a, 1) a\n", "expected parameter name, got '1'"),
        ("#define F(a\n", "missing ')' in macro parameter list"),
        ("#define F(..., a) a\n", "'...' must be the last macro parameter"),
        ("#define F(a) # b\n", "'#' is not followed by a macro parameter"),
        ("#define F ## a\n", "'##' cannot appear at either end of a macro expansion"),
        ("#define F a ##\n", "'##' cannot appear at either end of a macro expansion"),
        ("#undef\n", "macro name missing in #undef"),
        ("#ifdef\n#endif\n", "no macro name given in #ifdef directive"),
    ],
)
def test_bad_define(src: str, message: str) -> None:
    err = raises(src)
    assert err.message == message
    assert err.location == SourceLocation("main.p4", 1, 1)


def test_wrong_macro_argument_count() -> None:
    err = raises("#define F(a, b) a\nx = F(1);\n")
    assert err.message == "macro 'F' expects 2 argument(s), got 1"
    assert err.location == SourceLocation("main.p4", 2, 5)
    assert raises("#define G() 1\nG(2)\n").message == "macro 'G' expects 0 argument(s), got 1"


def test_unterminated_macro_call() -> None:
    err = raises("#define F(a) a\n\nF(1,\n2\n")
    assert err.message == "unterminated argument list invoking macro 'F'"
    assert err.location == SourceLocation("main.p4", 3, 1)
    # A directive also ends the search for the closing parenthesis.
    err = raises("#define F(a) a\nF(1\n#define X\n)\n")
    assert err.message == "unterminated argument list invoking macro 'F'"
    assert err.location.line == 2


def test_unterminated_comment() -> None:
    err = raises("a\n  b /* never closed\n")
    assert err.message == "unterminated comment"
    assert err.location == SourceLocation("main.p4", 2, 5)


def test_missing_top_level_file(tmp_path: Path) -> None:
    with pytest.raises(PreprocessError, match="cannot read"):
        preprocess(tmp_path / "absent.p4")
    with pytest.raises(PreprocessError, match="cannot read"):
        preprocess(tmp_path)


def test_invalid_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "bad.p4"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(PreprocessError) as info:
        preprocess(bad)
    assert info.value.message == "file is not valid UTF-8"
    assert info.value.location == SourceLocation(str(bad), 2, 1)


def test_runaway_expansion_is_an_error_not_a_hang() -> None:
    # Each level doubles the output; the budget stops it long before memory runs out.
    src = "".join(f"#define L{i} L{i + 1} L{i + 1}\n" for i in range(40)) + "L0\n"
    err = raises(src)
    assert err.message == "macro expansion too deep or too large"


def test_expansion_does_not_glue_tokens_to_neighbours() -> None:
    # "x ++1" would be P4's concatenation operator; cpp keeps the tokens apart.
    assert lines("#define ONE +1\n#define E\nx +ONE; a-E-b; bit<ONE> f;\n") == [
        "x + +1; a- -b; bit<+1> f;"
    ]


# ------------------------------------------------- predefined and -U macros

TARGET_PROBE = "#ifdef __TARGET_BMV2__\nbmv2 __TARGET_BMV2__\n#else\nother\n#endif\n"


def test_bm_defines_target_bmv2_as_p4c_bmv2_back_ends_do() -> None:
    # p4c-bm2-ss and p4c-bm2-pna add -D__TARGET_BMV2__; bm reads programs as they do.
    assert lines(TARGET_PROBE) == ["bmv2 1"]


def test_undefine_removes_a_predefined_macro() -> None:
    assert lines(TARGET_PROBE, defines={"__TARGET_BMV2__": None}) == ["other"]


def test_define_replaces_a_predefined_macro() -> None:
    assert lines(TARGET_PROBE, defines={"__TARGET_BMV2__": "2"}) == ["bmv2 2"]


def test_later_undefine_removes_a_function_like_define_of_the_same_name() -> None:
    text = "#ifdef F\nF(3)\n#endif\nend\n"
    assert lines(text, defines={"F(x)": "x+1"}) == ["3+1", "end"]
    assert lines(text, defines={"F(x)": "x+1", "F": None}) == ["end"]


@pytest.mark.parametrize(("opt", "name"), [("-UFOO", "FOO"), ("BAR", "BAR"), (" X_1 ", "X_1")])
def test_parse_undefine_option(opt: str, name: str) -> None:
    assert parse_undefine_option(opt) == name


@pytest.mark.parametrize("opt", ["", "1X", "F(x)", "A=1"])
def test_parse_undefine_option_rejects_what_is_not_a_name(opt: str) -> None:
    with pytest.raises(PreprocessError, match="invalid -U option"):
        parse_undefine_option(opt)
