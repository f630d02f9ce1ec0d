# shellcheck shell=bash
# fabric_lib.sh - helpers of the shell tests in tests/fabric/ (source it).
#
#   fl_init NAME PZFABRIC PZCTL   work directory, counters, cleanup on exit
#   fl_require TOOL...            exit 77 (CTest skip) when a tool is missing
#   check NAME COMMAND...         one "ok   NAME" / "FAIL NAME" line
#   check_eq NAME WANT GOT        the same, printing both values on failure
#   fails COMMAND...              succeeds when COMMAND fails (output dropped)
#   fl_start_fabric [OPTION]... NET   pzfabric on socket $SOCK; waits for "ready"
#   fl_stop_fabric                SIGTERM to pzfabric; its exit status in FABRIC_RC
#   fl_stop_opensm                SIGTERM to OpenSM
#   fl_start_opensm HOST [OPTION]...  OpenSM at node HOST (-d2, fresh private
#                                 dirs, log $WORK/sm/osm.log), -R ftree --connect_roots
#   fl_wait_up [SECONDS]          until OpenSM logs SUBNET UP
#   fl_wait_log SECONDS REGEX [COUNT]  until OpenSM's log has COUNT such lines
#   fl_wait_for SECONDS COMMAND...  until COMMAND succeeds
#   diag HOST COMMAND...          a umad2sim client at HOST in a private directory
#   ctl ARG...                    pzfabric-ctl on $SOCK
#   status_value KEY              the value of KEY in "pzfabric-ctl status"
#   counter NODE PORT NAME        one hardware counter of a port
#   fl_finish                     "N passed, M failed"; exit status 1 on failures
#
# Every process is stopped by PID on exit, also on failure; the socket name
# contains the test's PID.  PZT_KEEP=1 keeps the work directory.

FL_EXAMPLES=${PZT_EXAMPLES:-/usr/share/doc/ibsim-utils/net-examples}
FL_DIAG_TIMEOUT=30
WORK=
SOCK=
FABRIC_PID=
OSM_PID=
FABRIC_RC=
passes=0
failures=0

# abspath FILE: FILE with an absolute directory.
# shellcheck source=../check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../check_lib.sh"
FL_UMAD2SIM=$PZT_PRELOAD

fl_init() { # fl_init NAME PZFABRIC PZCTL
    PZFABRIC=$(abspath "$2")
    PZCTL=$(abspath "$3")
    WORK=$(mktemp -d "/tmp/pzt-$1.XXXXXX")
    SOCK="pzt-$$-$1"
    trap fl_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cd "$WORK" || exit 1
}

fl_require() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" > /dev/null; then
            echo "SKIP: $tool is not installed"
            exit 77
        fi
    done
    pzt_require_preload
}

# fl_stop_pid PID: SIGTERM, wait up to 3 s, then SIGKILL; its exit status in FL_RC.
fl_stop_pid() {
    local pid=$1 i
    FL_RC=0
    if kill -TERM "$pid" 2> /dev/null; then
        for ((i = 0; i < 60; i++)); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2> /dev/null || true
    fi
    wait "$pid" 2> /dev/null || FL_RC=$?
}

fl_cleanup() {
    local rc=$?
    [ -z "$OSM_PID" ] || fl_stop_pid "$OSM_PID"
    [ -z "$FABRIC_PID" ] || fl_stop_pid "$FABRIC_PID"
    if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
        for log in "$WORK/fabric.err" "$WORK/sm/osm.log"; do
            if [ -s "$log" ]; then
                echo "--- tail of $log"
                tail -n 25 "$log"
            fi
        done
    fi
    cd /
    if [ -n "$WORK" ] && [ -z "${PZT_KEEP:-}" ]; then
        rm -rf "$WORK"
    elif [ -n "$WORK" ]; then
        echo "work directory kept: $WORK"
    fi
    exit "$rc"
}


fails() { ! "$@" > /dev/null 2>&1; }

fl_finish() { checks_finish; }

# fl_wait_file FILE SECONDS REGEX [PID]: until FILE has a line matching
# REGEX; gives up early when process PID has exited.
fl_wait_file() {
    local file=$1 deadline=$((SECONDS + $2)) regex=$3 pid=${4:-}
    while ((SECONDS < deadline)); do
        grep -qE "$regex" "$file" 2> /dev/null && return 0
        if [ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null; then
            grep -qE "$regex" "$file" 2> /dev/null
            return
        fi
        sleep 0.05
    done
    return 1
}

fl_start_fabric() { # fl_start_fabric [OPTION]... NET
    "$PZFABRIC" --sockname "$SOCK" -v "$@" > "$WORK/fabric.out" 2> "$WORK/fabric.err" < /dev/null &
    FABRIC_PID=$!
    if ! fl_wait_file "$WORK/fabric.out" 60 '^ready$' "$FABRIC_PID"; then
        echo "pzfabric did not get ready:" >&2
        tail -n 5 "$WORK/fabric.err" >&2
        return 1
    fi
}

fl_stop_fabric() {
    fl_stop_pid "$FABRIC_PID"
    FABRIC_RC=$FL_RC
    FABRIC_PID=
}

fl_stop_opensm() {
    [ -z "$OSM_PID" ] || fl_stop_pid "$OSM_PID"
    OSM_PID=
}

fl_start_opensm() { # fl_start_opensm HOST [OPTION]...
    local host=$1 dir="$WORK/sm"
    shift
    rm -rf "$dir" # a fresh OpenSM: no cache, no old log
    mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump" "$dir/run"
    (cd "$dir/run" && LD_PRELOAD=$FL_UMAD2SIM SIM_HOST=$host IBSIM_SOCKNAME=$SOCK \
        OSM_CACHE_DIR=$dir/cache OSM_TMP_DIR=$dir/tmp \
        exec opensm -d2 -R ftree --connect_roots "$@" --dump_files_dir "$dir/dump" \
        -f "$dir/osm.log" > "$dir/opensm.out" 2>&1 < /dev/null) &
    OSM_PID=$!
}

fl_wait_up() { fl_wait_file "$WORK/sm/osm.log" "${1:-60}" 'SUBNET UP' "$OSM_PID"; }

fl_wait_log() { # fl_wait_log SECONDS REGEX [COUNT]
    local deadline=$((SECONDS + $1)) count=${3:-1}
    while ((SECONDS < deadline)); do
        [ "$(grep -cE "$2" "$WORK/sm/osm.log" 2> /dev/null)" -ge "$count" ] && return 0
        sleep 0.05
    done
    return 1
}

fl_wait_for() { # fl_wait_for SECONDS COMMAND...
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

diag() { # diag HOST COMMAND...  (infiniband-diags get -t 3000: loaded CI machines are slow)
    local host=$1 dir rc=0 tool
    shift
    tool=$1
    shift
    case $tool in
    smpquery | perfquery | ibroute | ibtracert | ibportstate | saquery | sminfo)
        set -- "$tool" -t 3000 "$@"
        ;;
    *) set -- "$tool" "$@" ;;
    esac
    dir=$(mktemp -d "$WORK/diag.XXXXXX")
    (cd "$dir" && LD_PRELOAD=$FL_UMAD2SIM SIM_HOST=$host IBSIM_SOCKNAME=$SOCK \
        exec timeout "$FL_DIAG_TIMEOUT" "$@") || rc=$?
    rm -rf "$dir"
    return $rc
}

ctl() { "$PZCTL" --sockname "$SOCK" "$@"; }

status_value() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }

counter() { ctl counters "$1" "$2" | awk -v k="$3" '$1 == k { print $2; exit }'; }
