#!/usr/bin/env bash
# Run a PTF suite (or, with --all, every suite) against bm (our switch) or BMv2
# simple_switch_grpc. See --help.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The real toolchain wherever it is installed (PATH, $P4TOOLS, /opt/p4tools/bin), with
# the include path a relocated p4c needs: `python -m toolchain env` (toolchain/).
_tc_py="$ROOT/.venv/bin/python"; [[ -x "$_tc_py" ]] || _tc_py=python3
eval "$(cd "$ROOT" && "$_tc_py" -m toolchain env 2>/dev/null)" || true

usage() {
    cat <<'EOF'
usage: scripts/run_ptf.sh [--target bm|bmv2] [--platform nn|eth] [--p4 PROG.p4]
                          [-I DIR]... [--test-dir DIR] [--ports N] [--veth-name NAME]
                          [--param KEY=VALUE]... [--keep] [--priority-queues N]
                          [--log-level LEVEL] [--results-dir DIR] [TEST...] [-- PTF-ARG...]
       scripts/run_ptf.sh --all [--target bm|bmv2] [--platform nn|eth] [-I DIR]...
                          [--ports N] [--veth-name NAME] [--param KEY=VALUE]... [--keep]
                          [--log-level LEVEL] [--results-dir DIR] [-- PTF-ARG...]

Start a P4Runtime target, run a PTF suite against it, tear the target down.

  --all           run every suite of the repository, each on a fresh target with its
                  own program and options:
                    smoke        tests/p4/ptf_smoke.p4, ptf_tests/smoke
                    srv6_switch  p4src/srv6_switch.p4 -I p4src/include
                                 --priority-queues 8, ptf_tests/srv6_switch
                    mrc_nic      p4src/mrc_nic.p4 -I p4src/include
                                 --priority-queues 8, ptf_tests/mrc_nic
                    mrc_nic_pna  p4src/pna/mrc_nic.p4 (the PNA NIC), the same
                                 options and tests; tests that need what PNA
                                 lacks skip and say why. Not on --target bmv2:
                                 BMv2's pna_nic has no P4Runtime server.
                  The other options (target, platform, ports, params, -I, ...) apply to
                  every suite; --p4, --test-dir, --priority-queues and TEST... are
                  the suites' own and cannot be given. Ends with one line per suite,
                  "run_ptf.sh --all: SUITE: passed" or "... FAILED (exit N)", and exits
                  non-zero if any suite failed.

  --target bm     our switch: python -m behavioral_model switch --no-p4 (default).
                  P4Info from `python -m behavioral_model p4info`; the device config
                  is the program's P4 source bundle (make_bundle).
  --target bmv2   simple_switch_grpc --no-p4; P4Info and JSON from
                  `p4c-bm2-ss --p4runtime-files`. Without simple_switch_grpc or
                  p4c-bm2-ss on PATH this prints "skipped: BMv2 not installed" and
                  exits 0.
  --platform nn   packets over the target's nanomsg socket (--packet-in ipc://...),
                  PTF's nn platform; no root needed (default).
  --platform eth  packets over veth pairs (needs root and existing veths, as made by
                  BMv2's tools/veth_setup.sh): port i is veth(2i) on the switch side
                  and veth(2i+1) on the PTF side (--veth-name NAME: NAME(2i) and
                  NAME(2i+1) instead).
  --p4 PROG.p4    the program (default tests/p4/ptf_smoke.p4); -I DIR adds include
                  folders (repeatable).
  --test-dir DIR  the PTF tests (default ptf_tests/smoke); ptf_tests/lib is on the
                  path, so tests can `from base_test import P4RuntimeTest`.
  --ports N       data ports 0..N-1 (default 8).
  --param K=V     an extra PTF test parameter (a Python literal), e.g.
                  --param canonical=False (full-width byte strings) or
                  --param push="'always'"; see ptf_tests/lib/base_test.py.
  --keep          keep the work folder (P4Info, device config, switch and PTF logs).
  --priority-queues N
                  priority queues per egress port on the target (simple_switch's
                  --priority-queues; default 1, BMv2's default). A program that sets
                  standard_metadata.priority to p needs at least p + 1: with fewer,
                  simple_switch drops the packet, and bm does the same.
  --log-level L   the target's log level (default info; debug traces every packet).
  --results-dir DIR
                  also write each test's outcome to DIR/results.jsonl, one JSON object
                  per line: {"test": "smoke.PacketInTest", "outcome": "ok", "detail": ""}
                  (outcome: ok, FAIL, ERROR, skipped, expected failure or unexpected
                  success; detail: the skip reason or the traceback). With --all, each
                  suite writes DIR/SUITE/results.jsonl. Programs should read this file
                  rather than PTF's console output, where other messages can interleave.
  TEST...         PTF test specs (e.g. smoke.PacketOutTest); default: all.
  -- ARGS         passed to ptf as they are (e.g. -- --failfast).

The gRPC server listens on 127.0.0.1 on a free port; the script waits until it answers
(no fixed sleeps). Whatever it started is stopped on exit, also on failure or Ctrl-C.
Exit status: 0 when every test passed, non-zero otherwise (also when the target died).
EOF
}

TARGET=bm
PLATFORM=nn
P4="$ROOT/tests/p4/ptf_smoke.p4"
TEST_DIR="$ROOT/ptf_tests/smoke"
NPORTS=8
VETH=veth
EXTRA_PARAMS=""
KEEP=0
LOG_LEVEL=info
PRIORITY_QUEUES=1
INCLUDES=()
TESTS=()
PTF_EXTRA=()
ALL=0
RESULTS_DIR=""
FORWARD=()       # options --all passes on to every suite's run
SUITE_OWN=()     # options --all refuses (each suite has its own)

while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --all) ALL=1; shift ;;
        --target) TARGET="${2:?--target needs a value}"; shift 2 ;;
        --target=*) TARGET="${1#*=}"; shift ;;
        --platform) PLATFORM="${2:?--platform needs a value}"; FORWARD+=("$1" "$2"); shift 2 ;;
        --platform=*) PLATFORM="${1#*=}"; FORWARD+=("$1"); shift ;;
        --p4) P4="${2:?--p4 needs a value}"; SUITE_OWN+=("$1"); shift 2 ;;
        --p4=*) P4="${1#*=}"; SUITE_OWN+=("--p4"); shift ;;
        -I) INCLUDES+=("${2:?-I needs a value}"); FORWARD+=(-I "$2"); shift 2 ;;
        -I*) INCLUDES+=("${1#-I}"); FORWARD+=(-I "${1#-I}"); shift ;;
        --test-dir) TEST_DIR="${2:?--test-dir needs a value}"; SUITE_OWN+=("$1"); shift 2 ;;
        --test-dir=*) TEST_DIR="${1#*=}"; SUITE_OWN+=("--test-dir"); shift ;;
        --ports) NPORTS="${2:?--ports needs a value}"; FORWARD+=("$1" "$2"); shift 2 ;;
        --veth-name) VETH="${2:?--veth-name needs a value}"; FORWARD+=("$1" "$2"); shift 2 ;;
        --keep) KEEP=1; FORWARD+=("$1"); shift ;;
        --param) EXTRA_PARAMS+=";${2:?--param needs KEY=VALUE}"; FORWARD+=("$1" "$2"); shift 2 ;;
        --log-level) LOG_LEVEL="${2:?--log-level needs a value}"; FORWARD+=("$1" "$2"); shift 2 ;;
        --results-dir) RESULTS_DIR="${2:?--results-dir needs a value}"; shift 2 ;;
        --priority-queues) PRIORITY_QUEUES="${2:?--priority-queues needs a value}"; SUITE_OWN+=("$1"); shift 2 ;;
        --) shift; PTF_EXTRA=("$@"); break ;;
        -*) echo "run_ptf.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) TESTS+=("$1"); SUITE_OWN+=("$1"); shift ;;
    esac
done

case "$TARGET" in bm|bmv2) ;; *) echo "run_ptf.sh: --target must be bm or bmv2" >&2; exit 2 ;; esac
case "$PLATFORM" in nn|eth) ;; *) echo "run_ptf.sh: --platform must be nn or eth" >&2; exit 2 ;; esac
if ! [[ "$NPORTS" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_ptf.sh: --ports must be a positive number" >&2; exit 2
fi
if ! [[ "$PRIORITY_QUEUES" =~ ^[1-8]$ ]]; then
    echo "run_ptf.sh: --priority-queues must be 1..8" >&2; exit 2
fi
if [[ -n "$RESULTS_DIR" ]]; then
    mkdir -p "$RESULTS_DIR" && RESULTS_DIR="$(cd "$RESULTS_DIR" && pwd)" || {
        echo "run_ptf.sh: --results-dir $RESULTS_DIR: cannot create that folder" >&2; exit 2; }
fi

# -- every suite (--all) -------------------------------------------------------------------
# Each suite runs through this script on its own fresh target; its pass/fail is the
# exit status of that run.
run_all_suites() {
    if [[ ${#SUITE_OWN[@]} -gt 0 ]]; then
        echo "run_ptf.sh: --all runs each suite with its own program, tests and options;" \
             "drop ${SUITE_OWN[*]}" >&2
        exit 2
    fi
    if [[ "$TARGET" == bmv2 ]] && { ! command -v simple_switch_grpc >/dev/null 2>&1 \
                                    || ! command -v p4c-bm2-ss >/dev/null 2>&1; }; then
        echo "skipped: BMv2 not installed (simple_switch_grpc and p4c-bm2-ss must be on PATH)"
        exit 0
    fi
    local suites=(smoke srv6_switch mrc_nic)
    [[ "$TARGET" == bm ]] && suites+=(mrc_nic_pna)
    local -A args=(
        [smoke]="--p4 tests/p4/ptf_smoke.p4 --test-dir ptf_tests/smoke"
        [srv6_switch]="--p4 p4src/srv6_switch.p4 -I p4src/include --priority-queues 8 --test-dir ptf_tests/srv6_switch"
        [mrc_nic]="--p4 p4src/mrc_nic.p4 -I p4src/include --priority-queues 8 --test-dir ptf_tests/mrc_nic"
        [mrc_nic_pna]="--p4 p4src/pna/mrc_nic.p4 -I p4src/include --priority-queues 8 --test-dir ptf_tests/mrc_nic"
    )
    local suite rc failed=0 summary=()
    local extra=()
    [[ ${#PTF_EXTRA[@]} -gt 0 ]] && extra=(-- "${PTF_EXTRA[@]}")
    cd "$ROOT"
    for suite in "${suites[@]}"; do
        echo "run_ptf.sh --all: ---- suite $suite ----"
        rc=0
        local results=()
        [[ -z "$RESULTS_DIR" ]] || results=(--results-dir "$RESULTS_DIR/$suite")
        # shellcheck disable=SC2086  # the suite's own options are split on purpose
        bash "$ROOT/scripts/run_ptf.sh" --target "$TARGET" ${args[$suite]} \
            "${FORWARD[@]}" "${results[@]}" "${extra[@]}" </dev/null || rc=$?
        if [[ $rc -eq 0 ]]; then
            summary+=("run_ptf.sh --all: $suite: passed")
        else
            summary+=("run_ptf.sh --all: $suite: FAILED (exit $rc)")
            failed=$((failed + 1))
        fi
    done
    printf '%s\n' "${summary[@]}"
    if [[ $failed -eq 0 ]]; then
        echo "run_ptf.sh --all: all ${#suites[@]} suites passed on $TARGET"
        exit 0
    fi
    echo "run_ptf.sh --all: $failed of ${#suites[@]} suites FAILED on $TARGET" >&2
    exit 1
}
[[ "$ALL" == 0 ]] || run_all_suites

[[ -f "$P4" ]] || { echo "run_ptf.sh: $P4: no such file" >&2; exit 2; }
[[ -d "$TEST_DIR" ]] || { echo "run_ptf.sh: $TEST_DIR: no such folder" >&2; exit 2; }
P4="$(cd "$(dirname "$P4")" && pwd)/$(basename "$P4")"
TEST_DIR="$(cd "$TEST_DIR" && pwd)"

if [[ "$TARGET" == bmv2 ]]; then
    if ! command -v simple_switch_grpc >/dev/null 2>&1 || ! command -v p4c-bm2-ss >/dev/null 2>&1; then
        echo "skipped: BMv2 not installed (simple_switch_grpc and p4c-bm2-ss must be on PATH)"
        exit 0
    fi
fi

if [[ -x "$ROOT/.venv/bin/python" ]]; then PY="$ROOT/.venv/bin/python"; else PY="$(command -v python3)"; fi
if [[ -x "$ROOT/.venv/bin/ptf" ]]; then PTF="$ROOT/.venv/bin/ptf"; else PTF="$(command -v ptf || true)"; fi
[[ -n "$PTF" ]] || { echo "run_ptf.sh: ptf not found (pip install ptf)" >&2; exit 2; }
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/run_ptf.XXXXXX")"
SWITCH_PID=""
PTF_PID=""
cleanup() {
    local status=$?
    if [[ -n "$PTF_PID" ]] && kill -0 "$PTF_PID" 2>/dev/null; then
        kill -TERM "$PTF_PID" 2>/dev/null || true
        wait "$PTF_PID" 2>/dev/null || true
    fi
    if [[ -n "$SWITCH_PID" ]] && kill -0 "$SWITCH_PID" 2>/dev/null; then
        kill -TERM "$SWITCH_PID" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$SWITCH_PID" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$SWITCH_PID" 2>/dev/null; then
            echo "run_ptf.sh: the target did not stop on SIGTERM; killing it" >&2
            kill -KILL "$SWITCH_PID" 2>/dev/null || true
        fi
        wait "$SWITCH_PID" 2>/dev/null || true
    fi
    if [[ "$KEEP" == 1 ]]; then
        echo "run_ptf.sh: work folder kept: $WORK"
    else
        rm -rf "$WORK"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

GRPC_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
GRPC_ADDR="127.0.0.1:$GRPC_PORT"
IPC="ipc://$WORK/packets.ipc"
CPU_PORT=255
NAME="$(basename "$P4" .p4)"
# .txt, not .txtpb: p4c releases before 1.2.4 pick the P4Info format from the suffix and
# know only .txt, .json and .bin (control-plane/p4RuntimeSerializer.cpp, parseFileNames).
P4INFO="$WORK/$NAME.p4info.txt"
LAST_PORT=$((NPORTS - 1))

INC_ARGS=()
for d in "${INCLUDES[@]}"; do INC_ARGS+=(-I "$d"); done

# -- compile ----------------------------------------------------------------------------
if [[ "$TARGET" == bm ]]; then
    "$PY" -m behavioral_model p4info "$P4" "${INC_ARGS[@]}" -o "$P4INFO"
    CONFIG="$WORK/$NAME.bundle.json"
    "$PY" - "$P4" "$CONFIG" "${INCLUDES[@]}" <<'PYEOF'
import sys
from pathlib import Path
from behavioral_model.p4runtime.device_config import make_bundle
Path(sys.argv[2]).write_bytes(make_bundle(sys.argv[1], sys.argv[3:]))
PYEOF
else
    CONFIG="$WORK/$NAME.json"
    p4c-bm2-ss --p4v 16 "${INC_ARGS[@]}" --p4runtime-files "$P4INFO" -o "$CONFIG" "$P4"
fi

# -- ports ------------------------------------------------------------------------------
SWITCH_PORT_ARGS=()
PTF_PORT_ARGS=()
if [[ "$PLATFORM" == nn ]]; then
    SWITCH_PORT_ARGS=(--packet-in "$IPC")
    PTF_PORT_ARGS=(--platform nn --device-socket "0-{0-$LAST_PORT}@$IPC")
else
    for i in $(seq 0 "$LAST_PORT"); do
        sw="$VETH$((2 * i))"; peer="$VETH$((2 * i + 1))"
        for ifc in "$sw" "$peer"; do
            if [[ ! -e "/sys/class/net/$ifc" ]]; then
                echo "run_ptf.sh: interface $ifc does not exist (create veth pairs first, e.g. with BMv2's tools/veth_setup.sh, or use --platform nn)" >&2
                exit 2
            fi
        done
        SWITCH_PORT_ARGS+=(-i "$i@$sw")
        PTF_PORT_ARGS+=(--interface "0-$i@$peer")
    done
    PTF_PORT_ARGS=(--platform eth "${PTF_PORT_ARGS[@]}")
fi

# -- start the target -------------------------------------------------------------------
SWITCH_LOG="$WORK/switch.log"
if [[ "$TARGET" == bm ]]; then
    "$PY" -m behavioral_model switch --no-p4 --device-id 0 "${SWITCH_PORT_ARGS[@]}" \
        --grpc-server-addr "$GRPC_ADDR" --cpu-port "$CPU_PORT" \
        --priority-queues "$PRIORITY_QUEUES" \
        --log-file "$SWITCH_LOG" --log-level "$LOG_LEVEL" >"$WORK/switch.out" 2>&1 &
else
    # Options only some builds have, read from --help: BMv2 lists its target options
    # there (bm_sim/options_parse.cpp prints them only for the generic --help). An
    # unknown target option leaves the target's options unparsed (no gRPC address, no
    # CPU port); a Thrift build takes port 9090 unless told otherwise and exits if it
    # is in use (bm_runtime/server.cpp).
    BMV2_HELP="$(simple_switch_grpc --help 2>&1 || true)"
    BMV2_GENERIC=()
    BMV2_TARGET=()
    if [[ "$BMV2_HELP" == *--thrift-port* ]]; then
        THRIFT_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])')"
        BMV2_GENERIC+=(--thrift-port "$THRIFT_PORT")
    fi
    if [[ "$BMV2_HELP" == *priority-queues* ]]; then
        BMV2_TARGET+=(--priority-queues "$PRIORITY_QUEUES")
    fi
    simple_switch_grpc --device-id 0 --no-p4 "${SWITCH_PORT_ARGS[@]}" "${BMV2_GENERIC[@]}" \
        --log-file "$SWITCH_LOG" --log-level "$LOG_LEVEL" --log-flush \
        -- --grpc-server-addr "$GRPC_ADDR" --cpu-port "$CPU_PORT" \
        "${BMV2_TARGET[@]}" >"$WORK/switch.out" 2>&1 &
fi
SWITCH_PID=$!

show_target_output() {
    echo "---- target output ($WORK/switch.out) ----" >&2
    tail -n 40 "$WORK/switch.out" >&2 || true
    if [[ -f "$SWITCH_LOG" || -f "$SWITCH_LOG.txt" ]]; then
        echo "---- target log (last lines) ----" >&2
        tail -n 40 "$SWITCH_LOG" "$SWITCH_LOG.txt" 2>/dev/null >&2 || true
    fi
}

if ! "$PY" - "$GRPC_ADDR" "$SWITCH_PID" <<'PYEOF'
import sys
from p4rt_client import wait_for_grpc
addr, pid = sys.argv[1], int(sys.argv[2])

def alive() -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False

try:
    wait_for_grpc(addr, 60, alive)
except TimeoutError as error:
    sys.exit(f"run_ptf.sh: the target does not answer: {error}")
PYEOF
then
    show_target_output
    exit 1
fi
echo "run_ptf.sh: target $TARGET (pid $SWITCH_PID) answers on $GRPC_ADDR; packets: $PLATFORM"

# -- run PTF ----------------------------------------------------------------------------
INC_PARAM="$(IFS=:; echo "${INCLUDES[*]:-}")"
TEST_PARAMS="grpcaddr='$GRPC_ADDR';p4info='$P4INFO';config='$CONFIG';config_include='$INC_PARAM';device_id=0;cpu_port=$CPU_PORT;target='$TARGET'$EXTRA_PARAMS"
if [[ -n "$RESULTS_DIR" ]]; then
    # Each test appends its outcome (ptf_tests/lib/ptf_outcomes.py); start empty.
    RESULTS_FILE="$RESULTS_DIR/results.jsonl"
    : >"$RESULTS_FILE"
    TEST_PARAMS+=";results_file='$RESULTS_FILE'"
fi
status=0
# In the background, so that a signal reaches our traps at once (bash runs traps only
# after a foreground child ends); cleanup stops it.
"$PTF" --test-dir "$TEST_DIR" --pypath "$ROOT/ptf_tests/lib" --pypath "$ROOT" \
    "${PTF_PORT_ARGS[@]}" --test-params "$TEST_PARAMS" \
    --log-file "$WORK/ptf.log" "${PTF_EXTRA[@]}" "${TESTS[@]}" </dev/null &
PTF_PID=$!
wait "$PTF_PID" || status=$?
PTF_PID=""

if ! kill -0 "$SWITCH_PID" 2>/dev/null; then
    echo "run_ptf.sh: the target died during the tests" >&2
    show_target_output
    [[ $status -ne 0 ]] || status=1
elif [[ $status -ne 0 ]]; then
    show_target_output
    echo "run_ptf.sh: PTF log: $WORK/ptf.log (use --keep to keep it)" >&2
fi
if [[ $status -eq 0 ]]; then
    echo "run_ptf.sh: all tests passed on $TARGET"
else
    echo "run_ptf.sh: FAILED on $TARGET (ptf exit status $status)" >&2
fi
exit "$status"
