# shellcheck shell=bash
# lib.sh - the one shell library of the tests: check lines, process stop by
# PID, waiting for files and conditions, the umad2sim client runner and the
# work directory's cleanup.  The harnesses (tests/integration/lib.sh,
# tests/fabric/fabric_lib.sh, tests/agent/agent_lib.sh) build on it; a test
# that needs none of them sources it directly.  Source it, do not run it.
#
#   check NAME COMMAND...          "ok   NAME" if COMMAND succeeds, else "FAIL NAME"
#   check_eq NAME WANT GOT         equal strings, else FAIL with both
#   check_files NAME WANT GOT      equal files, else FAIL with a diff
#   note TEXT...                   an informational line
#   checks_finish                  "N passed, M failed"; non-zero status on a failure
#   abspath PATH                   PATH made absolute
#   pzt_require TOOL...            exit 77 (CTest skip) when a tool is missing,
#                                  and as pzt_require_preload
#   pzt_require_preload            exit 77 without ibsim-utils, 1 without the repair
#   stop_pid PID...                SIGTERM, SIGKILL after $PZT_GRACE (default 2) s;
#                                  the exit status of the last PID in STOP_RC
#   wait_file FILE SECONDS REGEX [PID]  until FILE has a line matching REGEX
#                                  (gives up early when process PID has exited)
#   wait_lines FILE SECONDS REGEX [COUNT]  until FILE has COUNT such lines
#   wait_until SECONDS COMMAND...  until COMMAND succeeds (output dropped)
#   pzt_start_opensm DIR SOCK HOST OPTION...  OpenSM -d2 at node HOST of the
#                                  simulator on socket SOCK, files under DIR
#                                  (log DIR/osm.log); its PID in PZT_OSM_PID
#   pzt_diag SOCK HOST MAD_MS SECONDS COMMAND...  a umad2sim client of the
#                                  simulator on socket SOCK at node HOST, in a
#                                  private directory under $WORK
#   pzt_cleanup_work RC LOG...     on a failure the tails of the LOGs; then
#                                  $WORK removed (kept with PZT_KEEP=1)
#
# Counts go to $passes and $failures. With PZT_TIMING=1 every ok line ends
# with the seconds since the script started.

# PZT_PRELOAD: what every umad2sim client of a test preloads, as pz-attach
# does: Debian's libumad2sim.so, then libpzumad2sim.so (attach/), the
# product's repair, whose path CTest passes as $PZ_UMAD2SIM_FIX.
# pzt_require_preload: exit 77 (skip) without ibsim-utils, 1 without the repair.
PZT_UMAD2SIM_STOCK=${PZ_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
PZT_PRELOAD="$PZT_UMAD2SIM_STOCK ${PZ_UMAD2SIM_FIX:-}"

pzt_require_preload() {
    if [ ! -f "$PZT_UMAD2SIM_STOCK" ]; then
        echo "SKIP: $PZT_UMAD2SIM_STOCK missing (ibsim-utils)"
        exit 77
    fi
    if [ ! -f "${PZ_UMAD2SIM_FIX:-}" ]; then
        echo "FAIL: PZ_UMAD2SIM_FIX='${PZ_UMAD2SIM_FIX:-}' is not libpzumad2sim.so (run through ctest)"
        exit 1
    fi
}

passes=${passes:-0}
failures=${failures:-0}

abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# field FILE NAME: the value of FILE's first "NAME:....value" line (what smpquery and
# perfquery print).
field() { sed -n "s/^$2:\.*//p" "$1" | head -n 1; }

# pzt_paths "SCRIPT NAME..." ARG...: the programs a test is given, one NAME
# each: sets NAME to the absolute path of its ARG, in order (extra ARGs are
# left to the caller); exits 1 with "usage: SCRIPT NAME..." when one is missing.
pzt_paths() {
    local usage=$1 name
    shift
    for name in ${usage#* }; do
        if [ -z "${1:-}" ]; then
            echo "usage: $usage" >&2
            exit 1
        fi
        printf -v "$name" '%s' "$(abspath "$1")"
        shift
    done
}

pzt_t() { [ -z "${PZT_TIMING:-}" ] || echo " [${SECONDS}s]"; }

check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then
        echo "ok   $name$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $name"
        failures=$((failures + 1))
    fi
}

check_eq() { # check_eq NAME WANT GOT
    if [ "$2" = "$3" ]; then
        echo "ok   $1$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $1"
        echo "     want: $2"
        echo "     got:  $3"
        failures=$((failures + 1))
    fi
}

check_files() { # check_files NAME WANT_FILE GOT_FILE
    if cmp -s "$2" "$3"; then
        echo "ok   $1$(pzt_t)"
        passes=$((passes + 1))
    else
        echo "FAIL $1"
        diff "$2" "$3" | head -n 20 | sed 's/^/     /' || true # diff exits 1: not fatal under set -e/pipefail
        failures=$((failures + 1))
    fi
}

note() { echo "note $*"; }

checks_finish() {
    echo "$passes passed, $failures failed"
    [ "$failures" = 0 ]
}

# pzt_require_tools TOOL...: exit 77 (skip) unless each is installed. With
# PZT_REQUIRE_ALL=1 (the Makefile's test targets, which install every package
# first) a missing tool is a failure: a skip there means install-deps.sh lacks it.
pzt_require_tools() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" > /dev/null; then
            if [ "${PZT_REQUIRE_ALL:-0}" = 1 ]; then
                echo "FAIL: $tool is not installed (scripts/install-deps.sh should install it)"
                exit 1
            fi
            echo "SKIP: $tool is not installed"
            exit 77
        fi
    done
}

pzt_require() { # pzt_require TOOL...: the tools and the umad2sim preload
    pzt_require_tools "$@"
    pzt_require_preload
}

# stop_started PID...: stop_pid each PID given, in that order, skipping the
# empty ones (processes a test never got to start).
stop_started() {
    local pid
    for pid in "$@"; do
        [ -z "$pid" ] || stop_pid "$pid"
    done
}

# stop_pid PID... : SIGTERM to each, wait up to $PZT_GRACE seconds (default
# 2) for all of them, then SIGKILL to the rest; STOP_RC is the exit status
# of the last one.
# shellcheck disable=SC2034 # STOP_RC is for the tests
stop_pid() {
    local pid i alive ticks
    ticks=$(awk -v g="${PZT_GRACE:-2}" 'BEGIN { printf "%d", g * 20 }')
    for pid in "$@"; do
        kill -TERM "$pid" 2> /dev/null || true
    done
    for ((i = 0; i < ticks; i++)); do
        alive=no
        for pid in "$@"; do
            kill -0 "$pid" 2> /dev/null && alive=yes
        done
        [ "$alive" = yes ] || break
        sleep 0.05
    done
    STOP_RC=0
    for pid in "$@"; do
        if kill -0 "$pid" 2> /dev/null; then
            kill -KILL "$pid" 2> /dev/null || true
        fi
        STOP_RC=0
        wait "$pid" 2> /dev/null || STOP_RC=$?
    done
}

# wait_file FILE SECONDS REGEX [PID]: until FILE has a line matching REGEX;
# gives up early when process PID has exited.
wait_file() {
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

# wait_lines FILE SECONDS REGEX [COUNT]: until FILE has at least COUNT
# (default 1) lines matching REGEX.
wait_lines() {
    local file=$1 deadline=$((SECONDS + $2)) regex=$3 count=${4:-1}
    while ((SECONDS < deadline)); do
        [ "$(grep -cE "$regex" "$file" 2> /dev/null)" -ge "$count" ] && return 0
        sleep 0.05
    done
    return 1
}

# wait_until SECONDS COMMAND...: until COMMAND succeeds (its output dropped).
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

# pzt_start_opensm DIR SOCK HOST OPTION...: OpenSM -d2 OPTION... in the
# background as a umad2sim client of the simulator on socket SOCK at node
# HOST, with private cache, tmp and dump directories under DIR (absolute),
# its log DIR/osm.log (-d2: flushed at once), its output DIR/opensm.out;
# its PID in PZT_OSM_PID.
# shellcheck disable=SC2034 # PZT_OSM_PID is for the harnesses
pzt_start_opensm() {
    local dir=$1 sock=$2 host=$3
    shift 3
    mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump" "$dir/run"
    (cd "$dir/run" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$host IBSIM_SOCKNAME=$sock \
        OSM_CACHE_DIR=$dir/cache OSM_TMP_DIR=$dir/tmp \
        exec opensm -d2 "$@" --dump_files_dir "$dir/dump" -f "$dir/osm.log" \
        > "$dir/opensm.out" 2>&1 < /dev/null) &
    PZT_OSM_PID=$!
}

# pzt_diag SOCK HOST MAD_MS SECONDS COMMAND...: run COMMAND as a umad2sim
# client of the simulator on socket SOCK at node HOST, in a private
# temporary directory under $WORK (umad2sim writes ./sys-<pid> there),
# killed after SECONDS.  With MAD_MS, the diags that take -t get -t MAD_MS
# first (infiniband-diags wait 1 s and do not retry when nothing comes; a
# loaded machine can stall a client longer; a later -t on the command line
# wins).  Returns COMMAND's status.
pzt_diag() {
    local sock=$1 host=$2 mad_ms=$3 secs=$4 dir rc=0
    shift 4
    if [ -n "$mad_ms" ]; then
        case "$1" in
        smpquery | ibroute | ibtracert | ibnetdiscover | ibportstate | saquery | sminfo | perfquery | \
            iblinkinfo | ibqueryerrors | ibaddr)
            set -- "$1" -t "$mad_ms" "${@:2}"
            ;;
        esac
    fi
    dir=$(mktemp -d "$WORK/diag.XXXXXX")
    # stdbuf -oL: what a diag printed survives it (umad2sim's reader thread can
    # crash a client at exit when a MAD, e.g. a late RMPP retransmission,
    # arrives after the port closed; a block-buffered pipe would lose it all).
    (cd "$dir" && LD_PRELOAD=$PZT_PRELOAD SIM_HOST=$host IBSIM_SOCKNAME=$sock \
        exec timeout "$secs" stdbuf -oL "$@" < /dev/null) || rc=$?
    rm -rf "$dir"
    return $rc
}

# pzt_cleanup_work RC LOG...: when RC or $failures is not 0, the last 25
# lines of each non-empty LOG; then leave $WORK and remove it (with
# PZT_KEEP=1: say where it is kept).
pzt_cleanup_work() {
    local rc=$1 log
    shift
    if [ "$rc" != 0 ] || [ "${failures:-0}" != 0 ]; then
        for log in "$@"; do
            if [ -s "$log" ]; then
                echo "--- tail of $log"
                tail -n 25 "$log"
            fi
        done
    fi
    cd /
    if [ -n "${WORK:-}" ] && [ -z "${PZT_KEEP:-}" ]; then
        rm -rf "$WORK"
    elif [ -n "${WORK:-}" ]; then
        echo "work directory kept: $WORK"
    fi
}

# The SNMPv3 users of the agent's SNMP tests (authPriv, SHA-256/AES):
# PZT_SNMP_RO and PZT_SNMP_RW are the snmpcmd options of the read-only user
# pzro and the read-write user pzadmin (a test adds its -t/-r);
# pzt_snmp_users prints their snmp.conf lines (createUser, rwuser, rouser).
# shellcheck disable=SC2034 # used by the scripts that source this file
PZT_SNMP_RO=(-v3 -l authPriv -u pzro -a SHA-256 -A readauthpass1 -x AES -X readprivpass1)
# shellcheck disable=SC2034
PZT_SNMP_RW=(-v3 -l authPriv -u pzadmin -a SHA-256 -A adminauthpass1 -x AES -X adminprivpass1)
pzt_snmp_users() {
    echo 'createUser pzadmin SHA-256 "adminauthpass1" AES "adminprivpass1"'
    echo 'createUser pzro SHA-256 "readauthpass1" AES "readprivpass1"'
    echo 'rwuser pzadmin priv'
    echo 'rouser pzro priv'
}
