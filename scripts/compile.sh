#!/usr/bin/env bash
# Compile every P4 top level with the real compiler of its architecture, where that
# compiler is installed, and check each one with our own front end. See --help.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
    cat <<'USAGE'
usage: scripts/compile.sh [--out DIR] [-h|--help]

Every top level of p4src/, by architecture (its directory):

  p4src/*.p4      v1model  p4c-bm2-ss                 -> DIR/v1model/NAME.json, .p4info.txt
  p4src/pna/*.p4  PNA      p4c-bm2-pna                -> DIR/pna/NAME.json, .p4info.txt
                           p4c-dpdk --arch pna        -> DIR/pna-dpdk/NAME.spec, .p4info.txt
  p4src/tna/*.p4  TNA      bf-p4c (Tofino 1)          -> DIR/tna/NAME/
                           else p4test (p4c's front end) with Intel's tna.p4, found in
                           $TNA_P4INCLUDE or $SDE_INSTALL/share/p4c/p4include

P4Info is written as text with the .txt suffix: p4c releases before 1.2.4 pick the
format from the suffix and refuse .txtpb.

A compiler that is not on PATH is reported as "skipped: TOOL not installed" and is not
an error. Every top level is also checked by our own front end
(python -m behavioral_model check), whatever is installed.

  --out DIR   where the compilers write (default: build/ in the repository)

Environment: PYTHON (default .venv/bin/python, else python3), TNA_P4INCLUDE,
SDE_INSTALL.

Exit status: 0 if every check and every compiler that ran succeeded, 1 if one failed,
2 for bad arguments.
USAGE
}

OUT="$ROOT/build"
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out)
            [ $# -ge 2 ] || { echo "compile.sh: --out needs a directory" >&2; exit 2; }
            OUT="$2"; shift 2 ;;
        *) echo "compile.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

case "$OUT" in
    /*) ;;
    *) OUT="$PWD/$OUT" ;;
esac
# Top levels are named relative to the repository, in messages and for the compilers.
cd "$ROOT" || exit 1

if [ -n "${PYTHON:-}" ]; then
    :
elif [ -x "$ROOT/.venv/bin/python" ]; then
    PYTHON="$ROOT/.venv/bin/python"
else
    PYTHON=python3
fi
# The real toolchain wherever it is installed (PATH, $P4TOOLS, /opt/p4tools/bin), with
# the include path a relocated p4c needs and the tna.p4 it ships: toolchain/.
eval "$("$PYTHON" -m toolchain env 2>/dev/null)" || true

failed=0

# run LABEL CMD...: run one command, report ok/FAILED with its output on failure.
run() {
    local label="$1" log
    shift
    if log="$("$@" 2>&1)"; then
        echo "ok: $label"
    else
        echo "FAILED: $label"
        printf '%s\n' "$log" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
}

have() {
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "skipped: $1 not installed"
    return 1
}

# Intel's tna.p4 for p4test: p4c's own p4include has none.
tna_include() {
    local dir
    for dir in "${TNA_P4INCLUDE:-}" "${SDE_INSTALL:+$SDE_INSTALL/share/p4c/p4include}"; do
        if [ -n "$dir" ] && [ -f "$dir/tna.p4" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

compile_v1model() {
    local prog="$1" name="$2" dir="$OUT/v1model"
    have p4c-bm2-ss || return 0
    mkdir -p "$dir"
    run "p4c-bm2-ss $prog" p4c-bm2-ss -I p4src/include \
        --p4runtime-files "$dir/$name.p4info.txt" -o "$dir/$name.json" "$prog"
}

compile_pna() {
    local prog="$1" name="$2"
    if have p4c-bm2-pna; then
        mkdir -p "$OUT/pna"
        run "p4c-bm2-pna $prog" p4c-bm2-pna -I p4src/include \
            --p4runtime-files "$OUT/pna/$name.p4info.txt" -o "$OUT/pna/$name.json" "$prog"
    fi
    if have p4c-dpdk; then
        mkdir -p "$OUT/pna-dpdk"
        run "p4c-dpdk $prog" p4c-dpdk --arch pna -I p4src/include \
            --p4runtime-files "$OUT/pna-dpdk/$name.p4info.txt" \
            -o "$OUT/pna-dpdk/$name.spec" "$prog"
    fi
}

compile_tna() {
    local prog="$1" name="$2" inc
    if command -v bf-p4c >/dev/null 2>&1; then
        mkdir -p "$OUT/tna/$name"
        run "bf-p4c $prog" bf-p4c --std p4-16 --target tofino --arch tna \
            --p4runtime-files "$OUT/tna/$name/$name.p4info.txt" \
            -o "$OUT/tna/$name" "$prog"
        return 0
    fi
    echo "skipped: bf-p4c not installed"
    have p4test || return 0
    if ! inc="$(tna_include)"; then
        echo "skipped: p4test without Intel's tna.p4 (set TNA_P4INCLUDE or SDE_INSTALL)"
        return 0
    fi
    # The front end only: p4test writes nothing we keep.
    run "p4test (tna.p4 from $inc) $prog" p4test -D__TARGET_TOFINO__=1 -I "$inc" "$prog"
}

shopt -s nullglob
count=0
for prog in "$ROOT"/p4src/*.p4 "$ROOT"/p4src/pna/*.p4 "$ROOT"/p4src/tna/*.p4; do
    rel="${prog#"$ROOT"/}"
    name="${prog##*/}"
    name="${name%.p4}"
    case "$rel" in
        p4src/pna/*) arch=pna ;;
        p4src/tna/*) arch=tna ;;
        *) arch=v1model ;;
    esac
    echo "== $rel ($arch)"
    count=$((count + 1))
    run "bm front end $rel" "$PYTHON" -m behavioral_model check "$rel" -I p4src/include
    "compile_$arch" "$rel" "$name"
done

if [ "$failed" -ne 0 ]; then
    echo "compile.sh: $failed of the steps above failed ($count top levels)"
    exit 1
fi
echo "compile.sh: $count top levels checked"
