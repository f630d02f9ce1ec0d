# shellcheck shell=bash
# fabric_lib.sh - helpers of the shell tests in tests/fabric/ (source it).
#
#   fl_init NAME PZFABRIC PZCTL   work directory, counters, cleanup on exit
#   fails COMMAND...              succeeds when COMMAND fails (output dropped)
#   fl_example_net FILE           NET=ibsim's example FILE, or skipped (exit 77)
#   fl_start_fabric [OPTION]... NET   pzfabric on socket $SOCK; waits for "ready"
#   fl_stop_fabric                SIGTERM to pzfabric; its exit status in FABRIC_RC
#   fl_stop_opensm                SIGTERM to OpenSM
#   fl_start_opensm HOST [OPTION]...  OpenSM at node HOST (-d2, fresh private
#                                 dirs, log $WORK/sm/osm.log), -R ftree --connect_roots
#   fl_wait_up [SECONDS]          until OpenSM logs SUBNET UP
#   fl_wait_log SECONDS REGEX [COUNT]  until OpenSM's log has COUNT such lines
#   fl_quiet                      until no packet crosses a link for 2 s
#   fl_switch_lid NAME FILE       a switch's LID in ibnetdiscover output
#   fl_switch_lids HOST VAR=NAME...  ibnetdiscover into disc.txt, the LIDs into VARs, a check
#   fl_stop_opensm_quiet          OpenSM's notices settled, OpenSM stopped, fabric quiet
#   diag HOST COMMAND...          a umad2sim client at HOST in a private directory
#   ctl ARG...                    pzfabric-ctl on $SOCK
#   ctl_fails NAME REGEX ARG...   checks that pzfabric-ctl ARG... exits 1 saying REGEX
#   status_value KEY              the value of KEY in "pzfabric-ctl status"
#   counter NODE PORT NAME        one hardware counter of a port
#   fl_finish                     "N passed, M failed"; exit status 1 on failures
#
# The checks, pzt_require, stop_pid (here with 3 s of grace), wait_file,
# wait_until and the rest come from tests/lib.sh.  Every process is stopped
# by PID on exit, also on failure; the socket name contains the test's PID.
# PZT_KEEP=1 keeps the work directory.

FL_EXAMPLES=${PZT_EXAMPLES:-/usr/share/doc/ibsim-utils/net-examples}
FL_DIAG_TIMEOUT=30
WORK=
SOCK=
FABRIC_PID=
OSM_PID=
FABRIC_RC=
passes=0
failures=0

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
PZT_GRACE=${PZT_GRACE:-3} # pzfabric's clean exit is checked (FABRIC_RC)

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

# fl_example_net FILE: NET set to ibsim's example topology FILE (net-examples);
# the test is skipped (exit 77) without it.
fl_example_net() {
    NET=$FL_EXAMPLES/$1
    [ -f "$NET" ] || { echo "SKIP: $NET missing"; exit 77; }
}

fl_cleanup() {
    local rc=$?
    stop_started "$OSM_PID" "$FABRIC_PID"
    pzt_cleanup_work "$rc" "$WORK/fabric.err" "$WORK/sm/osm.log"
    exit "$rc"
}

# fl_cleanup_ns RC NS PID...: the exit trap of a test with its own processes
# in network namespaces (portzerod, pz-iphost, snmptrapd, ...): stop each
# PID given (empty ones skipped, in the order given), delete the namespaces
# NS names (one, or several separated by spaces),
# then fl_cleanup with RC as the test's status.  Use it as
#   trap 'fl_cleanup_ns $? "$NS" "$HOST_PID" "$AGENT"' EXIT
fl_cleanup_ns() {
    local rc=$1 ns=$2 n
    shift 2
    stop_started "$@"
    for n in $ns; do
        ip netns delete "$n" 2> /dev/null
    done
    (exit "$rc")
    fl_cleanup
}

# fl_start_host CA ADDRESS: the emulated host, pz-iphost ($PZIPHOST) as CA
# with ADDRESS (a.b.c.d/n) in namespace $NS (output $WORK/host.out, log
# $WORK/host.err); its PID in HOST_PID; checks that it gets ready.
fl_start_host() {
    "$PZIPHOST" --sockname "$SOCK" --ca "$1" --address "$2" --netns "$NS" \
        > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null &
    HOST_PID=$!
    check "pz-iphost ready" wait_file "$WORK/host.out" 30 '^ready$' "$HOST_PID"
}

# fl_trap_agent_host: for a test with one portzerod ($AGENT) and one
# emulated host ($HOST_PID) in namespace $NS: both empty until started, the
# exit trap fl_cleanup_ns (host first).
fl_trap_agent_host() {
    AGENT=
    HOST_PID=
    trap 'fl_cleanup_ns $? "$NS" "$HOST_PID" "$AGENT"' EXIT
}

fails() { ! "$@" > /dev/null 2>&1; }

fl_finish() { checks_finish; }

fl_start_fabric() { # fl_start_fabric [OPTION]... NET
    "$PZFABRIC" --sockname "$SOCK" -v "$@" > "$WORK/fabric.out" 2> "$WORK/fabric.err" < /dev/null &
    FABRIC_PID=$!
    if ! wait_file "$WORK/fabric.out" 60 '^ready$' "$FABRIC_PID"; then
        echo "pzfabric did not get ready:" >&2
        tail -n 5 "$WORK/fabric.err" >&2
        return 1
    fi
}

fl_stop_fabric() {
    stop_pid "$FABRIC_PID"
    FABRIC_RC=$STOP_RC
    FABRIC_PID=
}

fl_stop_opensm() {
    [ -z "$OSM_PID" ] || stop_pid "$OSM_PID"
    OSM_PID=
}

fl_start_opensm() { # fl_start_opensm HOST [OPTION]...
    local host=$1 dir="$WORK/sm"
    shift
    rm -rf "$dir" # a fresh OpenSM: no cache, no old log
    pzt_start_opensm "$dir" "$SOCK" "$host" -R ftree --connect_roots "$@"
    OSM_PID=$PZT_OSM_PID
}

fl_wait_up() { wait_file "$WORK/sm/osm.log" "${1:-60}" 'SUBNET UP' "$OSM_PID"; }

fl_wait_log() { wait_lines "$WORK/sm/osm.log" "$@"; } # fl_wait_log SECONDS REGEX [COUNT]

# fl_settle_notices: the switches send Trap 128 when OpenSM activates their
# ports and resend it until OpenSM represses it; wait until OpenSM has taken
# them (at least 3 s, and no new notice in its log for 2 s; 20 s at most).
fl_settle_notices() {
    local end=$((SECONDS + 20)) prev now stable=0
    sleep 1
    prev=$(grep -c 'Received Generic Notice' "$WORK/sm/osm.log" || true)
    while ((SECONDS < end && stable < 2)); do
        sleep 1
        now=$(grep -c 'Received Generic Notice' "$WORK/sm/osm.log" || true)
        if [ "$now" = "$prev" ]; then stable=$((stable + 1)); else stable=0; fi
        prev=$now
    done
}

# fl_quiet: wait until no packet crosses a link for 2 s (30 s at most; after OpenSM
# stops, the switches resend their unrepressed traps for a while); says how the hop
# count kept moving if it did.
fl_quiet() {
    local deadline=$((SECONDS + 30)) last now still=0 trail=
    last=$(status_value hops)
    while ((SECONDS < deadline && still < 4)); do
        sleep 0.5
        now=$(status_value hops)
        if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
        last=$now
        trail="$trail $now"
    done
    ((still >= 4)) || echo "     hops kept moving:$trail"
}

# fl_switch_lid NAME FILE: the LID of switch NAME in ibnetdiscover output FILE.
fl_switch_lid() { sed -n "s/^Switch.*\"$1\".* lid \([0-9]*\) .*/\1/p" "$2"; }

# fl_switch_lids HOST VAR=SWITCH...: ibnetdiscover from HOST into disc.txt (in the
# current directory), each VAR set to SWITCH's LID there; one check that all were found.
fl_switch_lids() {
    local host=$1 a lid names= ok=1
    shift
    diag "$host" ibnetdiscover > disc.txt 2>&1
    for a in "$@"; do
        lid=$(fl_switch_lid "${a#*=}" disc.txt)
        printf -v "${a%%=*}" '%s' "$lid"
        names="$names, ${a#*=} $lid"
        [ -n "$lid" ] || ok=0
    done
    check "switch LIDs (${names#, })" test "$ok" = 1
}

# fl_stop_opensm_quiet: let OpenSM take the switches' Trap 128s (fl_settle_notices),
# stop it, and check that the fabric then goes quiet (fl_quiet).
fl_stop_opensm_quiet() {
    fl_settle_notices
    fl_stop_opensm
    check "fabric quiet after OpenSM stopped" fl_quiet
}

diag() { # diag HOST COMMAND...  (infiniband-diags get -t 3000: loaded CI machines are slow)
    pzt_diag "$SOCK" "$1" 3000 "$FL_DIAG_TIMEOUT" "${@:2}"
}

ctl() { "$PZCTL" --sockname "$SOCK" "$@"; }

status_value() { ctl status | awk -v k="$1" '$1 == k { print $2; exit }'; }

counter() { ctl counters "$1" "$2" | awk -v k="$3" '$1 == k { print $2; exit }'; }

# ctl_fails NAME REGEX ARG...: pzfabric-ctl ARG... exits 1 with a message matching REGEX.
ctl_fails() {
    local name=$1 regex=$2 rc=0
    shift 2
    ctl "$@" > "$WORK/ctl.out" 2> "$WORK/ctl.err" || rc=$?
    check "$name: exit status 1" test "$rc" = 1
    check "$name: says \"$regex\"" grep -qE "$regex" "$WORK/ctl.err"
}
