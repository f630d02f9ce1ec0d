# lib.sh - shared helpers of the integration tests (source it, do not run it).
#
#   source "$(dirname "$0")/lib.sh"
#   pzt_init NAME            work directory, counters, trap EXIT (stops everything)
#   start_pzfabric ID NET [PZFABRIC OPTIONS]   socket pzt-$$-ID, waits for "ready"
#   start_ibsim ID NET [IBSIM OPTIONS]         socket pzt-$$-ID, waits for "ready"
#   start_opensm ID SIM HOST [--guid2lid FILE] [--conf FILE] [OPENSM OPTIONS]
#                            OpenSM of the simulator SIM attached at node HOST,
#                            private cache/tmp/dump dirs under $WORK/ID, log
#                            $WORK/ID/osm.log (-d2: flushed at once)
#   wait_subnet_up ID [SECONDS]   until OpenSM ID logs SUBNET UP (fails early if it died)
#   wait_log ID SECONDS REGEX [COUNT]  until OpenSM ID's log has COUNT lines matching REGEX
#   run_diag SIM HOST COMMAND...  a umad2sim client in a private temporary directory
#                            (diags get -t $PZT_MAD_TIMEOUT, default 4000 ms)
#   run_diag_batch SIM HOST JOBS LIST  many of them, JOBS at a time
#   stop ID...               stop what start_* started as ID... (by PID)
#   pzt_finish               "N passed, M failed"; exit status 1 on any failure
#   levels NET               "switch level" of a topology file (0: leaves)
#
# The checks, pzt_require, stop_pid, wait_file and the rest come from
# tests/lib.sh.
# Every process started by start_* is remembered by PID and stopped on exit,
# also when a test fails or is interrupted. Socket names contain the PID of
# the test ($$), so parallel tests and other simulators never collide. Set
# PZT_KEEP=1 to keep the work directory.

PZT_EXAMPLES=${PZT_EXAMPLES:-/usr/share/doc/ibsim-utils/net-examples}
# shellcheck disable=SC2034 # for the tests: this directory (ft-2s4l.net)
PZT_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PZT_DIAG_TIMEOUT=${PZT_DIAG_TIMEOUT:-30}

WORK=
passes=0
failures=0
declare -A PZT_SOCK     # simulator ID -> socket name
declare -A PZT_PID      # ID -> PID of what runs (simulators and OpenSMs), until stopped
declare -A PZT_LOG      # ID -> its main log file
declare -A PZT_SM_START # OpenSM ID -> when it was started (date +%s.%N)

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
PZT_UMAD2SIM=$PZT_PRELOAD # the name the tests and bench/ use

pzt_init() { # pzt_init NAME
    WORK=$(mktemp -d "/tmp/pzt-$1.XXXXXX")
    trap pzt_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cd "$WORK" || exit 1
}

# stop ID...: stop the simulators or OpenSMs started as ID... (and forget
# them). OpenSM takes 1.5-2 s to exit on SIGTERM and keeps nothing worth a
# clean exit (its log is flushed, -d2), so OpenSMs get 0.3 s, then SIGKILL.
stop() {
    local id pids=() sms=()
    for id in "$@"; do
        [ -n "${PZT_PID[$id]:-}" ] || continue
        if [ -n "${PZT_SM_START[$id]:-}" ]; then
            sms+=("${PZT_PID[$id]}")
        else
            pids+=("${PZT_PID[$id]}")
        fi
        unset "PZT_PID[$id]"
    done
    [ ${#sms[@]} = 0 ] || PZT_GRACE=0.3 stop_pid "${sms[@]}"
    [ ${#pids[@]} = 0 ] || stop_pid "${pids[@]}"
}

pzt_cleanup() {
    local rc=$? id logs=()
    # Stop everything still running: OpenSMs before their simulators.
    stop "${!PZT_SM_START[@]}"
    stop "${!PZT_PID[@]}"
    for id in "${!PZT_LOG[@]}"; do
        logs+=("${PZT_LOG[$id]}")
    done
    pzt_cleanup_work "$rc" "${logs[@]}"
    exit "$rc"
}

pzt_finish() { checks_finish; }

# sim_started KIND ID SOCK OUT READY LOG: records the simulator just started
# in the background (PID $!, socket SOCK, log LOG) as ID and waits until its
# output file OUT has a line matching READY; returns 1, with LOG's tail, when
# it does not get ready.
sim_started() {
    local kind=$1 id=$2 log=$6
    PZT_PID[$id]=$!
    PZT_SOCK[$id]=$3
    PZT_LOG[$id]=$log
    if ! wait_file "$4" 120 "$5" "${PZT_PID[$id]}"; then
        echo "$kind $id did not get ready:" >&2
        tail -n 5 "$log" >&2
        return 1
    fi
}

# start_pzfabric ID NET [OPTIONS]: pzfabric ($PZFABRIC) on NET; waits for "ready".
start_pzfabric() {
    local id=$1 net=$2 sock="pzt-$$-$1" out="$WORK/$1.fabric.out" err="$WORK/$1.fabric.err"
    shift 2
    "$PZFABRIC" --sockname "$sock" "$@" "$net" > "$out" 2> "$err" < /dev/null &
    sim_started pzfabric "$id" "$sock" "$out" '^ready$' "$err"
}

# start_ibsim ID NET [OPTIONS]: the reference simulator on NET; waits for it.
start_ibsim() {
    local id=$1 net=$2 sock="pzt-$$-$1" out="$WORK/$1.ibsim.out"
    shift 2
    # -n: no console. With its console on stdin /dev/null, ibsim spins at 100 % CPU (EOF
    # is always readable).
    IBSIM_SOCKNAME=$sock ibsim -s -n "$@" "$net" > "$out" 2>&1 < /dev/null &
    sim_started ibsim "$id" "$sock" "$out" 'Network simulator ready' "$out"
}

# start_opensm ID SIM HOST [--guid2lid FILE] [--conf FILE] [OPENSM OPTIONS]:
# OpenSM attached to simulator SIM at node HOST. --guid2lid seeds its cache
# dir with FILE (OpenSM reads $OSM_CACHE_DIR/guid2lid at start) and adds
# --honor_guid2lid; --conf passes -F FILE. Defaults to -R ftree --connect_roots
# unless OPTIONS name a routing engine themselves (-R/--routing_engine).
start_opensm() {
    local id=$1 sim=$2 host=$3 dir="$WORK/$1" opts=() routing=yes
    shift 3
    mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump" "$dir/run"
    while [ $# -gt 0 ]; do
        case "$1" in
        --guid2lid)
            cp "$2" "$dir/cache/guid2lid"
            opts+=(--honor_guid2lid)
            shift 2
            ;;
        --conf)
            opts+=(-F "$2")
            shift 2
            ;;
        -R | --routing_engine)
            routing=no
            opts+=("$1" "$2")
            shift 2
            ;;
        *)
            opts+=("$1")
            shift
            ;;
        esac
    done
    [ "$routing" = yes ] && opts+=(-R ftree --connect_roots)
    pzt_start_opensm "$dir" "${PZT_SOCK[$sim]}" "$host" "${opts[@]}"
    PZT_PID[$id]=$PZT_OSM_PID
    PZT_LOG[$id]=$dir/osm.log
    PZT_SM_START[$id]=$(date +%s.%N)
}

# wait_subnet_up ID [SECONDS]: until OpenSM ID has logged SUBNET UP; fails if
# it does not within SECONDS (default 60) or exits. Sets SUBNET_UP_SECONDS
# to the time since start_opensm.
wait_subnet_up() {
    local id=$1 secs=${2:-60}
    SUBNET_UP_SECONDS=''
    wait_file "$WORK/$id/osm.log" "$secs" 'SUBNET UP' "${PZT_PID[$id]:-}" || return 1
    # shellcheck disable=SC2034 # for the tests
    SUBNET_UP_SECONDS=$(awk -v a="${PZT_SM_START[$id]}" -v b="$(date +%s.%N)" \
        'BEGIN { printf "%.2f", b - a }')
}

# wait_log ID SECONDS REGEX [COUNT]: until OpenSM ID's log has at least COUNT
# (default 1) lines matching REGEX.
wait_log() { wait_lines "$WORK/$1/osm.log" "${@:2}"; }

# count_log ID REGEX: lines of OpenSM ID's log matching REGEX.
count_log() { grep -cE "$2" "$WORK/$1/osm.log" 2> /dev/null || true; }

# run_diag SIM HOST COMMAND...: run COMMAND as a umad2sim client of simulator
# SIM at node HOST, in a private temporary directory (umad2sim writes
# ./sys-<pid> there), with a timeout of $PZT_DIAG_TIMEOUT seconds.
run_diag() {
    pzt_diag "${PZT_SOCK[$1]}" "$2" "${PZT_MAD_TIMEOUT:-4000}" "$PZT_DIAG_TIMEOUT" "${@:3}"
}

# run_diag_batch SIM HOST JOBS LIST: run_diag SIM HOST for every line
# "OUTFILE ARG..." of LIST, JOBS at a time (a diag spends ~30 ms starting:
# umad2sim builds its fake sysfs), stdout and stderr to OUTFILE, the exit
# status to OUTFILE.rc. A diag whose MAD timed out (an "ibwarn" line saying so,
# even when it exits 0: ibroute then prints "unknown node" for that entry) or
# that a signal killed is run again, alone, up to twice: on a loaded machine a
# 4 s MAD timeout can pass while the fabric's process waits for a CPU.
run_diag_batch() {
    local sim=$1 host=$2 jobs=$3 list=$4 out line pids=()
    local -a args
    while read -r out line; do
        read -r -a args <<< "$line"
        (
            rc=0
            run_diag "$sim" "$host" "${args[@]}" > "$out" 2>&1 || rc=$?
            echo "$rc" > "$out.rc"
        ) &
        pids+=("$!")
        if [ ${#pids[@]} -ge "$jobs" ]; then
            wait -n "${pids[@]}" || true
            local alive=()
            for pid in "${pids[@]}"; do
                kill -0 "$pid" 2> /dev/null && alive+=("$pid")
            done
            pids=("${alive[@]}")
        fi
    done < "$list"
    for pid in "${pids[@]}"; do
        wait "$pid" || true
    done
    local try rc
    while read -r out line; do
        read -r -a args <<< "$line"
        for try in 1 2; do
            rc=$(cat "$out.rc" 2> /dev/null || echo 255)
            [ "$rc" -lt 128 ] && ! grep -q '^ibwarn: .*timed out' "$out" && break
            echo "run_diag_batch: $sim: '${args[*]}' (exit $rc) again ($try)" >&2
            rc=0
            run_diag "$sim" "$host" "${args[@]}" > "$out" 2>&1 || rc=$?
            echo "$rc" > "$out.rc"
        done
    done < "$list"
}

# --- ibnetdiscover output ---------------------------------------------------

# net_links FILE: the cabling of a topology file or of ibnetdiscover output
# as sorted "node port remote-node remote-port" lines (names as quoted in
# the header lines, i.e. the node names of the topology file; ibnetdiscover's
# own names are "S-<guid>"/"H-<guid>" for which the description after '#'
# is used).
net_links() {
    awk '/^(Switch|Hca|Ca)[ \t]/ { n = split($0, q, "\"")
             node = q[2]
             if (n >= 5 && $0 ~ /#/) node = q[4]
             next }
         /^\[/ { split($0, q, "\"")
                 lp = $0; sub(/^\[/, "", lp); sub(/\].*/, "", lp)
                 rp = q[3]; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp)
                 rn = q[2]
                 if ($0 ~ /#/) { m = split($0, r, "\""); if (m >= 5) rn = r[4] }
                 print node, lp, rn, rp }' "$1" | sort
}

# levels NET: "switch level" -- level 0 for leaves (switches with CAs), then
# one more per step away from them; the roots have the highest level.
levels() {
    awk '/^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); node = q[2]; type[node] = $1; next }
         /^\[/ { split($0, q, "\""); nb[node] = nb[node] " " q[2] }
         END {
             n = 0
             for (s in type) if (type[s] == "Switch") {
                 c = split(nb[s], a, " ")
                 for (i = 1; i <= c; i++) if (type[a[i]] != "Switch") { lvl[s] = 0; queue[n++] = s; break }
             }
             for (h = 0; h < n; h++) {
                 s = queue[h]; c = split(nb[s], a, " ")
                 for (i = 1; i <= c; i++)
                     if (type[a[i]] == "Switch" && !(a[i] in lvl)) { lvl[a[i]] = lvl[s] + 1; queue[n++] = a[i] }
             }
             for (s in lvl) print s, lvl[s]
         }' "$1" | sort
}

# net_nodes FILE: sorted "type ports name" lines (type Switch or Ca).
net_nodes() {
    awk '/^(Switch|Hca|Ca)[ \t]/ { n = split($0, q, "\"")
             node = q[2]
             if (n >= 5 && $0 ~ /#/) node = q[4]
             type = ($1 == "Switch") ? "Switch" : "Ca"
             print type, $2, node }' "$1" | sort
}

# disc_lid OUT NAME: the LID ibnetdiscover output OUT shows for node NAME
# (a switch's port 0 LID or a CA's first port's LID).
disc_lid() {
    awk -v want="$2" '
        /^(Switch|Ca)/ { n = split($0, q, "\""); here = (q[4] == want)
             if (here && $1 == "Switch") {
                 for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }
             next }
        here && /^\[/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$1"
}

# disc_switches OUT: "name lid" of every switch in ibnetdiscover output OUT.
disc_switches() {
    awk '/^Switch/ { n = split($0, q, "\"")
             for (i = 1; i <= NF; i++) if ($i == "lid") print q[4], $(i + 1) }' "$1"
}

# --- Routes ------------------------------------------------------------------

# An awk function: hex("0x1a") = 26.
PZT_AWK_HEX='function hex(x,   v, i) { x = tolower(x); sub(/^0x/, "", x); v = 0
    for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
    return v }'

# lft_lines SWITCH IBROUTE_OUTPUT: "switch lid port" for every entry of an
# ibroute dump.
lft_lines() {
    awk -v s="$1" "$PZT_AWK_HEX"'
        /^0x[0-9a-f]+ [0-9]+ :/ { printf "%s %d %d\n", s, hex($1), $2 + 0 }' "$2"
}

# lft_walk LINKS LFTS LIDS FROM DLID: the hops a LID-routed packet for DLID
# takes from switch FROM by the LFTs (LFTS: "switch lid port" lines) over the
# cabling (LINKS: net_links output), one "out-port remote-node remote-port"
# line per hop, until the node whose LID (LIDS: "name lid" lines) is DLID;
# a "FAIL ..." line and status 1 if there is no way.
lft_walk() {
    awk -v at="$4" -v dlid="$5" '
        FILENAME == ARGV[1] { peer[$1 " " $2] = $3 " " $4; next }
        FILENAME == ARGV[2] { lft[$1 " " $2] = $3; sw[$1] = 1; next }
        FILENAME == ARGV[3] { lidof[$1] = $2; next }
        END {
            for (hops = 0; hops < 64; hops++) {
                if (lidof[at] == dlid) exit 0
                if (!(at in sw)) { print "FAIL at CA " at; exit 1 }
                if (!((at " " dlid) in lft)) { print "FAIL no LFT entry at " at; exit 1 }
                p = lft[at " " dlid]
                if (p == 0) { print "FAIL port 0 at " at; exit 1 }
                if (!((at " " p) in peer)) { print "FAIL no cable at " at "[" p "]"; exit 1 }
                split(peer[at " " p], r, " ")
                print p, r[1], r[2]
                at = r[1]
            }
            print "FAIL loop"; exit 1
        }' "$1" "$2" "$3"
}

# lft_walk_all LINKS LFTS LIDS PAIRS: lft_walk for every "from dlid" line of
# PAIRS, in one pass: "from dlid hops" lines, hops as lft_walk's lines
# joined by "," (empty: already there), or "FAIL..." (spaces as "_").
lft_walk_all() {
    awk '
        FILENAME == ARGV[1] { peer[$1 " " $2] = $3 " " $4; next }
        FILENAME == ARGV[2] { lft[$1 " " $2] = $3; sw[$1] = 1; next }
        FILENAME == ARGV[3] { lidof[$1] = $2; next }
        { at = $1; dlid = $2; out = ""
          for (hops = 0; ; hops++) {
              if (hops == 64) { out = "FAIL_loop"; break }
              if (lidof[at] == dlid) break
              if (!(at in sw)) { out = "FAIL_at_CA_" at; break }
              if (!((at " " dlid) in lft)) { out = "FAIL_no_LFT_entry_at_" at; break }
              p = lft[at " " dlid]
              if (p == 0) { out = "FAIL_port_0_at_" at; break }
              if (!((at " " p) in peer)) { out = "FAIL_no_cable_at_" at "[" p "]"; break }
              split(peer[at " " p], r, " ")
              out = out (out == "" ? "" : ",") p " " r[1] " " r[2]
              at = r[1]
          }
          gsub(/ /, "_", out)
          print $1, $2, out }' "$1" "$2" "$3" "$4"
}

# tracert_hops IBTRACERT_OUTPUT: its switch hops in lft_walk's format.
tracert_hops() {
    sed -n 's/^\[\([0-9]*\)\] -> switch port {[^}]*}\[\([0-9]*\)\].*"\(.*\)"$/\1 \3 \2/p' "$1"
}
